package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestIndentFit(t *testing.T) {
	tests := []struct {
		in    string
		width int
		want  string
	}{
		{`{"a":1}`, 10, "{\"a\":1}\n"},
		{`{"a":[1,2,3],"b":{"c":"x,}]"}}`, 12, "{\n  \"a\": [1,2,3],\n  \"b\": {\"c\":\"x,}]\"}\n}\n"},
		{`[{"k":"v\"}"},[]]`, 5, "[\n  {\n    \"k\": \"v\\\"}\"\n  },\n  []\n]\n"},
		{` [ 1 , 2 ] `, 80, "[1,2]\n"},
	}
	for _, tt := range tests {
		var b bytes.Buffer
		if err := indentFit(&b, []byte(tt.in), tt.width); err != nil {
			t.Fatalf("%s: %v", tt.in, err)
		}
		if b.String() != tt.want {
			t.Errorf("%s (width %d):\ngot  %q\nwant %q", tt.in, tt.width, b.String(), tt.want)
		}
	}
}

// FuzzIndentFit checks that indentFit keeps every valid JSON value's
// meaning: its output compacts back to the input's compact form.
func FuzzIndentFit(f *testing.F) {
	for _, s := range []string{`{"a":[1,{"b":null}],"c":"\u00e9\"\\"}`, `[]`, `{}`, `"x"`, `1e5`, `[[[[1]]],{"":{}}]`, `{"a":1,}`} {
		f.Add([]byte(s), 8)
	}
	f.Fuzz(func(t *testing.T, in []byte, width int) {
		if !json.Valid(in) {
			return
		}
		var out, want, got bytes.Buffer
		if err := indentFit(&out, in, width%200); err != nil {
			t.Fatalf("%q: %v", in, err)
		}
		if !json.Valid(out.Bytes()) {
			t.Fatalf("%q -> invalid %q", in, out.String())
		}
		json.Compact(&want, in)
		json.Compact(&got, out.Bytes())
		if want.String() != got.String() {
			t.Fatalf("%q -> %q changes the value", in, out.String())
		}
		if strings.Contains(out.String(), "\t") {
			t.Fatalf("tabs in output")
		}
	})
}
