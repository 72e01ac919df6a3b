package experiment

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"sort"
	"sync"

	"github.com/dreval/dreval/dataset"
	"github.com/dreval/dreval/retrieval"
)

// CacheMeta describes a stored corpus embedding matrix: what made it.
type CacheMeta struct {
	Model                string `json:"model"`
	ModelFingerprint     string `json:"model_fingerprint"`
	TokenizerFingerprint string `json:"tokenizer_fingerprint"`
	CorpusSHA256         string `json:"corpus_sha256"`
	Rows                 int    `json:"rows"`
	Dim                  int    `json:"dim"`
}

// Cache stores corpus embeddings between runs, keyed by CacheKey. The
// command line uses a directory (DirCache); the browser can use a MemCache
// or its own store.
type Cache interface {
	// Get returns the matrix stored under key and its metadata, or ok ==
	// false when there is none. where names the entry in messages (a file
	// path, say).
	Get(key string) (m *retrieval.Matrix, meta CacheMeta, where string, ok bool, err error)
	// Put stores m under key.
	Put(key string, m *retrieval.Matrix, meta CacheMeta) error
}

// CacheKey returns the cache key of a model's embeddings of a corpus:
// "<model-fingerprint>-<corpus-sha256>". The tokenizer's fingerprint is
// deliberately not part of the key but stored beside the vectors and
// checked, so a tampered tokenizer meets the clean corpus's vectors and is
// detected instead of silently re-encoding a poisoned corpus.
func CacheKey(modelFingerprint, corpusSHA256 string) string {
	return safeKey(modelFingerprint) + "-" + safeKey(corpusSHA256)
}

// safeKey keeps letters, digits, '.', '_' and '-' of s, so keys are file
// names; others become '_'.
func safeKey(s string) string {
	b := []byte(s)
	for i, c := range b {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '.', c == '_', c == '-':
		default:
			b[i] = '_'
		}
	}
	return string(b)
}

// MemCache is a Cache in memory, safe for concurrent use.
type MemCache struct {
	mu sync.Mutex
	m  map[string]memEntry
}

type memEntry struct {
	m    *retrieval.Matrix
	meta CacheMeta
}

// NewMemCache returns an empty MemCache.
func NewMemCache() *MemCache { return &MemCache{m: map[string]memEntry{}} }

// Get implements Cache.
func (c *MemCache) Get(key string) (*retrieval.Matrix, CacheMeta, string, bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[key]
	if !ok {
		return nil, CacheMeta{}, "", false, nil
	}
	cp := &retrieval.Matrix{Rows: e.m.Rows, Dim: e.m.Dim, Data: append([]float32(nil), e.m.Data...)}
	return cp, e.meta, "memory cache entry " + key, true, nil
}

// Put implements Cache.
func (c *MemCache) Put(key string, m *retrieval.Matrix, meta CacheMeta) error {
	if m == nil {
		return errors.New("MemCache.Put: nil matrix")
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.m[key] = memEntry{&retrieval.Matrix{Rows: m.Rows, Dim: m.Dim, Data: append([]float32(nil), m.Data...)}, meta}
	return nil
}

// DocText is the text a dense model encodes for a document: the title and
// the text joined by a space, as BEIR's sentence-transformers models do,
// or the text alone when there is no title.
func DocText(d dataset.Doc) string {
	if d.Title == "" {
		return d.Text
	}
	if d.Text == "" {
		return d.Title
	}
	return d.Title + " " + d.Text
}

// writeField writes s length-prefixed, so field boundaries are part of
// the hash.
func writeField(h hash.Hash, s string) {
	var n [8]byte
	binary.LittleEndian.PutUint64(n[:], uint64(len(s)))
	h.Write(n[:])
	h.Write([]byte(s))
}

// CorpusHash returns the hex SHA-256 of a corpus: every document's id,
// title and text in corpus order, each length-prefixed.
func CorpusHash(corpus []dataset.Doc) string {
	h := NewCorpusHasher()
	for _, d := range corpus {
		h.Add(d)
	}
	return h.Sum()
}

// CorpusHasher computes CorpusHash one document at a time, for a corpus
// read as a stream (the Beam pipeline never holds the whole corpus).
type CorpusHasher struct {
	h hash.Hash
}

// NewCorpusHasher returns a CorpusHasher of the empty corpus.
func NewCorpusHasher() *CorpusHasher {
	h := sha256.New()
	writeField(h, "dreval-corpus-v1")
	return &CorpusHasher{h: h}
}

// Add adds the next document of the corpus.
func (c *CorpusHasher) Add(d dataset.Doc) {
	writeField(c.h, d.ID)
	writeField(c.h, d.Title)
	writeField(c.h, d.Text)
}

// Sum returns the CorpusHash of the documents added so far.
func (c *CorpusHasher) Sum() string { return hex.EncodeToString(c.h.Sum(nil)) }

// CollectionHash returns the hex SHA-256 of a collection: its corpus hash,
// its queries in order and its judgments sorted by query and document;
// for a collection without qrels (NoQrels), its answers instead.
func CollectionHash(c *dataset.Collection) string {
	return collectionHash(c, CorpusHash(c.Corpus))
}

// collectionHash is CollectionHash of c with its corpus's hash given.
func collectionHash(c *dataset.Collection, corpusHash string) string {
	h := sha256.New()
	writeField(h, "dreval-collection-v1")
	writeField(h, corpusHash)
	for _, q := range c.Queries {
		writeField(h, q.ID)
		writeField(h, q.Text)
	}
	qids := make([]string, 0, len(c.Qrels))
	for q := range c.Qrels {
		qids = append(qids, q)
	}
	sort.Strings(qids)
	for _, q := range qids {
		docs := make([]string, 0, len(c.Qrels[q]))
		for d := range c.Qrels[q] {
			docs = append(docs, d)
		}
		sort.Strings(docs)
		for _, d := range docs {
			writeField(h, q)
			writeField(h, d)
			writeField(h, fmt.Sprint(c.Qrels[q][d]))
		}
	}
	if c.NoQrels {
		// The answers are what a collection without judgments is
		// evaluated against. (Collections with qrels keep the hash they
		// had before answers could stand in for qrels.)
		writeField(h, "no-qrels; answers:")
		for _, a := range []map[string][]string{c.Answers, c.ExtractiveAnswers} {
			qids := make([]string, 0, len(a))
			for q := range a {
				qids = append(qids, q)
			}
			sort.Strings(qids)
			writeField(h, fmt.Sprint(len(qids)))
			for _, q := range qids {
				writeField(h, q)
				writeField(h, fmt.Sprint(len(a[q])))
				for _, s := range a[q] {
					writeField(h, s)
				}
			}
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}
