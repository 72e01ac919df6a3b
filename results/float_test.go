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
