package dataset

import (
	"os"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

func readTopicsFile(t *testing.T, path string) []Topic {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	topics, err := ReadTopics(f, path)
	if err != nil {
		t.Fatal(err)
	}
	return topics
}

func TestReadTopicsSGML(t *testing.T) {
	got := readTopicsFile(t, "testdata/topics.sgml")
	want := []Topic{
		{ID: "301", Title: "International Organized Crime",
			Description: "Identify organizations that participate in international criminal activity.",
			Narrative:   "A relevant document must as a minimum identify the organization."},
		{ID: "302", Title: "Poliomyelitis and Post-Polio", Description: "Is the disease under control?"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
	q := TopicQueries(got)
	if !reflect.DeepEqual(q, []Query{{"301", "International Organized Crime"}, {"302", "Poliomyelitis and Post-Polio"}}) {
		t.Errorf("queries %q", q)
	}
}

func TestReadTopicsTSV(t *testing.T) {
	got := readTopicsFile(t, "testdata/topics.tsv")
	want := []Topic{{ID: "1", Title: "first query"}, {ID: "2", Title: "second  query"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v", got)
	}
}

func TestReadTopicsErrors(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"no tab", "1\tok\n2 no tab\n", "t:2: no tab; want qid<TAB>text"},
		{"duplicate tsv", "1\ta\n1\tb\n", `t:2: duplicate query id "1" (first on line 1)`},
		{"empty id", "\tx\n", "t:1: empty query id"},
		{"no num", "<top>\n<title> x\n</top>\n", "t:1: topic without a <num>"},
		{"no title", "<top>\n<num> 1\n</top>\n", "t:1: topic 1 has neither <title> nor <desc>"},
		{"unclosed", "<top>\n<num> 1\n<title> x\n", "t:1: <top> without </top>"},
		{"nested", "<top>\n<num> 1\n<top>\n", "t:3: <top> inside the <top> of line 1"},
		{"stray close", "</top>\n", "t:1: </top> without <top>"},
		{"outside", "<num> 1\n", "t:1: <num> outside <top>"},
		{"duplicate", "<top><num>1<title>a</top>\n<top><num>1<title>b</top>", `t:2: duplicate topic number "1" (first at line 1)`},
		{"second title", "<top><num>1<title>a<title>b</top>", "t:1: second <title>"},
		{"no topics", "<!-- nothing here -->", "t: no <top> topics"},
		{"unknown outside", "<html></html>", "t:1: <html> outside <top>"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ReadTopics(strings.NewReader(tt.in), "t")
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("got %v, want prefix %q", err, tt.want)
			}
		})
	}
}

func FuzzReadTopics(f *testing.F) {
	for _, p := range []string{"testdata/topics.sgml", "testdata/topics.tsv"} {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
	}
	f.Add("<top><num>1<title>a</top>")
	f.Fuzz(func(t *testing.T, in string) {
		topics, err := ReadTopics(strings.NewReader(in), "f")
		if err != nil {
			return
		}
		seen := map[string]bool{}
		for _, tp := range topics {
			if tp.ID == "" || seen[tp.ID] {
				t.Fatalf("empty or repeated id %q", tp.ID)
			}
			seen[tp.ID] = true
		}
	})
}

func TestLoadTREC(t *testing.T) {
	c, err := LoadTREC("testdata/topics.sgml", "testdata/topics.qrels")
	if err != nil {
		t.Fatal(err)
	}
	s := c.Stats()
	if s.Queries != 2 || s.JudgedQueries != 1 || s.UnjudgedQueries != 1 || s.Judgments != 3 || s.QrelsUnknownQueries != 1 || c.Corpus != nil {
		t.Errorf("stats %+v", s)
	}
	want := []string{"qrels judge 1 queries absent from the queries file", "1 of 2 queries have no judgments"}
	if !reflect.DeepEqual(c.Warnings, want) {
		t.Errorf("warnings %q", c.Warnings)
	}
	if _, err := LoadTREC("testdata/topics.sgml", "testdata/none"); err == nil {
		t.Error("missing qrels: no error")
	}
}

// FuzzSGMLTags checks the topics file's tag scanner against the regular
// expression it stands for, run by Go's regexp.
func FuzzSGMLTags(f *testing.F) {
	b, err := os.ReadFile("testdata/topics.sgml")
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range []string{string(b), "<top><num>1<title>a</top>", "<<a>", "<a<b>", "</>", "<1a>", "< a>", "<a", "</A x=1>>", "<a>\n<//b>"} {
		f.Add(s)
	}
	tag := regexp.MustCompile(`<(/?)([A-Za-z]+)[^<>]*>`)
	f.Fuzz(func(t *testing.T, in string) {
		var got [][]int
		for _, m := range sgmlTags([]byte(in)) {
			got = append(got, m[:])
		}
		if want := tag.FindAllSubmatchIndex([]byte(in), -1); !reflect.DeepEqual(got, want) {
			t.Fatalf("%q: tags %v, want %v", in, got, want)
		}
	})
}
