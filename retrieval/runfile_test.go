package retrieval

import (
	"strings"
	"testing"
	"unicode"
)

func TestParseIDs(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		rows       int
		want       []string
		err        string
	}{
		{"plain", "a\nb\nc\n", 3, []string{"a", "b", "c"}, ""},
		{"no final newline, CRLF", "a\r\nb", 2, []string{"a", "b"}, ""},
		{"empty file, no rows", "", 0, nil, ""},
		{"too few", "a\nb\n", 3, nil, "ids.txt has 2 ids but corpus has 3 rows"},
		{"too many", "a\nb\n", 1, nil, "ids.txt has 2 ids but corpus has 1 rows"},
		{"blank line", "a\n\nb\n", 3, nil, `ids.txt:2: id "" is empty`},
		{"space", "a\nb c\n", 2, nil, `ids.txt:2: id "b c" is empty or contains white space`},
		{"carriage return inside", "a\n\rb\n", 2, nil, `ids.txt:2: id "\rb" is empty or contains white space`},
		{"no-break space", "a\u00a0b\n", 1, nil, "contains white space"},
		{"duplicate", "a\nb\na\n", 3, nil, `ids.txt:3: id "a" repeats line 1`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseIDs(tc.text, "ids.txt", tc.rows, "corpus")
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one containing %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(got, ",") != strings.Join(tc.want, ",") || len(got) != len(tc.want) {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestWriteRun(t *testing.T) {
	hits := [][]Hit{{{Doc: 1, Score: 0.5}, {Doc: 0, Score: 0.1}}, {{Doc: 0, Score: 1.0 / 3}}}
	var named, numbered strings.Builder
	if err := WriteRun(&named, hits, []string{"q1", "q2"}, []string{"d0", "d1"}, "tag"); err != nil {
		t.Fatal(err)
	}
	if err := WriteRun(&numbered, hits, nil, nil, "t"); err != nil {
		t.Fatal(err)
	}
	wantNamed := "q1 Q0 d1 1 0.5 tag\nq1 Q0 d0 2 0.1 tag\nq2 Q0 d0 1 0.33333334 tag\n"
	wantNumbered := "0 Q0 1 1 0.5 t\n0 Q0 0 2 0.1 t\n1 Q0 0 1 0.33333334 t\n"
	if named.String() != wantNamed {
		t.Errorf("named ids:\n%s\nwant\n%s", named.String(), wantNamed)
	}
	if numbered.String() != wantNumbered {
		t.Errorf("row numbers:\n%s\nwant\n%s", numbered.String(), wantNumbered)
	}
}

func FuzzParseIDs(f *testing.F) {
	f.Add("a\nb\n", 2)
	f.Add("a\r\n\nb c", 3)
	f.Add("", 0)
	f.Fuzz(func(t *testing.T, text string, rows int) {
		ids, err := ParseIDs(text, "ids.txt", rows, "m")
		if err != nil {
			return
		}
		if len(ids) != rows {
			t.Fatalf("%d ids for %d rows", len(ids), rows)
		}
		seen := map[string]bool{}
		for _, id := range ids {
			if id == "" || strings.IndexFunc(id, unicode.IsSpace) >= 0 || seen[id] {
				t.Fatalf("accepted bad or repeated id %q", id)
			}
			seen[id] = true
		}
	})
}
