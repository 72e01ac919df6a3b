package experiment

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/dreval/dreval/dataset"
	"github.com/dreval/dreval/perturb"
	"github.com/dreval/dreval/retrieval"
)

// ShardFormat is the "format" of a shard's metadata file.
const ShardFormat = "dreval-embedding-shard-v1"

// ShardMeta describes one shard of a corpus's embeddings, written beside
// its vectors (<name>.npy, float32, one row per document) and ids
// (<name>.ids, one per row) as <name>.json by "dreval encode" and by the
// Beam pipeline: what made the vectors (the document tower's fingerprint
// and its tokenizer's, as the embedding cache records them) and which rows
// of the whole input they are.
type ShardMeta struct {
	Format string `json:"format"`
	// Model is the model's name; ModelFingerprint the fingerprint of the
	// tower that made the vectors (Tower.Fingerprint, with the encoder
	// overrides of "dreval encode" such as -pool folded in), and
	// TokenizerFingerprint its tokenizer's.
	Model                string `json:"model"`
	ModelFingerprint     string `json:"model_fingerprint"`
	TokenizerFingerprint string `json:"tokenizer_fingerprint"`
	// Side is "document" or "query"; PassageText says the documents were
	// embedded as DPR's "title [SEP] text" (Config.PassageText).
	Side        string `json:"side"`
	PassageText bool   `json:"passage_text"`
	// Shard is this shard's index among Shards; it holds Rows rows of the
	// input's TotalRows, from FirstRow on (ShardRange).
	Shard     int `json:"shard"`
	Shards    int `json:"shards"`
	FirstRow  int `json:"first_row"`
	Rows      int `json:"rows"`
	TotalRows int `json:"total_rows"`
	Dim       int `json:"dim"`
	// TextsSHA256 is CorpusHash of the shard's documents (empty for an
	// input of plain lines).
	TextsSHA256 string `json:"texts_sha256,omitempty"`
	// Embeddings and IDs are the file names of the vectors and the ids,
	// in the metadata file's folder.
	Embeddings string `json:"embeddings"`
	IDs        string `json:"ids"`
}

// ShardRange returns the rows [lo, hi) of shard i of n of an input of
// total rows: contiguous slices in input order whose sizes differ by at
// most one (lo = i*total/n).
func ShardRange(i, n, total int) (lo, hi int) {
	return int(int64(i) * int64(total) / int64(n)), int(int64(i+1) * int64(total) / int64(n))
}

// ParseShard parses "I/N" (0 <= I < N), as "dreval encode -shard" takes it.
func ParseShard(s string) (i, n int, err error) {
	a, b, ok := strings.Cut(s, "/")
	if ok {
		i, err = strconv.Atoi(a)
		if err == nil {
			n, err = strconv.Atoi(b)
		}
	}
	if !ok || err != nil || n < 1 || i < 0 || i >= n {
		return 0, 0, fmt.Errorf("shard %q: want I/N with 0 <= I < N, such as 0/4", s)
	}
	return i, n, nil
}

// ShardName returns the base name of shard i of n's files:
// shard-00002-of-00010.
func ShardName(i, n int) string { return fmt.Sprintf("shard-%05d-of-%05d", i, n) }

// NewShardMeta returns the metadata of shard i of n of model m's side
// ("document" or "query") embeddings of an input of total rows, dim
// values a row, whose files are named base.npy and base.ids.
func NewShardMeta(m *Model, side string, passageText bool, i, n, total int, base string) ShardMeta {
	t := m.Document
	if side == "query" {
		t = m.Query
	}
	lo, hi := ShardRange(i, n, total)
	return ShardMeta{
		Format: ShardFormat, Model: m.Name, ModelFingerprint: t.Fingerprint,
		TokenizerFingerprint: t.Tokenizer.Fingerprint(), Side: side, PassageText: passageText,
		Shard: i, Shards: n, FirstRow: lo, Rows: hi - lo, TotalRows: total, Dim: t.Embedder.Dim(),
		Embeddings: base + ".npy", IDs: base + ".ids",
	}
}

// Marshal returns the metadata as the JSON of its file.
func (s ShardMeta) Marshal() ([]byte, error) {
	b, err := json.MarshalIndent(s, "", "  ")
	return append(b, '\n'), err
}

