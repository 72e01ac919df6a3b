package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// TestCommittedFilesAreGenerated checks that the files in dataset/demo,
// which the dreval binary embeds, are byte for byte what the tables
// produce, so they cannot drift from the tables.
func TestCommittedFilesAreGenerated(t *testing.T) {
	want, err := files()
	if err != nil {
		t.Fatal(err)
	}
	names := make([]string, 0, len(want))
	for name := range want {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		got, err := os.ReadFile(filepath.Join("..", filepath.FromSlash(name)))
		if err != nil {
			t.Errorf("%v (run go generate ./dataset/)", err)
			continue
		}
		if bytes.Equal(got, want[name]) {
			continue
		}
		gl, wl := strings.Split(string(got), "\n"), strings.Split(string(want[name]), "\n")
		for i := 0; i < max(len(gl), len(wl)); i++ {
			var g, w string
			if i < len(gl) {
				g = gl[i]
			}
			if i < len(wl) {
				w = wl[i]
			}
			if g != w {
				t.Errorf("dataset/demo/%s differs from the tables at line %d (run go generate ./dataset/):\ncommitted: %s\ngenerated: %s", name, i+1, g, w)
				break
			}
		}
	}
	again, err := files()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range names {
		if !bytes.Equal(again[name], want[name]) {
			t.Errorf("%s differs between two runs of the generator", name)
		}
	}
}

// parsed is the collection read back from the generated files, as a
// loader sees it.
type parsed struct {
	docs    map[string]doc
	docIDs  []string
	queries map[string]string
	qids    []string
	qrels   map[string]map[string]int
}

func parse(t *testing.T, fs map[string][]byte) *parsed {
	t.Helper()
	p := &parsed{docs: map[string]doc{}, queries: map[string]string{}, qrels: map[string]map[string]int{}}
	for i, line := range strings.Split(strings.TrimSuffix(string(fs["corpus.jsonl"]), "\n"), "\n") {
		var d doc
		if err := json.Unmarshal([]byte(line), &d); err != nil {
			t.Fatalf("corpus line %d: %v", i+1, err)
		}
		if _, dup := p.docs[d.ID]; dup {
			t.Errorf("document id %s repeated", d.ID)
		}
		p.docs[d.ID] = d
		p.docIDs = append(p.docIDs, d.ID)
	}
	for i, line := range strings.Split(strings.TrimSuffix(string(fs["queries.jsonl"]), "\n"), "\n") {
		var q struct {
			ID   string `json:"_id"`
			Text string `json:"text"`
		}
		if err := json.Unmarshal([]byte(line), &q); err != nil {
			t.Fatalf("queries line %d: %v", i+1, err)
		}
		if _, dup := p.queries[q.ID]; dup {
			t.Errorf("query id %s repeated", q.ID)
		}
		p.queries[q.ID] = q.Text
		p.qids = append(p.qids, q.ID)
	}
	sc := bufio.NewScanner(bytes.NewReader(fs["qrels/test.tsv"]))
	for n := 0; sc.Scan(); n++ {
		if n == 0 {
			if sc.Text() != "query-id\tcorpus-id\tscore" {
				t.Errorf("qrels header %q", sc.Text())
			}
			continue
		}
		f := strings.Split(sc.Text(), "\t")
		if len(f) != 3 {
			t.Fatalf("qrels line %d: %q", n+1, sc.Text())
		}
		g, err := strconv.Atoi(f[2])
		if err != nil {
			t.Fatalf("qrels line %d: %v", n+1, err)
		}
		if p.qrels[f[0]] == nil {
			p.qrels[f[0]] = map[string]int{}
		}
		if _, dup := p.qrels[f[0]][f[1]]; dup {
			t.Errorf("qrels: %s %s judged twice", f[0], f[1])
		}
		p.qrels[f[0]][f[1]] = g
	}
	return p
}

