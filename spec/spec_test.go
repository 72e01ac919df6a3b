package spec

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestParse reads a spec, a results.json holding one, and refuses bad
// input naming the file and the field.
func TestParse(t *testing.T) {
	prompt := "query: "
	want := &Spec{Data: []string{"demo"}, Models: []string{"minilm", "bm25"}, Rates: []float64{0, 0.1}, Seeds: 5, K: 100,
		Perturbation: Perturbation{Mode: "idshift", OOV: "redraw"}, QueryPrompt: &prompt}
	b, err := want.JSON()
	if err != nil {
		t.Fatal(err)
	}
	got, err := Parse(b, "spec.json")
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("Parse(JSON()) = %+v, %v; want %+v", got, err, want)
	}
	res := []byte(`{"version": "x", "config": {}, "spec": ` + string(b) + `, "datasets": []}`)
	if got, err := Parse(res, "results.json"); err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("Parse(results.json) = %+v, %v", got, err)
	}
	for _, c := range []struct{ in, want string }{
		{`[1]`, "spec.json: json: cannot unmarshal array"},
		{`{"data": ["demo"], "models": ["m"], "rates": [0], "colour": 1}`, `spec.json: json: unknown field "colour"`},
		{`{"models": ["m"], "rates": [0]}`, `spec.json: "data": no dataset`},
		{`{"data": ["demo"], "rates": [0]}`, `spec.json: "models": no model`},
		{`{"data": ["demo"], "models": ["m", "m"], "rates": [0]}`, `"models": "m" is listed twice`},
		{`{"data": ["demo"], "models": ["m"]}`, `"rates": no rate`},
		{`{"data": ["demo"], "models": ["m"], "rates": [0, 1.5]}`, `"rates"[1]: 1.5 is outside [0, 1]`},
		{`{"data": ["demo"], "models": ["m"], "rates": [0], "seeds": -1}`, `"seeds": -1`},
		{`{"data": ["demo"], "models": ["m"], "rates": [0], "answer_ks": [0]}`, `"answer_ks"[0]: 0`},
		{`{"data": [""], "models": ["m"], "rates": [0]}`, `"data"[0] is empty`},
		{`{"data": ["demo"], "models": ["m"], "rates": [0]} {}`, "after top-level value"},
		{`{"version": "x", "datasets": []}`, `a results.json without a "spec"`},
		{`{"spec": {"data": ["demo"]}, "datasets": []}`, `spec.json: spec: "models": no model`},
	} {
		if _, err := Parse([]byte(c.in), "spec.json"); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Parse(%s): %v, want an error containing %q", c.in, err, c.want)
		}
	}
}

// TestReadFile reads a spec file and names a missing one.
func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "spec.json")
	if err := os.WriteFile(p, []byte(`{"data": ["demo"], "models": ["static"], "rates": [0, 0.2], "seeds": 2, "k": 10}`), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := ReadFile(p)
	if err != nil || s.Seeds != 2 || s.K != 10 || len(s.Rates) != 2 {
		t.Fatalf("ReadFile = %+v, %v", s, err)
	}
	if _, err := ReadFile(filepath.Join(dir, "absent.json")); err == nil || !strings.Contains(err.Error(), "absent.json: no such file") {
		t.Errorf("a missing file: %v", err)
	}
}

// FuzzParse: no input panics, and a spec that parses survives JSON and
// Parse again unchanged.
func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"data": ["demo"], "models": ["m"], "rates": [0, 0.1], "seeds": 1, "perturbation": {"mode": "typo"}}`))
	f.Add([]byte(`{"spec": {"data": ["d"], "models": ["m"], "rates": [1]}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := Parse(b, "f")
		if err != nil {
			return
		}
		out, err := s.JSON()
		if err != nil {
			t.Fatal(err)
		}
		again, err := Parse(out, "f")
		if err != nil || !reflect.DeepEqual(again, s) {
			t.Fatalf("round trip: %+v, %v; want %+v", again, err, s)
		}
	})
}
