// Package progress renders progress of long steps (encoding, searching) as
// one line per step on a terminal or log: the step, items done of the total,
// the rate and the estimated time left.
//
// A Bar is fed updates (Update) by the command that owns the output; it
// redraws in place with a carriage return when the output is a terminal, and
// otherwise writes a plain line at most every Interval, so logs stay short.
// Library packages do not use it: they report progress through callbacks,
// and commands forward those callbacks to a Bar.
package progress

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
)

// Bar draws the progress of one step at a time to W.
type Bar struct {
	w        io.Writer
	terminal bool
	// Interval is the least time between two lines on a non-terminal
	// output (and between two redraws on a terminal, a tenth of it).
	Interval time.Duration
	// Now returns the current time; tests replace it.
	Now func() time.Time

	mu       sync.Mutex
	step     string
	start    time.Time
	last     time.Time
	lastDone int
	width    int // length of the line drawn in place, to blank it
	open     bool
}

// New returns a Bar writing to w. It redraws in place when w is an
// *os.File that is a character device (a terminal).
func New(w io.Writer) *Bar {
	b := &Bar{w: w, Interval: 5 * time.Second, Now: time.Now}
	if f, ok := w.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
			b.terminal = true
		}
	}
	return b
}

// SetTerminal forces in-place redrawing on (true) or off (false).
func (b *Bar) SetTerminal(on bool) { b.terminal = on }

// Update reports that done of total items (in unit, such as "docs") of step
// are finished. A new step name starts a new line and a new clock. When
// total is at most 0 the count is shown without a total or estimate. The
// step's line is finished when done reaches total.
func (b *Bar) Update(step string, done, total int, unit string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	now := b.Now()
	if step != b.step {
		b.finishLocked()
		b.step, b.start, b.last, b.lastDone = step, now, time.Time{}, -1
	}
	complete := total > 0 && done >= total
	interval := b.Interval
	if b.terminal {
		interval /= 10
	}
	if !complete && done != 0 && !b.last.IsZero() && now.Sub(b.last) < interval {
		return
	}
	if done == b.lastDone && !complete {
		return
	}
	b.last, b.lastDone = now, done
	line := Format(step, done, total, unit, now.Sub(b.start))
	if b.terminal {
		pad := ""
		if n := b.width - len(line); n > 0 {
			pad = strings.Repeat(" ", n)
		}
		fmt.Fprintf(b.w, "\r%s%s", line, pad)
		b.width = len(line)
		b.open = true
		if complete {
			fmt.Fprintln(b.w)
			b.open, b.width = false, 0
			b.step = ""
		}
		return
	}
	fmt.Fprintln(b.w, line)
	if complete {
		b.step = ""
	}
}

// Done finishes the line being drawn, if any.
func (b *Bar) Done() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.finishLocked()
	b.step = ""
}

func (b *Bar) finishLocked() {
	if b.open {
		fmt.Fprintln(b.w)
		b.open, b.width = false, 0
	}
}

// Format returns the progress line of a step: the step, a bar, the count,
// the rate per second and the estimated time left, as in
//
//	encode corpus minilm [=========>          ] 512/1400 docs  85.3 docs/s  ETA 10s
func Format(step string, done, total int, unit string, elapsed time.Duration) string {
	var sb strings.Builder
	sb.WriteString(step)
	if total > 0 {
		const width = 20
		filled := width * min(max(done, 0), total) / total
		sb.WriteString(" [")
		sb.WriteString(strings.Repeat("=", filled))
		if filled < width {
			sb.WriteString(">")
			sb.WriteString(strings.Repeat(" ", width-filled-1))
		}
		sb.WriteString("]")
		fmt.Fprintf(&sb, " %d/%d", done, total)
	} else {
		fmt.Fprintf(&sb, " %d", done)
	}
	if unit != "" {
		sb.WriteString(" " + unit)
	}
	secs := elapsed.Seconds()
	if secs > 0 && done > 0 {
		rate := float64(done) / secs
		fmt.Fprintf(&sb, "  %.1f %s/s", rate, orItems(unit))
		if total > 0 && done < total {
			left := time.Duration(float64(total-done) / rate * float64(time.Second))
			fmt.Fprintf(&sb, "  ETA %s", Duration(left))
		} else if total > 0 {
			fmt.Fprintf(&sb, "  in %s", Duration(elapsed))
		}
	}
	return sb.String()
}

func orItems(unit string) string {
	if unit == "" {
		return "items"
	}
	return unit
}

// Duration formats d for humans at a precision that suits progress lines:
// "850ms", "12s", "3m05s", "1h02m".
func Duration(d time.Duration) string {
	switch {
	case d < 0:
		return "0s"
	case d < time.Second:
		return fmt.Sprintf("%dms", d.Milliseconds())
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Round(time.Second).Seconds()))
	case d < time.Hour:
		d = d.Round(time.Second)
		return fmt.Sprintf("%dm%02ds", int(d/time.Minute), int(d%time.Minute/time.Second))
	default:
		d = d.Round(time.Minute)
		return fmt.Sprintf("%dh%02dm", int(d/time.Hour), int(d%time.Hour/time.Minute))
	}
}
