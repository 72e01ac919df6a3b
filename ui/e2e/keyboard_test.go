//go:build !js

package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// focused describes the element that has the keyboard focus.
type focused struct {
	Key          string  `json:"key"` // id, else name=value, else tag
	FocusVisible bool    `json:"focusVisible"`
	Outline      string  `json:"outline"`
	OutlineWidth float64 `json:"outlineWidth"`
	Shown        bool    `json:"shown"`
}

const readFocus = `(() => {
  const e = document.activeElement;
  const s = getComputedStyle(e);
  const r = e.getBoundingClientRect();
  return {
    key: e.id || (e.name ? e.name + "=" + e.value : e.tagName.toLowerCase()),
    focusVisible: e.matches(":focus-visible"),
    outline: s.outlineStyle,
    outlineWidth: parseFloat(s.outlineWidth) || 0,
    shown: r.width > 0 && r.height > 0 && s.visibility !== "hidden",
  };
})()`

// press sends keys to the focused element, as a user's keyboard does.
func press(t testing.TB, ctx context.Context, keys string, opts ...chromedp.KeyOption) {
	t.Helper()
	if err := chromedp.Do(ctx, chromedp.KeyEvent(keys, opts...)); err != nil {
		t.Fatalf("pressing %q: %v", keys, err)
	}
}

// tabTo presses Tab (or Shift+Tab) until the element with key has the
// focus, checking on the way that every element reached is shown and
// has a visible focus ring; it returns the keys of the elements passed.
func tabTo(t testing.TB, ctx context.Context, key string, back bool) []string {
	t.Helper()
	var path []string
	for range 80 {
		if back {
			press(t, ctx, kb.Tab, chromedp.KeyModifiers(chromedp.ModifierShift))
		} else {
			press(t, ctx, kb.Tab)
		}
		f := eval[focused](t, ctx, readFocus)
		path = append(path, f.Key)
		if !f.Shown {
			t.Errorf("Tab reached %s, which is not shown (path %v)", f.Key, path)
		}
		if !f.FocusVisible || f.Outline == "none" || f.OutlineWidth < 2 {
			t.Errorf("%s has the keyboard focus but no visible focus ring (focus-visible %v, outline %s %gpx)", f.Key, f.FocusVisible, f.Outline, f.OutlineWidth)
		}
		if f.Key == key {
			return path
		}
	}
	t.Fatalf("Tab never reached %s; path %v", key, path)
	return nil
}

// TestKeyboardOnly runs the demo with the keyboard alone: Tab through
// the form (every stop shown, with a visible focus ring), arrow keys on
// the data radios and the rate slider, type-ahead in the model list,
// Enter on Run, Enter on the inspector's summary, then the slider moved
// by an arrow key reruns at the new rate.
func TestKeyboardOnly(t *testing.T) {
	model := demoModel(t)
	ctx, url := browser(t, 10*time.Minute, fileServer(t))
	load(t, ctx, url)

	// The data radios: Tab stops on the checked one; arrows move it.
	path := tabTo(t, ctx, "data=demo", false)
	press(t, ctx, kb.ArrowDown)
	if got := eval[string](t, ctx, `dataKind()`); got != "beir" {
		t.Fatalf("ArrowDown on the data radios selected %q, want beir", got)
	}
	if eval[bool](t, ctx, `document.querySelector(".sub[data-for=beir]").hidden`) {
		t.Error("choosing BEIR by keyboard did not show its file inputs")
	}
	press(t, ctx, kb.ArrowUp)
	if got := eval[string](t, ctx, `dataKind()`); got != "demo" {
		t.Fatalf("ArrowUp on the data radios selected %q, want demo", got)
	}

	// The model by type-ahead on the closed list.
	path = append(path, tabTo(t, ctx, "model", false)...)
	press(t, ctx, model[:1])
	if got := eval[string](t, ctx, `document.getElementById("model").value`); got != model {
		t.Fatalf("typing %q in the model list selected %q, want %s", model[:1], got, model)
	}

	// The rate: 10% by default; Right then Left comes back to it.
	path = append(path, tabTo(t, ctx, "rate", false)...)
	press(t, ctx, kb.ArrowRight)
	if got := eval[string](t, ctx, `document.getElementById("rate-out").textContent`); got != "11%" {
		t.Errorf("ArrowRight on the rate slider shows %q, want 11%%", got)
	}
	press(t, ctx, kb.ArrowLeft)
	if got := eval[string](t, ctx, `document.getElementById("rate").value`); got != "10" {
		t.Fatalf("rate %s after Right, Left; want 10", got)
	}

	// With the opening lesson's results on screen, each arrow key on the
	// slider reran the demo: wait for those runs to end.
	waitJS(t, ctx, `document.body.dataset.busy === "false"`, 5*time.Minute)
	base := eval[int](t, ctx, `Number(document.body.dataset.runs || 0)`)
	// One seed, as the native run compared with (the page's default is 5).
	eval[bool](t, ctx, `(() => { document.getElementById("seeds").value = "1"; return true; })()`)
	// Run with Enter.
	path = append(path, tabTo(t, ctx, "run", false)...)
	t.Logf("tab order to Run: %s", strings.Join(path, " → "))
	press(t, ctx, kb.Enter)
	finish(t, ctx, base+1, 5*time.Minute)
	if msg := pageError(t, ctx); msg != "" {
		t.Fatalf("the page shows an error: %s", msg)
	}
	checkTable(t, eval[[]cell](t, ctx, readTable), nativeRun(t, model, 0.1, 1), 0.1, false)

	// The inspector opens with Enter on its summary.
	tabTo(t, ctx, "summary", false)
	press(t, ctx, kb.Enter)
	if !eval[bool](t, ctx, `document.getElementById("inspector-box").open`) {
		t.Error("Enter on the inspector's summary did not open it")
	}

	// Back to the slider: one arrow key reruns at 11%.
	tabTo(t, ctx, "rate", true)
	press(t, ctx, kb.ArrowRight)
	finish(t, ctx, base+2, 5*time.Minute)
	checkTable(t, eval[[]cell](t, ctx, readTable), nativeRun(t, model, 0.11, 1), 0.11, false)
	if got := eval[string](t, ctx, `document.getElementById("status").textContent`); !strings.Contains(got, "11%") {
		t.Errorf("status after the keyboard slider move: %q, want it to name 11%%", got)
	}
	screenshot(t, ctx, fmt.Sprintf("keyboard-%s.png", model))
}
