package launch

import "testing"

func TestUsesJobService(t *testing.T) {
	for _, tc := range []struct {
		runner string
		want   bool
	}{
		{"prism", true}, {"PrismRunner", true}, {"flink", true}, {"spark", true}, {"universal", true},
		{"dataflow", false}, {"DataflowRunner", false}, {"direct", false},
	} {
		if got := usesJobService(tc.runner); got != tc.want {
			t.Errorf("usesJobService(%q) = %v, want %v", tc.runner, got, tc.want)
		}
	}
}
