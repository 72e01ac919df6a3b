package main

import (
	"fmt"
	"io"

	"github.com/dreval/dreval/experiment"
	"github.com/dreval/dreval/internal/progress"
)

// eventPrinter returns the experiment.Run callback of eval and reproduce:
// it draws the steps' progress on w (a progress.Bar) and prints their
// messages, unless quiet; warnings are printed either way. done finishes
// the line being drawn; call it when Run returns.
func eventPrinter(w io.Writer, quiet bool) (onEvent func(experiment.Event), done func()) {
	var bar *progress.Bar
	if !quiet {
		bar = progress.New(w)
	}
	finish := func() {
		if bar != nil {
			bar.Done()
		}
	}
	onEvent = func(e experiment.Event) {
		switch {
		case e.Step == experiment.StepWarning:
			finish()
			if s := e.Subject(); s != "" {
				fmt.Fprintf(w, "warning: %s: %s\n", s, e.Message)
			} else {
				fmt.Fprintf(w, "warning: %s\n", e.Message)
			}
		case bar == nil:
		case e.Total > 0:
			bar.Update(e.Label(), e.Done, e.Total, e.Unit)
		case e.Message != "":
			finish()
			fmt.Fprintf(w, "%s: %s\n", e.Label(), e.Message)
		}
	}
	return onEvent, finish
}
