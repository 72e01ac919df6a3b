// Package menus writes the browser app's menus from the tables users
// choose from, so that a new entry of a table reaches the page without an
// edit of the page: "go generate ./webapp" rewrites webapp/static/index.html
// with Render, and a test fails while the committed page is not what
// Render makes of it.
//
// A menu is the <option> elements between the markers
// "<!-- menu:NAME -->" and "<!-- /menu:NAME -->" in the page.
package menus

import (
	"bytes"
	"fmt"
	"html"
	"strings"

	"github.com/dreval/dreval/metrics"
	"github.com/dreval/dreval/modelfiles"
	"github.com/dreval/dreval/perturb"
)

// Menu is one generated menu: its name in the markers and its options.
type Menu struct {
	Name    string
	Options []Option
}

// Option is one <option>: its value and its label.
type Option struct {
	Value, Label string
}

// Menus returns every generated menu, from its table.
func Menus() []Menu {
	mode := Menu{Name: "mode"}
	for _, m := range perturb.ModeTable() {
		if m.Page != "" {
			mode.Options = append(mode.Options, Option{Value: string(m.Mode), Label: m.Page})
		}
	}
	convention := Menu{Name: "convention"}
	for _, c := range metrics.Conventions() {
		convention.Options = append(convention.Options, Option{Value: c.Name, Label: c.Name + " (" + c.Tool + ")"})
	}
	graph := Menu{Name: "model-graph"}
	for _, v := range modelfiles.ONNXVariants() {
		graph.Options = append(graph.Options, Option{Value: v.Want, Label: v.Label})
	}
	return []Menu{mode, convention, graph}
}

// Render returns page with every menu of Menus written between its
// markers, indented as the opening marker is. A page without a menu's
// markers, or with them out of order, is an error naming the menu.
func Render(page []byte) ([]byte, error) {
	out := page
	for _, m := range Menus() {
		open, end := []byte("<!-- menu:"+m.Name+" -->"), []byte("<!-- /menu:"+m.Name+" -->")
		i := bytes.Index(out, open)
		j := bytes.Index(out, end)
		if i < 0 || j < 0 || j < i {
			return nil, fmt.Errorf("menu %q: the page lacks %s ... %s", m.Name, open, end)
		}
		lineStart := bytes.LastIndexByte(out[:i], '\n') + 1
		indent := string(out[lineStart:i])
		var b strings.Builder
		b.Write(out[:i+len(open)])
		b.WriteByte('\n')
		for _, o := range m.Options {
			fmt.Fprintf(&b, "%s<option value=\"%s\">%s</option>\n", indent, html.EscapeString(o.Value), html.EscapeString(o.Label))
		}
		b.WriteString(indent)
		b.Write(out[j:])
		out = []byte(b.String())
	}
	return out, nil
}
