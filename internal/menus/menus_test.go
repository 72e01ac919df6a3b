package menus

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dreval/dreval/metrics"
	"github.com/dreval/dreval/modelfiles"
	"github.com/dreval/dreval/perturb"
)

var page = filepath.Join("..", "..", "webapp", "static", "index.html")

// TestPageUpToDate fails while the committed page's menus are not what
// the tables make: run "go generate ./webapp".
func TestPageUpToDate(t *testing.T) {
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Render(b)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(b) {
		t.Errorf("%s is out of date with the tables: run \"go generate ./webapp\"", page)
	}
}

// TestMenusFromTables checks that the page's mode menu lists every mode
// of perturb's table the page offers, in the table's order, with its
// label, and none it does not; and that the convention and ONNX graph
// menus list their tables' rows.
func TestMenusFromTables(t *testing.T) {
	var page strings.Builder
	for _, m := range Menus() {
		page.WriteString("<select>\n  <!-- menu:" + m.Name + " -->\n  <option>stale</option>\n  <!-- /menu:" + m.Name + " -->\n</select>\n")
	}
	in := []byte(page.String())
	b, err := Render(in)
	if err != nil {
		t.Fatal(err)
	}
	got := string(b)
	if strings.Contains(got, "stale") {
		t.Errorf("the old options stayed:\n%s", got)
	}
	last := -1
	for _, m := range perturb.ModeTable() {
		opt := `<option value="` + string(m.Mode) + `">`
		i := strings.Index(got, opt)
		switch {
		case m.Page == "" && i >= 0:
			t.Errorf("mode %s is in the menu, but the page does not offer it", m.Mode)
		case m.Page != "" && i < 0:
			t.Errorf("mode %s is missing from the menu:\n%s", m.Mode, got)
		case m.Page != "" && i < last:
			t.Errorf("mode %s is out of the table's order", m.Mode)
		case m.Page != "":
			last = i
			if !strings.Contains(got, opt+m.Page+"</option>") {
				t.Errorf("mode %s lacks its label %q", m.Mode, m.Page)
			}
		}
	}
	for _, c := range metrics.Conventions() {
		if !strings.Contains(got, `<option value="`+c.Name+`">`+c.Name+` (`+c.Tool+`)</option>`) {
			t.Errorf("convention %s is missing from the menu", c.Name)
		}
	}
	for _, v := range modelfiles.ONNXVariants() {
		if !strings.Contains(got, `<option value="`+v.Want+`">`+v.Label+`</option>`) {
			t.Errorf("ONNX variant %q is missing from the menu", v.Want)
		}
	}
	if again, _ := Render(b); string(again) != got {
		t.Error("Render is not idempotent")
	}
	if _, err := Render([]byte("<select></select>")); err == nil || !strings.Contains(err.Error(), `menu "mode"`) {
		t.Errorf("a page without markers: %v", err)
	}
}
