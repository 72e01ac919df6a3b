package retrieval

import (
	"math"
	"reflect"
	"strings"
	"testing"
)

func TestWordAnalyzer(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"The Cat's 2 HATS!", []string{"the", "cat", "s", "2", "hats"}},
		{"  --  ", nil},
		{"Ünïcödé naïve café", []string{"ünïcödé", "naïve", "café"}},
		{"नमस्ते दुनिया", []string{"नमस्ते", "दुनिया"}}, // combining vowel signs stay in the word
		{"e-mail: x@y.org", []string{"e", "mail", "x", "y", "org"}},
	} {
		if got := WordAnalyzer(tc.in); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("WordAnalyzer(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestBigramAnalyzer(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"北京大学", []string{"北京", "京大", "大学"}},
		{"我爱BeiJing天安门。好", []string{"我爱", "beijing", "天安", "安门", "好"}},
		{"ＧＰＵ２０２４年", []string{"gpu2024", "年"}},
		{"東京タワー", []string{"東京", "京タ", "タワ", "ワー"}},
		{"", nil},
	} {
		if got := BigramAnalyzer(tc.in); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("BigramAnalyzer(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// tinyBM25 indexes three documents: lengths 3, 6 and 2, so N = 3 and
// avgdl = 11/3. With k1 = 0.9 and b = 0.4 the length norms
// k1·(1 − b + b·|d|/avgdl) are 0.9·(0.6 + 0.4·9/11) = 9.18/11 for d0 and
// 0.9·(0.6 + 0.4·18/11) = 12.42/11 for d1.
func tinyBM25() *BM25 {
	x := NewBM25(WordAnalyzer)
	for _, d := range []string{"the cat sat", "The dog sat on the cat", "dogs bark"} {
		x.Add(d)
	}
	return x
}

func TestBM25HandComputed(t *testing.T) {
	x := tinyBM25()
	idfCat := math.Log(1 + (3-2+0.5)/(2+0.5)) // = ln 1.6; "the" has df 2 too
	idfDog := math.Log(1 + (3-1+0.5)/(1+0.5)) // = ln(8/3)
	for _, tc := range []struct {
		query string
		doc   int
		want  float64
	}{
		// "cat": tf 1 in d0 and d1: idf · 1/(1 + norm).
		{"cat", 0, idfCat * 11 / 20.18},
		{"cat", 1, idfCat * 11 / 23.42},
		{"cat", 2, 0},
		// "the dog the": "the" counts twice; tf(the, d1) = 2.
		{"the dog the", 1, 2*idfCat*2/(2+12.42/11) + idfDog*11/23.42},
		{"the dog the", 0, 2 * idfCat * 11 / 20.18},
		{"bark bark", 2, 2 * idfDog * 1 / (1 + 0.9*(0.6+0.4*6/11))},
		{"unknown", 0, 0},
	} {
		if got := x.Score(tc.query, tc.doc); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("Score(%q, d%d) = %.15g, want %.15g", tc.query, tc.doc, got, tc.want)
		}
	}
	// Numbers a reader can check with a calculator.
	if got := x.Score("cat", 0); math.Abs(got-0.256196230015) > 1e-12 {
		t.Errorf("Score(cat, d0) = %.12f, want 0.256196230015", got)
	}
	hits, err := x.Search([]string{"the dog the", "cat", "zebra"}, Options{K: 10})
	if err != nil {
		t.Fatal(err)
	}
	want := [][]Hit{
		{{1, float32(2*idfCat*2/(2+12.42/11) + idfDog*11/23.42)}, {0, float32(2 * idfCat * 11 / 20.18)}},
		{{0, float32(idfCat * 11 / 20.18)}, {1, float32(idfCat * 11 / 23.42)}},
		{},
	}
	if !reflect.DeepEqual(hits, want) {
		t.Errorf("Search = %v, want %v", hits, want)
	}
}

func TestBM25TiesAndK(t *testing.T) {
	x := NewBM25(WordAnalyzer)
	for i := 0; i < 12; i++ {
		x.Add("same text")
	}
	hits, err := x.Search([]string{"text"}, Options{K: 3, Threads: 2})
	if err != nil {
		t.Fatal(err)
	}
	var docs []int
	for _, h := range hits[0] {
		docs = append(docs, h.Doc)
	}
	if want := []int{9, 8, 7}; !reflect.DeepEqual(docs, want) {
		t.Errorf("ties by row-number id: got %v, want %v", docs, want)
	}
	if _, err := NewBM25(WordAnalyzer).Search([]string{"x"}, Options{K: 1}); err == nil || !strings.Contains(err.Error(), "empty BM25 index") {
		t.Errorf("empty index: %v", err)
	}
	if _, err := x.Search([]string{"x"}, Options{K: 0}); err == nil {
		t.Error("k = 0 accepted")
	}
}

// TestBM25Chinese searches Chinese text with character bigrams.
func TestBM25Chinese(t *testing.T) {
	x := NewBM25(BigramAnalyzer)
	for _, d := range []string{"北京大学是一所大学", "上海的天气很好", "我在北京工作"} {
		x.Add(d)
	}
	hits, err := x.Search([]string{"北京的大学"}, Options{K: 3})
	if err != nil {
		t.Fatal(err)
	}
	// Query bigrams 北京 京的 的大 大学: document 0 has 北京 and 大学 (twice),
	// document 2 has 北京, document 1 none.
	if len(hits[0]) != 2 || hits[0][0].Doc != 0 || hits[0][1].Doc != 2 {
		t.Errorf("got %v, want documents 0 and 2", hits[0])
	}
}

// FuzzAnalyzers checks that both analysers accept any text and return
// non-empty terms that are already lower-cased.
func FuzzAnalyzers(f *testing.F) {
	for _, s := range []string{"The Cat's 2 HATS!", "北京大学ＧＰＵ", "नमस्ते", "\xff\xfe bad utf8", "東京タワー"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for name, a := range map[string]Analyzer{"word": WordAnalyzer, "bigram": BigramAnalyzer} {
			for _, term := range a(s) {
				if term == "" {
					t.Fatalf("%s analyser returned an empty term for %q", name, s)
				}
				if strings.ToLower(term) != term {
					t.Fatalf("%s analyser returned %q, not lower-cased, for %q", name, term, s)
				}
			}
		}
	})
}