// TestCollectionInvariants checks the generated collection: unique ids,
// every judgment naming an existing query and document, a grade-2 passage
// and a judged near-miss for every query, grades 0..2 only, no empty or
// overlong text, and the size the demo promises.
func TestCollectionInvariants(t *testing.T) {
	fs, err := files()
	if err != nil {
		t.Fatal(err)
	}
	p := parse(t, fs)
	topics := map[string]int{}
	for _, id := range p.docIDs {
		d := p.docs[id]
		topic, num, ok := strings.Cut(id, "-")
		if _, err := strconv.Atoi(num); !ok || err != nil {
			t.Errorf("document id %q is not <topic>-<number>", id)
		}
		topics[topic]++
		if strings.TrimSpace(d.Title) == "" || strings.TrimSpace(d.Text) == "" {
			t.Errorf("%s: empty title or text: %+v", id, d)
		}
		if w := len(strings.Fields(d.Text)); w < minWords || w > maxWords {
			t.Errorf("%s: %d words, want %d..%d", id, w, minWords, maxWords)
		}
	}
	nearMisses := 0
	for _, qid := range p.qids {
		text := p.queries[qid]
		if strings.TrimSpace(text) == "" {
			t.Errorf("query %s is empty", qid)
		}
		js := p.qrels[qid]
		best, zero := -1, false
		for id, g := range js {
			if _, ok := p.docs[id]; !ok {
				t.Errorf("query %s judges %s, which is not in the corpus", qid, id)
			}
			if g < 0 || g > 2 {
				t.Errorf("query %s, %s: grade %d, want 0, 1 or 2", qid, id, g)
			}
			best, zero = max(best, g), zero || g == 0
		}
		if best != 2 {
			t.Errorf("query %s %q has no passage judged 2", qid, text)
		}
		if zero {
			nearMisses++
		}
	}
	for qid := range p.qrels {
		if _, ok := p.queries[qid]; !ok {
			t.Errorf("qrels name query %s, which is not in queries.jsonl", qid)
		}
	}
	if len(p.docs) < 1000 || len(p.queries) < 150 || len(topics) < 20 {
		t.Errorf("%d documents, %d queries, %d topics; want at least 1000, 150 and 20", len(p.docs), len(p.queries), len(topics))
	}
	if nearMisses < len(p.queries)*9/10 {
		t.Errorf("only %d of %d queries have a passage judged 0", nearMisses, len(p.queries))
	}
	for _, q := range []struct{ text, doc string }{
		{"difference between a mcdouble and a double cheeseburger", "McDouble versus double cheeseburger"},
		{"what is theraderm used for", "What Theraderm cream is used for"},
	} {
		found := false
		for qid, text := range p.queries {
			if text != q.text {
				continue
			}
			found = true
			for id, g := range p.qrels[qid] {
				if g == 2 && p.docs[id].Title != q.doc {
					t.Errorf("%q: %s (%q) judged 2, want only %q", q.text, id, p.docs[id].Title, q.doc)
				}
			}
		}
		if !found {
			t.Errorf("no query %q (the paper's example)", q.text)
		}
	}
}

// TestNearMissesShareTheTemplate checks the automatic judgments: a
// passage judged 2 brings as 0 the same aspect of the two nearest entities
// whose passages of it use the same template, so the near-misses read like
// the answer.
func TestNearMissesShareTheTemplate(t *testing.T) {
	tp := testTopic()
	tp.Entities = append(tp.Entities, tp.Entities[0], tp.Entities[0])
	for i, name := range []string{"delta", "epsilon"} {
		e := &tp.Entities[3+i]
		e.Key, e.Name = name[:1], name
		e.About = "About " + name + " " + words(20) + "."
		e.Facts = []string{"Fact x of " + name + " " + words(10) + ".", "Fact y of " + name + " " + words(10) + "."}
	}
	tp.Aspects[0].Texts = append(tp.Aspects[0].Texts, "{fact} {about} Other tail x "+words(10)+".")
	// Entities a b c d e; their passages: a/x t-01, a/y t-02, b/x t-03,
	// b/y t-04, ..., e/x t-09, e/y t-10. Aspect x has two templates (a, c
	// and e use the first, b and d the second), aspect y one.
	tests := []struct {
		ans  string
		want map[string]int
	}{
		{"c/x", map[string]int{"t-05": 2, "t-01": 0, "t-09": 0}},
		{"a/x", map[string]int{"t-01": 2, "t-05": 0, "t-09": 0}},
		{"b/x", map[string]int{"t-03": 2, "t-07": 0}},
		{"b/y", map[string]int{"t-04": 2, "t-02": 0, "t-06": 0}},
		{"e/y", map[string]int{"t-10": 2, "t-08": 0, "t-06": 0}},
	}
	tp.Queries = nil
	for _, tt := range tests {
		tp.Queries = append(tp.Queries, query{Text: "query " + tt.ans, Ans: []string{tt.ans}})
	}
	tp.Queries = append(tp.Queries, query{Text: "no near-misses", Ans: []string{"c/x"}, NoAutoNeighbour: true})
	c, err := build([]topic{tp})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]map[string]int{}
	for _, j := range c.qrels {
		if got[j.query] == nil {
			got[j.query] = map[string]int{}
		}
		got[j.query][j.doc] = j.grade
	}
	for i, tt := range tests {
		qid := fmt.Sprintf("q%03d", i+1)
		if fmt.Sprint(got[qid]) != fmt.Sprint(tt.want) {
			t.Errorf("%s answered by %s: judgments %v, want %v", qid, tt.ans, got[qid], tt.want)
		}
	}
	if qid := fmt.Sprintf("q%03d", len(tests)+1); len(got[qid]) != 1 {
		t.Errorf("NoAutoNeighbour: judgments %v, want the answer only", got[qid])
	}
}

// words returns n filler words.
func words(n int) string {
	return strings.TrimSpace(strings.Repeat("word ", n))
}

