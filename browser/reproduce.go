package browser

import (
	"context"
	"fmt"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/dreval/dreval/experiment"
	"github.com/dreval/dreval/report"
	"github.com/dreval/dreval/results"
	"github.com/dreval/dreval/spec"
	"github.com/dreval/dreval/ui"
)

// Spec returns the experiment a request describes: the study's protocol,
// as "dreval reproduce -engine go" runs it, on the request's data and
// models (data names a collection: "demo", or an uploaded folder by its
// path in the page's files).
func (q ReproduceSettings) Spec() (spec.Spec, error) {
	if q.Data == "" {
		return spec.Spec{}, fmt.Errorf("reproduce: no data: want \"demo\" or an uploaded folder")
	}
	if q.Seeds < 0 {
		return spec.Spec{}, fmt.Errorf("reproduce: seeds %d: want at least 1 (the protocol uses %d)", q.Seeds, experiment.StudySeeds)
	}
	if len(q.Models) == 0 {
		return spec.Spec{}, fmt.Errorf("reproduce: no model: choose at least one of static, bm25 and minilm")
	}
	cfg := experiment.Study()
	cfg.Data, cfg.Models = []string{q.Data}, q.Models
	if q.Seeds > 0 {
		cfg.Seeds = q.Seeds
	}
	cfg.ModelOptions.Engine = experiment.EngineGo
	return cfg.Spec(), nil
}

// config returns the experiment configuration of a request: its Spec,
// run on the page's collections (data) with the page's models (reg,
// opts) and cache.
func (q ReproduceSettings) config(reg *experiment.Registry, cache experiment.Cache, data dataSource, opts experiment.ModelOptions) (experiment.Config, error) {
	s, err := q.Spec()
	if err != nil {
		return experiment.Config{}, err
	}
	cfg, err := experiment.FromSpec(s)
	if err != nil {
		return experiment.Config{}, err
	}
	cfg.Data, cfg.Collections = data.names, data.collections
	cfg.Registry = reg
	score := cfg.ModelOptions.Score // the study's cosine, as dreval reproduce
	cfg.ModelOptions = opts
	cfg.ModelOptions.Score = score
	cfg.Cache = cache
	cfg.Version = buildVersion()
	return cfg, cfg.Validate()
}

// command returns the command line that computes the same numbers
// natively (an uploaded folder under its own name): with -engine ort
// when a model of res was encoded by ONNX Runtime (onnxruntime-web or
// the server's), else -engine go.
func (q ReproduceSettings) command(cfg experiment.Config, res *results.Results) string {
	data := q.Data
	if i := strings.LastIndex(data, "/"); i >= 0 {
		data = data[i+1:]
	}
	eng := "go"
	for _, d := range res.Datasets {
		for _, m := range d.Models {
			if m.Engine == "ort" {
				eng = "ort"
			}
		}
	}
	return fmt.Sprintf("dreval reproduce -engine %s -data %s -models %s -seeds %d", eng, data, strings.Join(cfg.Models, ","), cfg.Seeds)
}

// buildVersion is the module version the app was built at, as "dreval
// version" reports it.
func buildVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "(devel)"
}

// reproduction renders res as the ReproduceReply: the HTML fragment and
// the Markdown document of package report, and the findings.
func reproduction(res *results.Results, o report.ReproductionOptions) (*ReproduceReply, error) {
	h, err := ui.Render(ui.NewReproduction(res, o))
	if err != nil {
		return nil, err
	}
	var md strings.Builder
	if err := report.Reproduction(&md, res, o); err != nil {
		return nil, err
	}
	return &ReproduceReply{HTML: h, Markdown: md.String(), Findings: report.Findings(res), Warnings: res.Warnings, Version: res.Version}, nil
}

// progressEvents returns experiment.Run's progress callback posting
// Progress messages; counting events are throttled to keep the page's
// message queue short, the last of each step always goes.
func progressEvents(progress func(Message)) func(experiment.Event) {
	last := time.Time{}
	return func(e experiment.Event) {
		if e.Total > 0 && e.Done < e.Total && time.Since(last) < 50*time.Millisecond {
			return
		}
		last = time.Now()
		progress(&Progress{Step: e.Step, Label: e.Label(), Done: e.Done, Total: e.Total, Unit: e.Unit, Message: e.Message})
	}
}

// reproduce runs the study's protocol with the run's models (a.registry:
// the server's encoder or the helper workers) and replies with the
// reproduction rendered.
func (a *App) reproduce(ctx context.Context, q ReproduceSettings, progress func(Message)) (*ReproduceReply, error) {
	e, err := checkEngine(q.Engine)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	a.current.begin(e)
	data, err := a.data(q.Data, "test")
	if err != nil {
		return nil, err
	}
	cfg, err := q.config(a.registry, a.cache, data, a.modelOptions(e))
	if err != nil {
		return nil, err
	}
	res, err := experiment.Run(ctx, cfg, progressEvents(progress))
	if err != nil {
		return nil, err
	}
	runSeconds := time.Since(start).Seconds()
	out, err := reproduction(res, report.ReproductionOptions{
		Command:   q.command(cfg, res),
		Machine:   "the browser app (js/wasm), " + strconv.Itoa(1+len(a.peerList())) + " worker(s)",
		DropRates: experiment.StudyDropRates(),
	})
	if err != nil {
		return nil, err
	}
	out.Encoding, out.Notes = a.current.report()
	out.RunSeconds = runSeconds
	out.Seconds = time.Since(start).Seconds()
	return out, nil
}
