package results

import (
	"encoding/json"
	"math"
	"testing"
)

func TestFloatJSON(t *testing.T) {
	tests := []struct {
		v    float64
		want string
	}{
		{0.5, "0.5"},
		{0, "0"},
		{-1e-7, "-1e-7"},
		{1e21, "1e+21"},
		{0.00009999000099990002, "0.00009999000099990002"},
		{1234567, "1234567"},
		{math.NaN(), "null"},
		{math.Inf(1), "null"},
		{math.Inf(-1), "null"},
	}
	for _, tt := range tests {
		b, err := json.Marshal(struct{ P Float }{Float(tt.v)})
		if err != nil || string(b) != `{"P":`+tt.want+`}` {
			t.Errorf("%v: %s, %v; want %s", tt.v, b, err, tt.want)
			continue
		}
		var back struct{ P Float }
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		if got := float64(back.P); got != tt.v && !(math.IsNaN(got) && (math.IsNaN(tt.v) || math.IsInf(tt.v, 0))) {
			t.Errorf("%v read back as %v", tt.v, got)
		}
	}
	var f Float
	if err := json.Unmarshal([]byte(`"x"`), &f); err == nil {
		t.Error(`"x" decoded as a Float`)
	}
}

func FuzzFloatJSON(f *testing.F) {
	for _, s := range []string{"null", "0.5", "-1e308", "1e999", `"x"`, ""} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var x Float
		if err := x.UnmarshalJSON(b); err != nil {
			return
		}
		out, err := x.MarshalJSON()
		if err != nil {
			t.Fatalf("%q read as %v does not encode: %v", b, float64(x), err)
		}
		var y Float
		if err := y.UnmarshalJSON(out); err != nil {
			t.Fatal(err)
		}
		if !(float64(x) == float64(y) || math.IsNaN(float64(y))) {
			t.Errorf("%q -> %v -> %s -> %v", b, float64(x), out, float64(y))
		}
	})
}
