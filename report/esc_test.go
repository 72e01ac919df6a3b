package report

import (
	"html/template"
	"strings"
	"testing"
)

var escRef = template.Must(template.New("").Parse(`<p title="{{.}}">{{.}}</p>`))

// FuzzEsc checks that esc escapes as html/template does, in text and in
// quoted attributes, so report.html is what the template it replaced
// wrote.
func FuzzEsc(f *testing.F) {
	for _, s := range []string{"", "plain", `<script>alert("x")</script>`, "a&b'c+d", "nul\x00", "bad utf-8 \xff\xfe", "é ±"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var b strings.Builder
		if err := escRef.Execute(&b, s); err != nil {
			t.Fatal(err)
		}
		if got, want := `<p title="`+esc(s)+`">`+esc(s)+`</p>`, b.String(); got != want {
			t.Errorf("esc(%q): %q, html/template: %q", s, got, want)
		}
	})
}
