package dataset

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/dreval/dreval/internal/sharedtest"
)

func TestSplitCSVTab(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"a\tb", []string{"a", "b"}},
		{"a\t", []string{"a", ""}},
		{`who "sang" it` + "\t['x']", []string{`who "sang" it`, "['x']"}},
		{`"""Which supermodel said, """"I look"""` + "\t" + `"[""We don't"", 'Linda']"`, []string{`"Which supermodel said, ""I look"`, `["We don't", 'Linda']`}},
		{`"a	b"` + "\tc", []string{"a\tb", "c"}},
	}
	for _, tt := range tests {
		got, err := splitCSVTab([]byte(tt.in))
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: got %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
	for _, in := range []string{`"abc`, `"abc"d` + "\tx"} {
		if _, err := splitCSVTab([]byte(in)); err == nil {
			t.Errorf("%s: no error", in)
		}
	}
}

func TestReadDPRQuestions(t *testing.T) {
	tsv := "who sang x\t['Elvis', \"O'Brien\"]\r\n" +
		"\"\"\"quoted\"\" question\"\t\"[\"\"Sandra Day O'Connor\"\"]\"\r\n"
	got, err := ReadDPRQuestions(strings.NewReader(tsv), "q.tsv")
	if err != nil {
		t.Fatal(err)
	}
	want := []Question{
		{ID: "0", Text: "who sang x", Answers: []string{"Elvis", "O'Brien"}},
		{ID: "1", Text: `"quoted" question`, Answers: []string{"Sandra Day O'Connor"}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q", got)
	}
	jl := "\ufeff" + `{"question": "How tall?", "answer": ["20\\s?,?\\s?(32|40)0"]}` + "\n" + `{"question": "q2", "answer": []}`
	got, err = ReadDPRQuestions(strings.NewReader(jl), "q.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	want = []Question{{ID: "0", Text: "How tall?", Answers: []string{`20\s?,?\s?(32|40)0`}}, {ID: "1", Text: "q2", Answers: []string{}}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q", got)
	}
	for _, tt := range []struct{ in, want string }{
		{"q\t['a']\nonly a question\n", "f:2: got 1 tab-separated fields, want 2"},
		{"q\t['a']\tz\n", "f:1: got 3 tab-separated fields"},
		{"\t['a']\n", "f:1: empty question"},
		{"q\t['a'\n", "f:1: answers field: python list at byte 4"},
		{"q\t\"['a']\n", "f:1: field 2: quoted field without its closing quote"},
		{`{"question": "q"}`, `f:1: missing "answer"`},
		{`{"answer": ["a"]}`, `f:1: missing "question"`},
		{`{"question": "q", "answer": ["a"]}` + "\nq\t['a']\n", "f:2: invalid JSON"},
	} {
		_, err := ReadDPRQuestions(strings.NewReader(tt.in), "f")
		if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("%q: got %v, want prefix %q", tt.in, err, tt.want)
		}
	}
}

