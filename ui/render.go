package ui

import (
	"bytes"
	_ "embed"

	"github.com/vugu/vugu"
	"github.com/vugu/vugu/staticrender"
)

// Render builds component c with vugu and returns its HTML as vugu's
// static renderer writes it: the component's root element (a whole
// document for ReportPage).
func Render(c vugu.Builder) (string, error) {
	var buf bytes.Buffer
	r := staticrender.New(&buf)
	env, err := vugu.NewBuildEnv(r.EventEnv())
	if err != nil {
		return "", err
	}
	if err := r.Render(env.RunBuild(c)); err != nil {
		return "", err
	}
	return buf.String(), nil
}

// componentsCSS styles the components, in the page (scripts/wasm-build.sh
// copies it to webapp/static/components.css) and in report.html (which
// inlines it).
//
//go:embed components.css
var componentsCSS string

// ComponentsCSS returns the style sheet of the components.
func ComponentsCSS() string { return componentsCSS }
