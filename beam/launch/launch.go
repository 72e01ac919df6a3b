// Package launch runs a Beam pipeline on the runner of Beam's -runner
// flag and reports the job's metrics while it runs, so that a launcher
// can show progress (items done of the total, rate, time left) of work
// done on workers it cannot see.
//
// The metrics are polled from the runner's Beam job service: prism's (in
// this process, started here so that its address is known), or Flink's
// and Spark's job server given by -endpoint. Dataflow has no job service;
// there Run reports only the final metrics (its console shows the
// counters while the job runs).
package launch

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/core/metrics"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/core/runtime/metricsx"
	jobpb "github.com/apache/beam/sdks/v2/go/pkg/beam/model/jobmanagement_v1"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/options/jobopts"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/runners"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/runners/prism"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/x/beamx"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

// Runner returns the runner Beam's -runner flag names (prism when empty).
func Runner() string {
	if r := *runners.Runner; r != "" {
		return r
	}
	return "prism"
}

// usesJobService reports whether runner r is driven through a Beam job
// service that answers GetJobMetrics.
func usesJobService(r string) bool {
	switch strings.ToLower(r) {
	case "prism", "prismrunner", "flink", "flinkrunner", "spark", "sparkrunner", "universal", "portable":
		return true
	}
	return false
}

// prismServer is the in-process prism job service, started once (as
// prism.Execute does, all pipelines of the process share it).
var prismServer struct {
	once     sync.Once
	endpoint string
	err      error
}

// startPrism starts prism's job service on a free loopback port.
func startPrism(ctx context.Context) (string, error) {
	prismServer.once.Do(func() {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			prismServer.err = fmt.Errorf("finding a free port for prism: %w", err)
			return
		}
		port := l.Addr().(*net.TCPAddr).Port
		l.Close()
		if _, err := prism.CreateJobServer(context.WithoutCancel(ctx), prism.Options{Port: port}); err != nil {
			prismServer.err = fmt.Errorf("starting prism's job service on port %d: %w", port, err)
			return
		}
		prismServer.endpoint = "localhost:" + strconv.Itoa(port)
	})
	return prismServer.endpoint, prismServer.err
}

// Run executes p on Beam's -runner (beamx.RunWithMetrics) and, while it
// runs, calls report with the job's metrics every interval (and once
// with the final ones). report runs on another goroutine than Run's
// caller, never two calls at once.
func Run(ctx context.Context, p *beam.Pipeline, every time.Duration, report func(metrics.Results)) (beam.PipelineResult, error) {
	runner := Runner()
	if !usesJobService(runner) {
		res, err := beamx.RunWithMetrics(ctx, p)
		if err == nil && res != nil {
			report(res.Metrics())
		}
		return res, err
	}
	if strings.HasPrefix(strings.ToLower(runner), "prism") && *jobopts.Endpoint == "" {
		ep, err := startPrism(ctx)
		if err != nil {
			return nil, err
		}
		*jobopts.Endpoint = ep // prism.Execute then uses this job service
		if *jobopts.EnvironmentType == "" {
			*jobopts.EnvironmentType = "loopback"
		}
	}
	endpoint := *jobopts.Endpoint
	// A name of its own, to find this job among the job service's.
	name := *jobopts.JobName
	if name == "" {
		name = fmt.Sprintf("dreval-%d", time.Now().UnixNano())
		*jobopts.JobName = name
		defer func() { *jobopts.JobName = "" }()
	}

	var mu sync.Mutex // one report at a time
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		poll(ctx, endpoint, name, every, stop, func(m metrics.Results) {
			mu.Lock()
			defer mu.Unlock()
			report(m)
		})
	}()
	res, err := beamx.RunWithMetrics(ctx, p)
	close(stop)
	<-done
	if err == nil && res != nil {
		mu.Lock()
		report(res.Metrics())
		mu.Unlock()
	}
	return res, err
}

// poll asks the job service at endpoint for the metrics of the job named
// name every interval until stop closes. Failures to ask are skipped:
// progress is a courtesy, the job's own result says whether it worked.
func poll(ctx context.Context, endpoint, name string, every time.Duration, stop <-chan struct{}, report func(metrics.Results)) {
	conn, err := grpc.NewClient(endpoint, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return
	}
	defer conn.Close()
	client := jobpb.NewJobServiceClient(conn)
	t := time.NewTicker(every)
	defer t.Stop()
	id := ""
	for {
		select {
		case <-stop:
			return
		case <-ctx.Done():
			return
		case <-t.C:
		}
		rctx, cancel := context.WithTimeout(ctx, every)
		if id == "" {
			id = findJob(rctx, client, name)
		}
		if id != "" {
			if resp, err := client.GetJobMetrics(rctx, &jobpb.GetJobMetricsRequest{JobId: id}); err == nil {
				m := resp.GetMetrics()
				report(*metricsx.FromMonitoringInfos(nil, m.GetAttempted(), m.GetCommitted()))
			}
		}
		cancel()
	}
}

// findJob returns the id of the job named name (job servers may add to
// the name), or "" while there is none.
func findJob(ctx context.Context, client jobpb.JobServiceClient, name string) string {
	resp, err := client.GetJobs(ctx, &jobpb.GetJobsRequest{})
	if err != nil {
		return ""
	}
	for _, j := range resp.GetJobInfo() {
		if j.GetJobName() == name || strings.HasPrefix(j.GetJobName(), name) {
			return j.GetJobId()
		}
	}
	return ""
}