// TestSharedDPRQuestions reads every DPR question file in the shared data.
func TestSharedDPRQuestions(t *testing.T) {
	dir := sharedtest.Path(t, "data/dpr-questions")
	tests := []struct {
		file  string
		n     int
		first Question
	}{
		{"topics.dpr.nq.test.txt", 3610, Question{ID: "0", Text: "who got the first nobel prize in physics", Answers: []string{"Wilhelm Conrad Röntgen"}}},
		{"topics.dpr.nq.dev.txt", 8757, Question{ID: "0", Text: "who sings does he love me with reba", Answers: []string{"Linda Davis"}}},
		{"topics.dpr.trivia.test.txt", 11313, Question{ID: "0", Text: "Who was the man behind The Chipmunks?", Answers: []string{"David Seville"}}},
		{"topics.dpr.squad.test.txt", 10570, Question{ID: "0", Text: "Which NFL team represented the AFC at Super Bowl 50?", Answers: []string{"Denver Broncos", "Denver Broncos", "Denver Broncos"}}},
		{"topics.dpr.wq.test.txt", 2032, Question{ID: "0", Text: "what does jamaican people speak?", Answers: []string{"Jamaican Creole English Language", "Jamaican English"}}},
		{"topics.dpr.curated.test.txt", 694, Question{ID: "0", Text: "How tall is Mount McKinley?", Answers: []string{`20\s?,?\s?(32|40)0\s?-?\s?f(ee|oo)t|6,194-meter|20,?237\s*f(oo|ee)?t|20,?073\s*f(oo|ee)?t|6,?168\s*m|6,118\s*m|6\,194 m|20\,322 feet`}}},
	}
	all := map[string][]Question{}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			qs, err := LoadDPRQuestions(filepath.Join(dir, tt.file))
			if err != nil {
				t.Fatal(err)
			}
			if len(qs) != tt.n {
				t.Errorf("%d questions, want %d", len(qs), tt.n)
			}
			if !reflect.DeepEqual(qs[0], tt.first) {
				t.Errorf("first question %q, want %q", qs[0], tt.first)
			}
			for _, q := range qs {
				if strings.ContainsAny(q.Text, "\r\n\t") {
					t.Errorf("question %s %q keeps a control character", q.ID, q.Text)
				}
			}
			all[tt.file] = qs
		})
	}
	// Lines with csv quoting, quotes inside answers and escapes.
	find := func(file, prefix string) Question {
		for _, q := range all[file] {
			if strings.HasPrefix(q.Text, prefix) {
				return q
			}
		}
		t.Errorf("%s: no question starting %q", file, prefix)
		return Question{}
	}
	checks := []struct {
		file, prefix string
		answers      []string
	}{
		{"topics.dpr.nq.dev.txt", "who was the first woman appointed to the supreme court", []string{"Sandra Day O'Connor"}},
		{"topics.dpr.nq.test.txt", "african countries that begin with the letter a", []string{"Algeria", "Angola", "Angola \u200e", "Algeria \u200e"}},
		{"topics.dpr.trivia.test.txt", "The Grand Prix circuit of Interlagos", []string{"SÄ\u0083o Paulo"}},
		{"topics.dpr.trivia.test.txt", `"Which supermodel said, ""I look very scary in the mornings?"`, []string{"We don't wake up for less than $10,000 a day", "Linda Evangelista"}},
		{"topics.dpr.trivia.test.txt", `"What was the first pop video directed by John Landis`, []string{`"Michael Jackson's ""Thriller"""`, "Michael Jackson's Thriller", "Michael jackson thriller", "Michael Jackson's Thriller (disambiguation)", "Michael Jacksons Thriller"}},
		{"topics.dpr.trivia.test.txt", "In which part of the body might one sustain a Pott's Fracture? \\", nil},
	}
	if len(all) < len(tests) {
		return
	}
	for _, c := range checks {
		q := find(c.file, c.prefix)
		if c.answers != nil && !reflect.DeepEqual(q.Answers, c.answers) {
			t.Errorf("%s %q: answers %q, want %q", c.file, c.prefix, q.Answers, c.answers)
		}
	}
}

func FuzzReadDPRQuestions(f *testing.F) {
	f.Add("who sang x\t['Elvis', \"O'Brien\"]\r\n")
	f.Add(`"""q"""` + "\t" + `"[""a""]"`)
	f.Add(`{"question": "q", "answer": ["a|b"]}`)
	f.Fuzz(func(t *testing.T, in string) {
		qs, err := ReadDPRQuestions(strings.NewReader(in), "f")
		if err != nil {
			return
		}
		for _, q := range qs {
			if q.Text == "" || q.Answers == nil {
				t.Fatalf("question %+v from %q", q, in)
			}
		}
	})
}

func TestLoadDPRQuestionsMissing(t *testing.T) {
	if _, err := LoadDPRQuestions(filepath.Join(t.TempDir(), "none.txt")); !os.IsNotExist(err) {
		t.Errorf("got %v", err)
	}
}
