// Command gen writes dreval's built-in demo collection (dataset/demo:
// corpus.jsonl, queries.jsonl, qrels/test.tsv in the BEIR layout) from the
// hand-written fact tables of this folder. Run it from package dataset:
//
//	go generate ./dataset/
//
// or as go run ./dataset/demo/gen -out dataset/demo. The output is a pure
// function of the tables, byte for byte; gen's test checks that the
// committed files are what it writes, so edit the tables and regenerate,
// never the files.
//
// # The tables
//
// A topic (topics_*.go) is a small domain (houseplants, tea, city buses)
// with entities (a plant, a tea, a bus line) and aspects (watering, steeping
// time, fares). Every entity has one passage per aspect, the aspect's
// template filled with the entity's facts: the fact sentences are written
// per entity, the rest of the template per aspect, so the passages of one
// aspect read alike across the entities and differ in the fact a query asks
// for, and the passages of one entity share its opening sentence. Those are
// the collection's hard negatives. A few entities carry hand-written
// passages of their own (Extra), which come before their aspects' passages
// (so the paper's example, McDouble versus double cheeseburger, is
// food-01). Templates may also say {a} (the article
// before the name: "a" or "an") and {is} ("are" for a plural name); titles
// start with a capital letter.
//
// A query names its judged passages as "entity/aspect": Ans are judged 2
// (the passage answers the query), Part 1 (partly relevant), Neg 0 (judged
// not relevant). Every passage judged 2 also brings the same aspect of the
// two nearest entities whose passages of it share its template as judged 0
// (near-misses that differ in the one fact asked for), unless the query
// judged them otherwise.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// topic is one domain of the collection.
type topic struct {
	// ID prefixes the topic's document ids: "<ID>-<nn>".
	ID       string
	Entities []entity
	Aspects  []aspect
	Queries  []query
}

// entity is one thing a topic's passages are about.
type entity struct {
	// Key names the entity in query references; Name in titles ({Name}).
	Key, Name string
	// A is the indefinite article before Name ({a}); "" means "an" before
	// a vowel letter and "a" otherwise.
	A string
	// Plural makes {is} "are": Name is plural ("Chicken McNuggets").
	Plural bool
	// About is the entity's opening sentence ({about}).
	About string
	// Facts holds one fact per aspect of the topic, in the topic's order
	// ({fact}): a full sentence or more, or "" for no passage of that
	// aspect.
	Facts []string
	// Extra lists passages of the entity's own, referenced as
	// "entity/<key>".
	Extra []extra
}

// extra is a hand-written passage.
type extra struct {
	Key, Title, Text string
}

// aspect is one kind of fact, with the templates of its passages.
type aspect struct {
	Key string
	// Title is the passage title's template.
	Title string
	// Texts are the text templates; entity i uses Texts[i%len(Texts)].
	Texts []string
}

// query is one query with its judgments.
type query struct {
	Text            string
	Ans, Part, Neg  []string
	NoAutoNeighbour bool // no automatic near-misses
}

// doc is one passage of the corpus.
type doc struct {
	ID    string `json:"_id"`
	Title string `json:"title"`
	Text  string `json:"text"`
}

// Word limits of a passage's text.
const minWords, maxWords = 40, 90

var placeholder = regexp.MustCompile(`\{([A-Za-z]+)\}`)

// fill replaces the placeholders of tmpl: {Name}, {about} and {fact} by
// e's name, opening sentence and fact, {a} by the article before the name
// and {is} by the verb that agrees with it. Any other placeholder is an
// error.
func fill(tmpl string, e entity, fact string) (string, error) {
	var bad []string
	out := placeholder.ReplaceAllStringFunc(tmpl, func(m string) string {
		switch m {
		case "{Name}":
			return e.Name
		case "{about}":
			return e.About
		case "{fact}":
			return fact
		case "{a}":
			return e.article()
		case "{is}":
			if e.Plural {
				return "are"
			}
			return "is"
		}
		bad = append(bad, m)
		return m
	})
	if len(bad) > 0 {
		return "", fmt.Errorf("unknown placeholder %s", strings.Join(bad, ", "))
	}
	return strings.Join(strings.Fields(out), " "), nil
}

// article returns e.A, or "an" before a vowel letter and "a" otherwise.
func (e entity) article() string {
	if e.A != "" {
		return e.A
	}
	if r, _ := utf8.DecodeRuneInString(e.Name); strings.ContainsRune("AEIOUaeiou", r) {
		return "an"
	}
	return "a"
}

// capitalize returns s with its first letter in upper case.
func capitalize(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 {
		return s
	}
	return string(unicode.ToUpper(r)) + s[n:]
}

// judgment is one qrels line.
type judgment struct {
	query, doc string
	grade      int
}

// collection is what build returns.
type collection struct {
	docs    []doc
	queries []doc // ID and Text only
	qrels   []judgment
}

