package progress

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

func TestFormat(t *testing.T) {
	tests := []struct {
		step        string
		done, total int
		unit        string
		elapsed     time.Duration
		want        []string
		notWant     []string
	}{
		{"encode", 50, 100, "docs", 10 * time.Second, []string{"encode [==========>         ] 50/100 docs", "5.0 docs/s", "ETA 10s"}, nil},
		{"encode", 100, 100, "docs", 4 * time.Second, []string{"[====================]", "100/100", "in 4s"}, []string{"ETA"}},
		{"search", 7, 0, "", time.Second, []string{"search 7", "7.0 items/s"}, []string{"ETA", "["}},
		{"start", 0, 10, "q", 0, []string{"0/10 q"}, []string{"/s"}},
	}
	for _, tt := range tests {
		got := Format(tt.step, tt.done, tt.total, tt.unit, tt.elapsed)
		for _, w := range tt.want {
			if !strings.Contains(got, w) {
				t.Errorf("Format(%q, %d, %d) = %q, want it to contain %q", tt.step, tt.done, tt.total, got, w)
			}
		}
		for _, w := range tt.notWant {
			if strings.Contains(got, w) {
				t.Errorf("Format(%q, %d, %d) = %q, should not contain %q", tt.step, tt.done, tt.total, got, w)
			}
		}
	}
}

func TestDuration(t *testing.T) {
	tests := []struct {
		d    time.Duration
		want string
	}{
		{-time.Second, "0s"},
		{850 * time.Millisecond, "850ms"},
		{12 * time.Second, "12s"},
		{185 * time.Second, "3m05s"},
		{62 * time.Minute, "1h02m"},
	}
	for _, tt := range tests {
		if got := Duration(tt.d); got != tt.want {
			t.Errorf("Duration(%v) = %q, want %q", tt.d, got, tt.want)
		}
	}
}

// fakeClock returns a clock advanced by hand.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time { return c.t }

func TestBarThrottlesPlainOutput(t *testing.T) {
	var buf bytes.Buffer
	clk := &fakeClock{t: time.Unix(0, 0)}
	b := New(&buf)
	b.Now = clk.now
	b.Interval = 5 * time.Second
	for i := 0; i <= 100; i++ {
		b.Update("encode", i, 100, "docs")
		clk.t = clk.t.Add(100 * time.Millisecond)
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	// 10 s of updates at one line per 5 s: the first, two more, the last.
	if len(lines) < 3 || len(lines) > 5 {
		t.Fatalf("got %d lines, want 3..5:\n%s", len(lines), buf.String())
	}
	if !strings.Contains(lines[len(lines)-1], "100/100") {
		t.Errorf("last line %q does not show completion", lines[len(lines)-1])
	}
	if strings.Contains(buf.String(), "\r") {
		t.Errorf("plain output contains carriage returns")
	}
}

func TestBarTerminalRedrawsInPlace(t *testing.T) {
	var buf bytes.Buffer
	clk := &fakeClock{t: time.Unix(0, 0)}
	b := New(&buf)
	b.SetTerminal(true)
	b.Now = clk.now
	b.Interval = 0
	b.Update("a", 1, 3, "")
	clk.t = clk.t.Add(time.Second)
	b.Update("a", 2, 3, "")
	b.Update("b", 1, 0, "")
	b.Done()
	out := buf.String()
	if strings.Count(out, "\r") != 3 {
		t.Errorf("want 3 redraws, got %q", out)
	}
	if strings.Count(out, "\n") != 2 {
		t.Errorf("want a new line at the step change and at Done, got %q", out)
	}
}
