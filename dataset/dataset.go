// Package dataset reads retrieval test collections: documents, queries,
// relevance judgments (qrels) and, for question answering sets, answer
// strings.
//
// It understands the BEIR folder layout (corpus.jsonl, queries.jsonl,
// qrels/<split>.tsv, optionally answers.jsonl as in the DuReader, SQuAD and
// HotpotQA conversions; a DPR-style folder has answers.jsonl and no qrels,
// see Collection.NoQrels), TREC qrels and topics (SGML <top> blocks or
// "qid<TAB>text" lines), and DPR question files (tab-separated question and
// Python-style answer list, or JSON lines). It also embeds a small demo
// collection written for dreval, loadable as Load("demo", "test").
// Downloading BEIR archives is package dataset/download's job, kept apart
// so that the browser app, which loads collections, carries no HTTP code.
//
// Qrels are read by metrics.ReadQrels, the parser "dreval metrics" uses
// too, and JSON lines by this package's readers alone: an "_id" is a
// string or an integer (see CorpusReader).
//
// Readers report problems with the file, line and field at fault. Loading
// keeps everything it reads: judgments that name documents absent from the
// corpus and queries without judgments are counted in the collection's
// Stats and Warnings, never dropped, so the caller decides what to do with
// them.
package dataset

import (
	"fmt"
	"sort"

	"github.com/dreval/dreval/metrics"
)

// Doc is one document (passage) of a corpus.
type Doc struct {
	ID    string
	Title string
	Text  string
}

// Query is one query (topic, question) of a collection.
type Query struct {
	ID   string
	Text string
}

// Qrels maps a query id to the judged documents' ids and their relevance
// grades. A grade may be negative or zero (judged not relevant) or graded
// (1, 2, ...); which grades count as relevant is the metric's decision.
// The loaders read qrels files with metrics.ReadQrels, the one qrels
// parser (BEIR with or without its header, TREC, a byte order mark).
type Qrels = metrics.Qrels

// Collection is a loaded test collection.
type Collection struct {
	Name    string
	Corpus  []Doc
	Queries []Query
	Qrels   Qrels
	// NoQrels reports that the collection has no relevance judgments at
	// all, as a DPR-style question set whose folder has answers.jsonl but
	// no qrels/<split>.tsv: Qrels is then nil and only answer-span
	// accuracy can be measured. It differs from qrels that judge no query
	// or no document relevant, which are judgments.
	NoQrels bool
	// Answers holds answer strings per query id for answer-span accuracy
	// (SQuAD, HotpotQA, DuReader human answers); nil when the collection
	// has none.
	Answers map[string][]string
	// ExtractiveAnswers holds DuReader's "fake_answers": spans copied from
	// a paragraph. Nil for collections without them.
	ExtractiveAnswers map[string][]string
	// NotSpans names the queries whose answers are not spans of any
	// passage, such as HotpotQA's yes/no comparison questions, as the
	// collection declares them in yesno_query_ids.txt (one query id per
	// line). Answer-span accuracy counts them as misses instead of letting
	// a stray "yes" in some passage match. Nil when the file is absent.
	NotSpans map[string]bool
	// Warnings describes data that loaded but deserves the caller's
	// attention, such as judgments of documents absent from the corpus.
	Warnings []string
}

// Stats counts what a collection holds.
type Stats struct {
	Docs    int
	Queries int
	// EmptyDocs counts documents with neither title nor text.
	EmptyDocs int
	// JudgedQueries counts queries of Queries with at least one judgment;
	// UnjudgedQueries those with none.
	JudgedQueries   int
	UnjudgedQueries int
	// AnsweredQueries counts queries of Queries with an answers entry
	// (Collection.Answers).
	AnsweredQueries int
	// Judgments is the number of (query, doc) judgments in the qrels.
	Judgments int
	// Grades counts judgments per relevance grade.
	Grades map[int]int
	// QrelsQueries counts query ids in the qrels; QrelsUnknownQueries
	// those absent from Queries.
	QrelsQueries        int
	QrelsUnknownQueries int
	// AbsentDocs counts distinct document ids named by the qrels but
	// absent from the corpus, and AbsentDocJudgments the judgments naming
	// them. Both are zero when the collection has no corpus.
	AbsentDocs         int
	AbsentDocJudgments int
}