// build turns the topics into the collection, checking every reference,
// placeholder and length.
func build(topics []topic) (*collection, error) {
	c := &collection{}
	ref := map[string]string{} // "topic:entity/aspect" -> doc id
	seenTopic := map[string]bool{}
	seenText := map[string]string{}
	var lengths []string // every passage of the wrong length, reported together
	for _, t := range topics {
		if seenTopic[t.ID] {
			return nil, fmt.Errorf("topic %s defined twice", t.ID)
		}
		seenTopic[t.ID] = true
		n := 0
		add := func(key, title, text string) error {
			n++
			d := doc{ID: fmt.Sprintf("%s-%02d", t.ID, n), Title: title, Text: text}
			if strings.TrimSpace(title) == "" {
				return fmt.Errorf("%s (%s) has no title", d.ID, key)
			}
			if w := len(strings.Fields(text)); w < minWords || w > maxWords {
				lengths = append(lengths, fmt.Sprintf("%s (%s): %d words, want %d..%d: %q", d.ID, key, w, minWords, maxWords, text))
			}
			if prev, dup := seenText[text]; dup {
				return fmt.Errorf("%s (%s) has the text of %s", d.ID, key, prev)
			}
			seenText[text] = d.ID
			if _, dup := ref[t.ID+":"+key]; dup {
				return fmt.Errorf("topic %s: passage %s defined twice", t.ID, key)
			}
			ref[t.ID+":"+key] = d.ID
			c.docs = append(c.docs, d)
			return nil
		}
		for _, a := range t.Aspects {
			if len(a.Texts) == 0 {
				return nil, fmt.Errorf("topic %s: aspect %s has no text template", t.ID, a.Key)
			}
			for _, tmpl := range a.Texts {
				if !strings.Contains(tmpl, "{fact}") {
					return nil, fmt.Errorf("topic %s: a template of aspect %s has no {fact}: %q", t.ID, a.Key, tmpl)
				}
			}
		}
		keys := map[string]bool{}
		for _, e := range t.Entities {
			if keys[e.Key] {
				return nil, fmt.Errorf("topic %s: entity %s defined twice", t.ID, e.Key)
			}
			keys[e.Key] = true
		}
		for i, e := range t.Entities {
			if len(e.Facts) != len(t.Aspects) {
				return nil, fmt.Errorf("topic %s, %s: %d facts for %d aspects", t.ID, e.Key, len(e.Facts), len(t.Aspects))
			}
			for _, x := range e.Extra {
				if err := add(e.Key+"/"+x.Key, x.Title, strings.Join(strings.Fields(x.Text), " ")); err != nil {
					return nil, err
				}
			}
			for j, a := range t.Aspects {
				if e.Facts[j] == "" {
					continue
				}
				title, err := fill(a.Title, e, "")
				if err != nil {
					return nil, fmt.Errorf("topic %s, %s/%s title: %w", t.ID, e.Key, a.Key, err)
				}
				text, err := fill(a.Texts[i%len(a.Texts)], e, e.Facts[j])
				if err != nil {
					return nil, fmt.Errorf("topic %s, %s/%s: %w", t.ID, e.Key, a.Key, err)
				}
				if err := add(e.Key+"/"+a.Key, capitalize(title), text); err != nil {
					return nil, err
				}
			}
		}
	}
	if len(lengths) > 0 {
		return nil, fmt.Errorf("%d passages of the wrong length:\n%s", len(lengths), strings.Join(lengths, "\n"))
	}
	qn := 0
	for _, t := range topics {
		index := map[string]int{}
		for i, e := range t.Entities {
			index[e.Key] = i
		}
		aspects := map[string]int{}
		for j, a := range t.Aspects {
			aspects[a.Key] = j
		}
		for _, q := range t.Queries {
			qn++
			qid := fmt.Sprintf("q%03d", qn)
			if q.Text != strings.TrimSpace(q.Text) || q.Text == "" {
				return nil, fmt.Errorf("topic %s: query %q has surrounding space or is empty", t.ID, q.Text)
			}
			if prev, dup := seenText[q.Text]; dup {
				return nil, fmt.Errorf("query %q repeats %s", q.Text, prev)
			}
			seenText[q.Text] = qid
			c.queries = append(c.queries, doc{ID: qid, Text: q.Text})
			grades := map[string]int{}
			var order []string
			judge := func(r string, g int, explicit bool) error {
				id, ok := ref[t.ID+":"+r]
				if !ok {
					if strings.Contains(r, ":") {
						id, ok = ref[r]
					}
					if !ok {
						return fmt.Errorf("query %q: no passage %s", q.Text, r)
					}
				}
				if old, seen := grades[id]; seen {
					if explicit {
						return fmt.Errorf("query %q: %s judged twice (%d and %d)", q.Text, r, old, g)
					}
					return nil
				}
				grades[id] = g
				order = append(order, id)
				return nil
			}
			if len(q.Ans) == 0 {
				return nil, fmt.Errorf("query %q has no answer", q.Text)
			}
			for _, list := range []struct {
				refs  []string
				grade int
			}{{q.Ans, 2}, {q.Part, 1}, {q.Neg, 0}} {
				for _, r := range list.refs {
					if err := judge(r, list.grade, true); err != nil {
						return nil, err
					}
				}
			}
			if !q.NoAutoNeighbour {
				for _, r := range q.Ans {
					ent, asp, _ := strings.Cut(r, "/")
					i, ok := index[ent]
					if !ok || strings.Contains(r, ":") {
						continue
					}
					a, ok := aspects[asp]
					if !ok {
						continue // an extra passage: no template to share
					}
					for _, j := range sameTemplate(t, i, a) {
						if err := judge(t.Entities[j].Key+"/"+asp, 0, false); err != nil {
							return nil, err
						}
					}
				}
			}
			for _, id := range order {
				c.qrels = append(c.qrels, judgment{qid, id, grades[id]})
			}
		}
	}
	return c, nil
}