// testTopic is a valid topic of three entities and two aspects whose
// passages have 40 words or more.
func testTopic() topic {
	ent := func(key, name string) entity {
		return entity{Key: key, Name: name, About: "About " + name + " " + words(20) + ".",
			Facts: []string{"Fact x of " + name + " " + words(10) + ".", "Fact y of " + name + " " + words(10) + "."}}
	}
	return topic{
		ID: "t",
		Aspects: []aspect{
			{Key: "x", Title: "X of {Name}", Texts: []string{"{about} {fact} Tail x " + words(10) + "."}},
			{Key: "y", Title: "Y of {Name}", Texts: []string{"{about} {fact} Tail y " + words(10) + "."}},
		},
		Entities: []entity{ent("a", "alpha"), ent("b", "beta"), ent("c", "gamma")},
		Queries:  []query{{Text: "x of beta", Ans: []string{"b/x"}}},
	}
}

// TestBuildErrors checks that build refuses broken tables with an error
// that names the problem.
func TestBuildErrors(t *testing.T) {
	tests := []struct {
		name   string
		change func(*topic)
		want   string
	}{
		{"unknown placeholder", func(tp *topic) { tp.Aspects[0].Texts[0] += " {colour}" }, "unknown placeholder {colour}"},
		{"template without fact", func(tp *topic) { tp.Aspects[1].Texts[0] = "{about} " + words(30) }, "has no {fact}"},
		{"too few facts", func(tp *topic) { tp.Entities[1].Facts = tp.Entities[1].Facts[:1] }, "1 facts for 2 aspects"},
		{"entity twice", func(tp *topic) { tp.Entities[2].Key = "a" }, "entity a defined twice"},
		{"too short", func(tp *topic) { tp.Entities[0].About = "Short." }, "words, want 40..90"},
		{"too long", func(tp *topic) { tp.Entities[0].Facts[0] += " " + words(60) }, "words, want 40..90"},
		{"same text twice", func(tp *topic) {
			tp.Entities[2].Facts = tp.Entities[1].Facts
			tp.Entities[2].About = tp.Entities[1].About
		}, "has the text of"},
		{"no answer", func(tp *topic) { tp.Queries[0].Ans = nil }, "has no answer"},
		{"unknown reference", func(tp *topic) { tp.Queries[0].Ans = []string{"b/z"} }, "no passage b/z"},
		{"judged twice", func(tp *topic) { tp.Queries[0].Part = []string{"b/x"} }, "judged twice"},
		{"query with space", func(tp *topic) { tp.Queries[0].Text = " x of beta" }, "surrounding space"},
		{"query twice", func(tp *topic) { tp.Queries = append(tp.Queries, tp.Queries[0]) }, "repeats q001"},
		{"no title", func(tp *topic) { tp.Aspects[0].Title = " " }, "has no title"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tp := testTopic() // fresh slices every time
			tt.change(&tp)
			_, err := build([]topic{tp})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want one containing %q", err, tt.want)
			}
		})
	}
	if _, err := build([]topic{testTopic(), testTopic()}); err == nil || !strings.Contains(err.Error(), "topic t defined twice") {
		t.Errorf("two topics with one id: error %v", err)
	}
	if _, err := build([]topic{testTopic()}); err != nil {
		t.Errorf("the unchanged test topic: %v", err)
	}
}

// TestFill checks the placeholders of a template.
func TestFill(t *testing.T) {
	tests := []struct {
		tmpl string
		e    entity
		want string
	}{
		{"{about} {fact}", entity{About: "A.", Name: "n"}, "A. F."},
		{"What is in {a} {Name}", entity{Name: "espresso"}, "What is in an espresso"},
		{"What is in {a} {Name}", entity{Name: "latte"}, "What is in a latte"},
		{"Gears on {a} {Name}", entity{Name: "ABS unit"}, "Gears on an ABS unit"},
		{"{a} {Name}", entity{Name: "one-way ticket", A: "a"}, "a one-way ticket"},
		{"How the {Name} {is} made", entity{Name: "French fries", Plural: true}, "How the French fries are made"},
		{"How the {Name} {is} made", entity{Name: "McFlurry"}, "How the McFlurry is made"},
		{"  spaced \n {Name}  ", entity{Name: "out"}, "spaced out"},
	}
	for _, tt := range tests {
		got, err := fill(tt.tmpl, tt.e, "F.")
		if err != nil || got != tt.want {
			t.Errorf("fill(%q, %+v) = %q, %v; want %q", tt.tmpl, tt.e, got, err, tt.want)
		}
	}
	if _, err := fill("{Name} {name}", entity{Name: "x"}, ""); err == nil {
		t.Error("fill accepted the unknown placeholder {name}")
	}
}

// TestCapitalize checks the first letter of titles.
func TestCapitalize(t *testing.T) {
	for in, want := range map[string]string{"": "", "pothos: watering": "Pothos: watering", "Line 1": "Line 1", "élan": "Élan", "4868": "4868"} {
		if got := capitalize(in); got != want {
			t.Errorf("capitalize(%q) = %q, want %q", in, got, want)
		}
	}
}
