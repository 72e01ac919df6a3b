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

// background is the state of the background computation.
type background struct {
	mu      sync.Mutex
	busy    int           // requests being answered
	lastEnd time.Time     // when the last answer was sent
	idle    chan struct{} // closed when busy drops to 0
	wake    chan struct{} // a new run's tests to compute (kick)
}

// begin and end bracket the answer of a request.
func (b *background) begin() {
	b.mu.Lock()
	b.busy++
	b.mu.Unlock()
}

func (b *background) end() {
	b.mu.Lock()
	b.busy--
	b.lastEnd = time.Now()
	if b.busy == 0 && b.idle != nil {
		close(b.idle)
		b.idle = nil
	}
	b.mu.Unlock()
}

// waitIdle returns once no request is being answered and none was for
// quiet.
func (b *background) waitIdle() {
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
func (b *background) waitNotBusy() {
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

func (b *background) kick() {
	select {
	case b.woken() <- struct{}{}:
	default:
	}
}

// woken returns the channel kick wakes.
func (b *background) woken() chan struct{} {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.wake == nil {
		b.wake = make(chan struct{}, 1)
	}
	return b.wake
}

// byPriority orders tests: paper-convention drops, other drops, the
// rest in MissingTests' order.
func byPriority(ts []experiment.Test) []experiment.Test {
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

// background computes the last results' missing tests, the drops under
// the paper's convention first (what a move of the slider to a rate
// already run shows), then the other conventions', then each run's.
func (a *App) background() {
	for range a.bg.woken() {
		for {
			a.bg.waitIdle()
			a.mu.Lock()
			res := a.last
			var next *experiment.Test
			if res != nil {
				if ts := byPriority(experiment.MissingTests(res)); len(ts) > 0 {
					next = &ts[0]
				}
			}
			a.mu.Unlock()
			if next == nil {
				break
			}
			if err := a.fillTest(res, *next); err != nil {
				break // an export computes it again and reports the error
			}
			// Back to the JavaScript event loop, so that a request that
			// came meanwhile is answered before the next test.
			time.Sleep(time.Millisecond)
		}
	}
}

// fillTest computes one test of res, with the results locked (a request
// never sees a test half written).
func (a *App) fillTest(res *results.Results, t experiment.Test) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	return experiment.FillTest(res, t)
}

// fill computes the tests of res that only lists (nil: every missing
// one).
func (a *App) fill(res *results.Results, only []experiment.Test) error {
	if only == nil {
		only = experiment.MissingTests(res)
	}
	for _, t := range only {
		if err := a.fillTest(res, t); err != nil {
			return err
		}
	}
	return nil
}

// fillShown computes the tests the views of sel show: the drop of the
// selected model and rate under the conventions of its table.
func (a *App) fillShown(res *results.Results, sel ui.Selection) error {
	var only []experiment.Test
	for _, cm := range res.Conventions {
		if cm.Convention == metrics.ConventionST || sel.AllConventions {
			only = append(only, experiment.Test{Kind: experiment.TestDrop, Dataset: sel.Dataset, Model: sel.Model, Rate: sel.Rate, Convention: cm.Convention})
		}
	}
	return a.fill(res, only)
}
