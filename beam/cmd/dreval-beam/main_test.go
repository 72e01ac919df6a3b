package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/dreval/dreval/beam/pipeline"
	"github.com/dreval/dreval/internal/progress"
)

// TestProgressView: the counters polled from a job become progress lines
// with the count, the rate and the time left; a finished step's line is
// drawn once however often the final counters come.
func TestProgressView(t *testing.T) {
	var out bytes.Buffer
	bar := progress.New(&out)
	bar.Interval = 0
	now := time.Unix(0, 0)
	bar.Now = func() time.Time { return now }
	v := &progressView{bar: bar, model: "minilm"}
	for _, p := range []pipeline.Progress{
		{}, // nothing read yet
		{DocsTotal: 1400, ShardsTotal: 8},
		{DocsTotal: 1400, DocsEncoded: 350, ShardsTotal: 8},
		{DocsTotal: 1400, DocsEncoded: 700, ShardsTotal: 8, ShardsSearched: 3},
		{DocsTotal: 1400, DocsEncoded: 1400, ShardsTotal: 8, ShardsSearched: 6},
		{DocsTotal: 1400, DocsEncoded: 1400, ShardsTotal: 8, ShardsSearched: 8},
		{DocsTotal: 1400, DocsEncoded: 1400, ShardsTotal: 8, ShardsSearched: 8}, // the final metrics again
	} {
		v.show(p)
		now = now.Add(10 * time.Second)
	}
	bar.Done()
	got := out.String()
	for _, want := range []string{
		"encode corpus minilm [", "0/1400 docs",
		"350/1400 docs  35.0 docs/s  ETA 30s",
		"700/1400 docs  35.0 docs/s  ETA 20s",
		"1400/1400 docs  46.7 docs/s  in 30s",
		"search shards [", "6/8 shards", "8/8 shards",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("progress lacks %q:\n%s", want, got)
		}
	}
	if n := strings.Count(got, "8/8 shards"); n != 1 {
		t.Errorf("the finished search line is drawn %d times:\n%s", n, got)
	}
	if n := strings.Count(got, "1400/1400 docs"); n != 1 {
		t.Errorf("the finished encoding line is drawn %d times:\n%s", n, got)
	}
}
