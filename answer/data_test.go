package answer

import (
	"bufio"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dreval/dreval/dataset"
	"github.com/dreval/dreval/internal/sharedtest"
	"github.com/dreval/dreval/metrics"
	"github.com/dreval/dreval/retrieval"
)

// loadQA loads a shared collection and its answers.jsonl (field).
func loadQA(t testing.TB, name, field string) (*dataset.Collection, []Question) {
	t.Helper()
	dir := sharedtest.Path(t, filepath.Join("data", name))
	c, err := dataset.LoadBEIR(dir, "test")
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(dir, "answers.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	qs, err := ReadQuestions(f, f.Name(), field)
	if err != nil {
		t.Fatal(err)
	}
	return c, qs
}

// bm25Run retrieves the top k documents of c (title and text) for the
// given queries with BM25 and analyzer.
func bm25Run(t testing.TB, c *dataset.Collection, queries []dataset.Query, analyzer retrieval.Analyzer, k int) metrics.Run {
	t.Helper()
	idx := retrieval.NewBM25(analyzer)
	ids := make([]string, len(c.Corpus))
	for i, d := range c.Corpus {
		idx.Add(d.Title + " " + d.Text)
		ids[i] = d.ID
	}
	texts := make([]string, len(queries))
	for i, q := range queries {
		texts[i] = q.Text
	}
	hits, err := idx.Search(texts, retrieval.Options{K: k, DocIDs: ids})
	if err != nil {
		t.Fatal(err)
	}
	run := metrics.Run{}
	for i, q := range queries {
		list := metrics.Ranked{}
		for _, h := range hits[i] {
			list = append(list, metrics.ScoredDoc{DocID: ids[h.Doc], Score: float64(h.Score)})
		}
		run[q.ID] = list
	}
	return run
}

// TestSQuADGoldParagraph reproduces the shared data's statement: the gold
// paragraph holds an answer for 10,569 of the 10,570 SQuAD v1.1 dev
// questions; the exception's answer "four" appears only inside "fourth".
func TestSQuADGoldParagraph(t *testing.T) {
	c, qs := loadQA(t, "squad-v1.1-dev", "")
	text := map[string]string{}
	for _, d := range c.Corpus {
		text[d.ID] = d.Text
	}
	if len(qs) != 10570 {
		t.Fatalf("%d questions, want 10570", len(qs))
	}
	var misses []Question
	for _, q := range qs {
		if len(c.Qrels[q.ID]) != 1 {
			t.Fatalf("question %s has %d gold paragraphs, want 1", q.ID, len(c.Qrels[q.ID]))
		}
		for doc := range c.Qrels[q.ID] {
			ok, err := HasAnswer(q.Answers, text[doc], String)
			if err != nil {
				t.Fatal(err)
			}
			if !ok {
				misses = append(misses, q)
				sub, _ := HasAnswer(q.Answers, text[doc], Substring)
				if !sub {
					t.Errorf("question %s: substring mode misses too", q.ID)
				}
				if !strings.Contains(text[doc], "fourth") {
					t.Errorf("question %s: gold paragraph lacks \"fourth\"", q.ID)
				}
			}
		}
	}
	if len(misses) != 1 || !slices.Contains(misses[0].Answers, "four") {
		t.Fatalf("gold paragraph misses %d questions (%v), want 1 with answer \"four\"", len(misses), misses)
	}
	t.Logf("gold paragraph holds an answer for %d of %d questions; miss: %s %q", len(qs)-len(misses), len(qs), misses[0].ID, misses[0].Answers)
}

// TestSQuADBM25 scores a BM25 top-100 run by answer accuracy. BM25 finds
// SQuAD's paragraphs easily (the questions were written from them), so
// accuracy is high; the bounds catch a broken matcher or ordering.
func TestSQuADBM25(t *testing.T) {
	if testing.Short() {
		t.Skip("BM25 over 10,570 questions")
	}
	c, qs := loadQA(t, "squad-v1.1-dev", "")
	run := bm25Run(t, c, c.Queries, retrieval.WordAnalyzer, 100)
	p, err := NewPassages(c.Corpus)
	if err != nil {
		t.Fatal(err)
	}
	res, err := TopK(run, qs, p, Options{CheckCollection: true})
	if err != nil {
		t.Fatal(err)
	}
	sub, err := TopK(run, qs, p, Options{Mode: Substring})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("SQuAD dev BM25 (WordAnalyzer) answer accuracy, string mode: top-1 %.4f top-5 %.4f top-20 %.4f top-100 %.4f; substring: %.4f %.4f %.4f %.4f; no passage: %d",
		res.Accuracy[0], res.Accuracy[1], res.Accuracy[2], res.Accuracy[3], sub.Accuracy[0], sub.Accuracy[1], sub.Accuracy[2], sub.Accuracy[3], len(res.NoPassage))
	acc := res.Accuracy
	if !(acc[0] > 0.3 && acc[0] <= acc[1] && acc[1] <= acc[2] && acc[2] > 0.7 && acc[2] <= acc[3] && acc[3] < 1) {
		t.Errorf("accuracy %v out of the sane range", acc)
	}
	for i := range acc {
		if sub.Accuracy[i] < acc[i] {
			t.Errorf("substring accuracy %v below string accuracy %v", sub.Accuracy, acc)
		}
	}
	if len(res.MissingFromRun) != 0 || res.Questions != 10570 || len(res.NoPassage) != 0 {
		t.Errorf("missing %d questions %d no passage %v", len(res.MissingFromRun), res.Questions, res.NoPassage)
	}
	// Top-k accuracy agrees with the per-question first hits.
	n := 0
	for _, r := range res.FirstHit {
		if r >= 1 && r <= 20 {
			n++
		}
	}
	if n != res.Hits[2] {
		t.Errorf("%d first hits within 20, Hits says %d", n, res.Hits[2])
	}
}

// TestHotpotYesNo checks that the 12 yes/no questions of hotpotqa-dev-100
// are found by IsYesNo, reported as unanswerable and counted as misses in
// the denominator.
func TestHotpotYesNo(t *testing.T) {
	c, qs := loadQA(t, "hotpotqa-dev-100", "")
	f, err := os.Open(sharedtest.Path(t, "data/hotpotqa-dev-100/yesno_query_ids.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var want []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if s := strings.TrimSpace(sc.Text()); s != "" {
			want = append(want, s)
		}
	}
	un := map[string]string{}
	var got []string
	for _, q := range qs {
		if IsYesNo(q.Answers) {
			got = append(got, q.ID)
			un[q.ID] = "yes/no answer"
		}
	}
	if !slices.Equal(got, want) {
		t.Fatalf("yes/no questions %v, want %v", got, want)
	}
	run := bm25Run(t, c, c.Queries, retrieval.WordAnalyzer, 100)
	p, err := NewPassages(c.Corpus)
	if err != nil {
		t.Fatal(err)
	}
	res, err := TopK(run, qs, p, Options{Unanswerable: un, CheckCollection: true})
	if err != nil {
		t.Fatal(err)
	}
	dpr, err := TopK(run, qs, p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("hotpotqa-dev-100 BM25: top-1/5/20/100 %.2f %.2f %.2f %.2f (yes/no as misses), %.2f %.2f %.2f %.2f (yes/no matched as strings); no passage: %v",
		res.Accuracy[0], res.Accuracy[1], res.Accuracy[2], res.Accuracy[3], dpr.Accuracy[0], dpr.Accuracy[1], dpr.Accuracy[2], dpr.Accuracy[3], res.NoPassage)
	if res.Questions != 100 || len(res.Unanswerable) != 12 {
		t.Errorf("questions %d unanswerable %d", res.Questions, len(res.Unanswerable))
	}
	if res.Hits[3] > 88 {
		t.Errorf("%d hits within 100: the 12 yes/no questions cannot be hits", res.Hits[3])
	}
	for _, id := range want {
		if res.FirstHit[id] != 0 {
			t.Errorf("yes/no question %s has a hit", id)
		}
	}
	if dpr.Hits[3] < res.Hits[3] {
		t.Errorf("declaring questions unanswerable raised the hits")
	}
}

// TestCuratedPatterns compiles every CuratedTREC answer pattern.
func TestCuratedPatterns(t *testing.T) {
	f, err := os.Open(sharedtest.Path(t, "data/dpr-questions/topics.dpr.curated.test.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	qs, err := ReadQuestions(f, f.Name(), "")
	if err != nil {
		t.Fatal(err)
	}
	if len(qs) != 694 {
		t.Fatalf("%d questions, want 694", len(qs))
	}
	for _, q := range qs {
		if _, err := NewMatcher(q.ID, q.Answers, Regex); err != nil {
			t.Error(err)
		}
	}
	// The first question's pattern, on text written the ways it allows.
	ok, err := HasAnswer(qs[0].Answers, "Mount McKinley is 20,320 feet high", Regex)
	if err != nil || !ok {
		t.Errorf("%q does not match: %v", qs[0].Answers, err)
	}
}
