package answer

import (
	"testing"

	"github.com/dreval/dreval/retrieval"
)

const benchPassage = `Super Bowl 50 was an American football game to determine the champion of the National Football League (NFL) for the 2015 season. The American Football Conference (AFC) champion Denver Broncos defeated the National Football Conference (NFC) champion Carolina Panthers 24–10 to earn their third Super Bowl title. The game was played on February 7, 2016, at Levi's Stadium in the San Francisco Bay Area at Santa Clara, California.`

func BenchmarkTokenForm(b *testing.B) {
	b.SetBytes(int64(len(benchPassage)))
	for b.Loop() {
		tokenForm(benchPassage)
	}
}

func BenchmarkMatchForm(b *testing.B) {
	m, err := NewMatcher("q", []string{"Santa Clara, California", "Levi's Stadium", "gold"}, String)
	if err != nil {
		b.Fatal(err)
	}
	form := tokenForm(benchPassage)
	for b.Loop() {
		m.matchForm(form)
	}
}

// BenchmarkMatchRegex matches CuratedTREC-style answer patterns (none of
// which occurs) against a passage, as Regex mode does for each retrieved
// passage.
func BenchmarkMatchRegex(b *testing.B) {
	m, err := NewMatcher("q", []string{`20\s?,?\s?(32|40)0\s?-?\s?f(ee|oo)t|6,194-meter`, `.*anxi.*|psychoactive|Benzodiazepine`, `C.*2.*H.*4`, `\bSweden\b`}, Regex)
	if err != nil {
		b.Fatal(err)
	}
	text := nfd(benchPassage)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		if _, err := m.matchNFD(text); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkTopKSQuAD scores a BM25 top-100 run of the 10,570 SQuAD dev
// questions, normalising the passages afresh each time.
func BenchmarkTopKSQuAD(b *testing.B) {
	c, qs := loadQA(b, "squad-v1.1-dev", "")
	run := bm25Run(b, c, c.Queries, retrieval.WordAnalyzer, 100)
	b.ResetTimer()
	for b.Loop() {
		p, err := NewPassages(c.Corpus)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := TopK(run, qs, p, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
