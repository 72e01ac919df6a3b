package browser

import (
	"sort"
	"sync"
	"time"

	"github.com/dreval/dreval/experiment"
	"github.com/dreval/dreval/metrics"
	"github.com/dreval/dreval/results"
	"github.com/dreval/dreval/ui"
)

// A run leaves its paired tests out (experiment.Config.DeferTests): the
// worker computes those of the view it replies with (fillShown), replies,
// then computes the others in the background, one test at a time and
// only while no request is being answered, so that a slider move waits
// for at most the test in progress. An export computes whatever is still
// missing first: the files are those of a run with every test.

// quiet is how long the background waits after the last answer before
// it starts a test: requests in quick succession (slider moves) do not
// wait for a test in progress.
const quiet = 400 * time.Millisecond

// Background is the state of the background computation.
type Background struct {
	mu      sync.Mutex
	busy    int           // requests being answered
	lastEnd time.Time     // when the last answer was sent
	idle    chan struct{} // closed when busy drops to 0
	wake    chan struct{} // a new run's tests to compute (Kick)
}

// Begin and End bracket the answer of a request.
func (b *Background) Begin() {
	b.mu.Lock()
	b.busy++
	b.mu.Unlock()
}

// End ends the answer of a request.
func (b *Background) End() {
	b.mu.Lock()
	b.busy--
	b.lastEnd = time.Now()
	if b.busy == 0 && b.idle != nil {
		close(b.idle)
		b.idle = nil
	}
	b.mu.Unlock()
}

// WaitIdle returns once no request is being answered and none was for
// quiet.
func (b *Background) WaitIdle() {
	for {
		b.waitNotBusy()
		b.mu.Lock()
		wait := quiet - time.Since(b.lastEnd)
		busy := b.busy
		b.mu.Unlock()
		if busy == 0 && wait <= 0 {
			return
		}
		if wait > 0 {
			time.Sleep(wait)
		}
	}
}

// waitNotBusy returns once no request is being answered.
func (b *Background) waitNotBusy() {
	b.mu.Lock()
	if b.busy == 0 {
		b.mu.Unlock()
		return
	}
	if b.idle == nil {
		b.idle = make(chan struct{})
	}
	ch := b.idle
	b.mu.Unlock()
	<-ch
}

// Kick wakes the background (Woken) for a new run's tests.
func (b *Background) Kick() {
	select {
	case b.Woken() <- struct{}{}:
	default:
	}
}

// Woken returns the channel Kick wakes.
func (b *Background) Woken() chan struct{} {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.wake == nil {
		b.wake = make(chan struct{}, 1)
	}
	return b.wake
}

// ByPriority orders tests: paper-convention drops, other drops, the
// rest in MissingTests' order.
func ByPriority(ts []experiment.Test) []experiment.Test {
	rank := func(t experiment.Test) int {
		switch {
		case t.Kind == experiment.TestDrop && t.Convention == experiment.PaperConvention:
			return 0
		case t.Kind == experiment.TestDrop:
			return 1
		}
		return 2
	}
	// sort.SliceStable, not slices.SortStableFunc: one shared sort for the
	// app's cold code (each element type slices sorts adds code).
	sort.SliceStable(ts, func(i, j int) bool { return rank(ts[i]) < rank(ts[j]) })
	return ts
}

// ShownTests returns the tests the views of sel show: the drop of the
// selected model and rate under the conventions of its table.
func ShownTests(res *results.Results, sel ui.Selection) []experiment.Test {
	var only []experiment.Test
	for _, cm := range res.Conventions {
		if cm.Convention == metrics.ConventionST || sel.AllConventions {
			only = append(only, experiment.Test{Kind: experiment.TestDrop, Dataset: sel.Dataset, Model: sel.Model, Rate: sel.Rate, Convention: cm.Convention})
		}
	}
	return only
}