// ParseShardMeta reads a shard's metadata file; name names it in errors.
// Unknown fields are an error, and so is a shard that contradicts itself.
func ParseShardMeta(b []byte, name string) (ShardMeta, error) {
	var s ShardMeta
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	if err := d.Decode(&s); err != nil {
		return s, fmt.Errorf("%s: %v (want the JSON a shard's .json holds)", name, err)
	}
	if d.More() {
		return s, fmt.Errorf("%s: more than one JSON value", name)
	}
	if s.Format != ShardFormat {
		return s, fmt.Errorf("%s: format %q, want %q", name, s.Format, ShardFormat)
	}
	lo, hi := 0, 0
	if s.Shards >= 1 && s.Shard >= 0 && s.Shard < s.Shards && s.TotalRows >= 0 {
		lo, hi = ShardRange(s.Shard, s.Shards, s.TotalRows)
	}
	switch {
	case s.Shards < 1 || s.Shard < 0 || s.Shard >= s.Shards:
		return s, fmt.Errorf("%s: shard %d of %d: want 0 <= shard < shards", name, s.Shard, s.Shards)
	case s.TotalRows < 0 || s.FirstRow != lo || s.Rows != hi-lo:
		return s, fmt.Errorf("%s: rows %d from %d: shard %d of %d of %d rows holds %d from %d", name, s.Rows, s.FirstRow, s.Shard, s.Shards, s.TotalRows, hi-lo, lo)
	case s.Dim < 1:
		return s, fmt.Errorf("%s: dim %d: want at least 1", name, s.Dim)
	case s.Side != "document" && s.Side != "query":
		return s, fmt.Errorf("%s: side %q: want document or query", name, s.Side)
	case s.ModelFingerprint == "" || s.TokenizerFingerprint == "":
		return s, fmt.Errorf("%s: no model_fingerprint or tokenizer_fingerprint", name)
	}
	for _, f := range []string{s.Embeddings, s.IDs} {
		if f == "" || f != path.Base(f) || f == "." || f == ".." || strings.Contains(f, `\`) {
			return s, fmt.Errorf("%s: file name %q: want a file in the metadata's folder", name, f)
		}
	}
	return s, nil
}

// FormatIDs returns an ids file: one id per line.
func FormatIDs(ids []string) []byte {
	var b bytes.Buffer
	for _, id := range ids {
		b.WriteString(id)
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// CorpusEmbeddings supplies a dense model's corpus vectors made
// beforehand, instead of Run encoding the corpus (Config.Embeddings).
type CorpusEmbeddings interface {
	// CorpusVectors returns m's document vectors of corpus, one row per
	// document in corpus order, made from each document's DocText (or its
	// passage text, passageText), and a description of where they came
	// from for messages. It checks that they were made by m's document
	// tower and tokenizer from these documents.
	CorpusVectors(m *Model, corpus []dataset.Doc, passageText bool) (*retrieval.Matrix, string, error)
}

// ShardDir is the CorpusEmbeddings of a folder of shards ("dreval encode
// -shard I/N" run for every I, or the Beam pipeline's embeddings/): every
// shard's <name>.json, <name>.npy and <name>.ids. The shards of several
// models may share the folder; a model takes those made by its document
// tower.
type ShardDir struct {
	// FS holds the folder Dir (slash-separated); nil means the disk, with
	// Dir an operating-system path.
	FS  fs.FS
	Dir string
}

// shards reads every shard metadata file in the folder.
func (s ShardDir) shards() (fs.FS, string, []ShardMeta, []string, error) {
	fsys, dir := s.FS, s.Dir
	if fsys == nil {
		fsys, dir = osFS(s.Dir)
	}
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil, "", nil, nil, fmt.Errorf("reading the corpus embeddings folder: %w", err)
	}
	var metas []ShardMeta
	var names []string
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		b, err := fs.ReadFile(fsys, path.Join(dir, e.Name()))
		if err != nil {
			return nil, "", nil, nil, err
		}
		name := s.where(e.Name())
		// Other JSON files may share the folder (results.json, a
		// cache's metadata): only those that say they are shards count.
		var head struct {
			Format string `json:"format"`
		}
		if json.Unmarshal(b, &head) != nil || head.Format != ShardFormat {
			continue
		}
		meta, err := ParseShardMeta(b, name)
		if err != nil {
			return nil, "", nil, nil, err
		}
		metas = append(metas, meta)
		names = append(names, name)
	}
	if len(metas) == 0 {
		return nil, "", nil, nil, fmt.Errorf("%s holds no embedding shards (<name>.json of format %q beside <name>.npy and <name>.ids, as \"dreval encode -shard I/N\" writes them)", s.Dir, ShardFormat)
	}
	return fsys, dir, metas, names, nil
}

// where names file in the folder for messages.
func (s ShardDir) where(file string) string {
	if s.FS == nil {
		return joinOS(s.Dir, file)
	}
	return path.Join(s.Dir, file)
}

// CorpusVectors implements CorpusEmbeddings: it takes the folder's shards
// of m's document tower (its fingerprint), checks that their tokenizer is
// m's (the poisoning defence, as for cached vectors), that they are
// shards 0..N-1 of one input of len(corpus) rows, and that each holds
// its slice of the corpus (its ids in order, and the hash of its
// documents), and returns their rows in corpus order.
func (s ShardDir) CorpusVectors(m *Model, corpus []dataset.Doc, passageText bool) (*retrieval.Matrix, string, error) {
	fsys, dir, metas, names, err := s.shards()
	if err != nil {
		return nil, "", err
	}
	fp := m.Document.Fingerprint
	var mine []int
	others := map[string]bool{}
	for i, meta := range metas {
		if meta.ModelFingerprint == fp && meta.Side == "document" {
			mine = append(mine, i)
		} else {
			others[fmt.Sprintf("%s (%s side, %s)", meta.Model, meta.Side, meta.ModelFingerprint)] = true
		}
	}
	if len(mine) == 0 {
		var list []string
		for o := range others {
			list = append(list, o)
		}
		sort.Strings(list)
		return nil, "", fmt.Errorf("%s holds no shards of model %s's document tower (fingerprint %s; it changes with the weights, prompt, maximum length and engine): its shards are of %s; encode them with \"dreval encode -model %s -side document -shard I/N\"",
			s.Dir, m.Name, fp, strings.Join(list, ", "), m.Name)
	}
	sort.Slice(mine, func(a, b int) bool { return metas[mine[a]].Shard < metas[mine[b]].Shard })
	first := metas[mine[0]]
	n := first.Shards
	seen := map[int]string{}
	for _, i := range mine {
		meta := metas[i]
		if prev, dup := seen[meta.Shard]; dup {
			return nil, "", fmt.Errorf("%s and %s are both shard %d of model %s", prev, names[i], meta.Shard, m.Name)
		}
		seen[meta.Shard] = names[i]
		if meta.Shards != n || meta.TotalRows != first.TotalRows {
			return nil, "", fmt.Errorf("%s is shard %d of %d of %d rows, %s of %d of %d rows: shards of two encodings are mixed", names[i], meta.Shard, meta.Shards, meta.TotalRows, names[mine[0]], first.Shards, first.TotalRows)
		}
	}
	var missing []string
	for i := 0; i < n; i++ {
		if _, ok := seen[i]; !ok {
			missing = append(missing, strconv.Itoa(i))
		}
	}
	if len(missing) > 0 {
		return nil, "", fmt.Errorf("%s lacks shards %s of %d of model %s", s.Dir, strings.Join(missing, ", "), n, m.Name)
	}
	if first.TotalRows != len(corpus) {
		return nil, "", fmt.Errorf("%s: the shards of model %s hold %d rows, but the corpus has %d documents", s.Dir, m.Name, first.TotalRows, len(corpus))
	}
	dim := m.Document.Embedder.Dim()
	mat := retrieval.NewMatrix(len(corpus), dim)
	for _, i := range mine {
		meta, name := metas[i], names[i]
		if err := perturb.VerifyFingerprint(meta.TokenizerFingerprint, m.Document.Tokenizer); err != nil {
			return nil, "", fmt.Errorf("%s: %w (re-encode the shards with the current tokenizer)", name, err)
		}
		if m.Towers <= 1 {
			if err := perturb.VerifyFingerprint(meta.TokenizerFingerprint, m.Query.Tokenizer); err != nil {
				return nil, "", fmt.Errorf("%s: %w: the queries would be tokenized otherwise than the documents were", name, err)
			}
		}
		if meta.PassageText != passageText {
			return nil, "", fmt.Errorf("%s: passage_text is %v, but this run embeds documents with passage text %v (-passage-text)", name, meta.PassageText, passageText)
		}
		if meta.Dim != dim {
			return nil, "", fmt.Errorf("%s: vectors of %d values, but model %s makes %d", name, meta.Dim, m.Name, dim)
		}
		docs := corpus[meta.FirstRow : meta.FirstRow+meta.Rows]
		if meta.TextsSHA256 != "" && meta.TextsSHA256 != CorpusHash(docs) {
			return nil, "", fmt.Errorf("%s: the documents of rows %d to %d are not those the shard was encoded from (texts_sha256 differs): re-encode it", name, meta.FirstRow, meta.FirstRow+meta.Rows-1)
		}
		npyName := s.where(meta.Embeddings)
		b, err := fs.ReadFile(fsys, path.Join(dir, meta.Embeddings))
		if err != nil {
			return nil, "", fmt.Errorf("%s: %w", name, err)
		}
		part, err := retrieval.ReadNPY(bytes.NewReader(b), npyName)
		if err != nil {
			return nil, "", err
		}
		if part.Rows != meta.Rows || part.Dim != meta.Dim {
			return nil, "", fmt.Errorf("%s has shape (%d, %d), but %s says (%d, %d)", npyName, part.Rows, part.Dim, name, meta.Rows, meta.Dim)
		}
		idsName := s.where(meta.IDs)
		ib, err := fs.ReadFile(fsys, path.Join(dir, meta.IDs))
		if err != nil {
			return nil, "", fmt.Errorf("%s: %w", name, err)
		}
		ids, err := retrieval.ParseIDs(string(ib), idsName, part.Rows, npyName)
		if err != nil {
			return nil, "", err
		}
		for j, id := range ids {
			if want := docs[j].ID; id != want {
				return nil, "", fmt.Errorf("%s:%d: id %q, but corpus row %d is document %q: the shards must be of this corpus, in its order", idsName, j+1, id, meta.FirstRow+j, want)
			}
		}
		copy(mat.Data[meta.FirstRow*dim:], part.Data)
	}
	where := fmt.Sprintf("%d shard(s) in %s", n, s.Dir)
	if err := checkCorpusMatrix(mat, len(corpus), dim, corpus, where); err != nil {
		return nil, "", err
	}
	return mat, where, nil
}

// osFS returns the disk folder dir as a file system and the folder's name
// in it.
func osFS(dir string) (fs.FS, string) { return os.DirFS(dir), "." }

// joinOS joins an operating-system folder and a file name.
func joinOS(dir, file string) string { return filepath.Join(dir, file) }

// EncodeDocuments returns model m's document vectors of docs, one row per
// document in order, as Run encodes a corpus (CorpusVectors without a
// cache): each document's DocText (or DPR passage text, passageText)
// tokenized by the document tower and embedded in batches sorted by
// length, every vector checked. progress, when not nil, is told how many
// documents are done. The Beam pipeline encodes its corpus shards with it.
func EncodeDocuments(ctx context.Context, m *Model, docs []dataset.Doc, passageText bool, progress func(done, total int)) (*retrieval.Matrix, error) {
	if m.Kind != Dense {
		return nil, fmt.Errorf("model %s is not a dense model: it has no document vectors", m.Name)
	}
	mat, err := encodeCorpus(ctx, m, docs, passageText, progress)
	if err != nil {
		return nil, err
	}
	if err := checkCorpusMatrix(mat, len(docs), m.Document.Embedder.Dim(), docs, "the encoded documents"); err != nil {
		return nil, err
	}
	return mat, nil
}

// EmbedQueries returns model m's query vectors of seqs (query-tower ids,
// as QuerySequences lists them), one row per sequence, embedded as Run
// embeds its queries: in m's batches sorted by length, every vector
// checked.
func EmbedQueries(ctx context.Context, m *Model, seqs [][]int32) (*retrieval.Matrix, error) {
	if m.Kind != Dense {
		return nil, fmt.Errorf("model %s is not a dense model: it has no query vectors", m.Name)
	}
	mat, err := embed(ctx, m.Query.Embedder, m.BatchSize, seqs, nil, func(i int) string { return fmt.Sprintf("query sequence %d", i) })
	if err != nil {
		return nil, fmt.Errorf("encoding queries: %w", err)
	}
	return mat, nil
}

// Scoring returns how a dense model's search scores (retrieval.Cosine, or
// retrieval.Dot for a dot-product model), as Run's search does.
func (m *Model) Scoring() retrieval.Scoring {
	if m.Score == Dot {
		return retrieval.Dot
	}
	return retrieval.Cosine
}
