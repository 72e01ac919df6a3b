//go:build js && wasm

package main

import (
	"time"

	"github.com/dreval/dreval/browser"
	"github.com/dreval/dreval/experiment"
	"github.com/dreval/dreval/results"
	"github.com/dreval/dreval/ui"
)

// background computes the last results' missing tests, the drops under
// the paper's convention first (what a move of the slider to a rate
// already run shows), then the other conventions', then each run's.
func (a *app) background() {
	for range a.bg.Woken() {
		for {
			a.bg.WaitIdle()
			a.mu.Lock()
			res := a.last
			var next *experiment.Test
			if res != nil {
				if ts := browser.ByPriority(experiment.MissingTests(res)); len(ts) > 0 {
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
func (a *app) fillTest(res *results.Results, t experiment.Test) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	return experiment.FillTest(res, t)
}

// fill computes the tests of res that only lists (nil: every missing
// one).
func (a *app) fill(res *results.Results, only []experiment.Test) error {
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

// fillShown computes the tests the views of sel show.
func (a *app) fillShown(res *results.Results, sel ui.Selection) error {
	return a.fill(res, browser.ShownTests(res, sel))
}