// sameTemplate returns the near-misses of entity i's passage of aspect a
// (an index into t.Aspects): the two entities nearest to i in table order
// whose passages of that aspect use the same template, the nearer first
// (the earlier of two at the same distance).
func sameTemplate(t topic, i, a int) []int {
	n := len(t.Aspects[a].Texts)
	var out []int
	for d := 1; d < len(t.Entities) && len(out) < 2; d++ {
		for _, j := range []int{i - d, i + d} {
			if j >= 0 && j < len(t.Entities) && j%n == i%n && t.Entities[j].Facts[a] != "" && len(out) < 2 {
				out = append(out, j)
			}
		}
	}
	return out
}

// write returns the three files of c: corpus.jsonl, queries.jsonl and
// qrels/test.tsv.
func (c *collection) write() (map[string][]byte, error) {
	var corpus, queries, qrels bytes.Buffer
	enc := func(buf *bytes.Buffer, v any) error {
		e := json.NewEncoder(buf)
		e.SetEscapeHTML(false)
		return e.Encode(v)
	}
	for _, d := range c.docs {
		if err := enc(&corpus, d); err != nil {
			return nil, err
		}
	}
	for _, q := range c.queries {
		if err := enc(&queries, struct {
			ID   string `json:"_id"`
			Text string `json:"text"`
		}{q.ID, q.Text}); err != nil {
			return nil, err
		}
	}
	qrels.WriteString("query-id\tcorpus-id\tscore\n")
	for _, j := range c.qrels {
		fmt.Fprintf(&qrels, "%s\t%s\t%d\n", j.query, j.doc, j.grade)
	}
	return map[string][]byte{
		"corpus.jsonl":   corpus.Bytes(),
		"queries.jsonl":  queries.Bytes(),
		"qrels/test.tsv": qrels.Bytes(),
	}, nil
}

// checkText reports text that is not plain printable prose.
func checkText(c *collection) error {
	for _, d := range append(append([]doc(nil), c.docs...), c.queries...) {
		for _, s := range []string{d.Title, d.Text} {
			if !utf8.ValidString(s) {
				return fmt.Errorf("%s: invalid UTF-8", d.ID)
			}
			for _, r := range s {
				if !unicode.IsPrint(r) {
					return fmt.Errorf("%s: unprintable %q in %q", d.ID, r, s)
				}
			}
			if strings.ContainsAny(s, "{}") {
				return fmt.Errorf("%s: brace left in %q", d.ID, s)
			}
		}
	}
	return nil
}

// files builds the collection of every topic and returns its files.
func files() (map[string][]byte, error) {
	c, err := build(allTopics())
	if err != nil {
		return nil, err
	}
	if err := checkText(c); err != nil {
		return nil, err
	}
	return c.write()
}

// allTopics lists the topics in the order of the collection.
func allTopics() []topic {
	return []topic{
		fastFood, skinCare, houseplants, vegetables, teas, coffees,
		buses, trains, museums, bicycles, dogBreeds,
		breads, cheeses, pastas, weather, firstAid,
		phoneTrouble, cameraSettings, sportsRules, taxForms,
		carLights, stains,
	}
}

func main() {
	out := flag.String("out", "demo", "folder to write corpus.jsonl, queries.jsonl and qrels/test.tsv into")
	flag.Parse()
	fs, err := files()
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
	names := make([]string, 0, len(fs))
	for name := range fs {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		p := filepath.Join(*out, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			fmt.Fprintln(os.Stderr, "gen:", err)
			os.Exit(1)
		}
		if err := os.WriteFile(p, fs[name], 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "gen:", err)
			os.Exit(1)
		}
	}
}