// Stats counts the collection's documents, queries and judgments.
func (c *Collection) Stats() Stats {
	s := Stats{Docs: len(c.Corpus), Queries: len(c.Queries), Grades: map[int]int{}, QrelsQueries: len(c.Qrels)}
	queries := make(map[string]bool, len(c.Queries))
	for _, q := range c.Queries {
		queries[q.ID] = true
		if _, ok := c.Answers[q.ID]; ok {
			s.AnsweredQueries++
		}
		if len(c.Qrels[q.ID]) > 0 {
			s.JudgedQueries++
		} else {
			s.UnjudgedQueries++
		}
	}
	var docs map[string]bool
	if len(c.Corpus) > 0 {
		docs = make(map[string]bool, len(c.Corpus))
		for _, d := range c.Corpus {
			docs[d.ID] = true
			if d.Title == "" && d.Text == "" {
				s.EmptyDocs++
			}
		}
	}
	absent := map[string]bool{}
	for qid, judged := range c.Qrels {
		if !queries[qid] {
			s.QrelsUnknownQueries++
		}
		for did, g := range judged {
			s.Judgments++
			s.Grades[g]++
			if docs != nil && !docs[did] {
				s.AbsentDocJudgments++
				absent[did] = true
			}
		}
	}
	s.AbsentDocs = len(absent)
	return s
}

// JudgedQueries returns the queries that have at least one judgment, in
// collection order: none when the collection has no qrels (NoQrels).
func (c *Collection) JudgedQueries() []Query {
	var out []Query
	for _, q := range c.Queries {
		if len(c.Qrels[q.ID]) > 0 {
			out = append(out, q)
		}
	}
	return out
}

// warn recomputes the collection's warnings from its contents.
func (c *Collection) warn() {
	s := c.Stats()
	if s.EmptyDocs > 0 {
		c.Warnings = append(c.Warnings, fmt.Sprintf("%d docs have neither title nor text", s.EmptyDocs))
	}
	if s.AbsentDocs > 0 {
		c.Warnings = append(c.Warnings, fmt.Sprintf("qrels name %d docs absent from the corpus (%d judgments)", s.AbsentDocs, s.AbsentDocJudgments))
	}
	if s.QrelsUnknownQueries > 0 {
		c.Warnings = append(c.Warnings, fmt.Sprintf("qrels judge %d queries absent from the queries file", s.QrelsUnknownQueries))
	}
	if s.UnjudgedQueries > 0 && !c.NoQrels {
		c.Warnings = append(c.Warnings, fmt.Sprintf("%d of %d queries have no judgments", s.UnjudgedQueries, s.Queries))
	}
	if c.NoQrels && s.AnsweredQueries < s.Queries {
		c.Warnings = append(c.Warnings, fmt.Sprintf("%d of %d queries have no answers", s.Queries-s.AnsweredQueries, s.Queries))
	}
	queries := make(map[string]bool, len(c.Queries))
	for _, q := range c.Queries {
		queries[q.ID] = true
	}
	for _, a := range []struct {
		name string
		m    map[string][]string
	}{{"answers", c.Answers}, {"extractive answers", c.ExtractiveAnswers}} {
		var unknown []string
		for qid := range a.m {
			if !queries[qid] {
				unknown = append(unknown, qid)
			}
		}
		if len(unknown) > 0 {
			sort.Strings(unknown)
			c.Warnings = append(c.Warnings, fmt.Sprintf("%s name %d queries absent from the queries file (first %q)", a.name, len(unknown), unknown[0]))
		}
	}
}
