package tokenizer

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/dreval/dreval/internal/sharedtest"
)

// The golden files name the strings they hold from ../shared/data by
// reference (no shared data is copied into the repository):
// "FILE:LINE:FIELD" with FILE relative to ../shared/data, LINE 1-based and
// FIELD text, question, title+text (cut to 2000 UTF-16 units) or tsv0, with
// the first 16 hex digits of the text's SHA-256
// (scripts/golden-tokenizer/inputs.js writes them).

// sharedRefs resolves references, reading each file once.
type sharedRefs struct {
	mu    sync.Mutex
	data  string
	files map[string][][]byte
}

var refs = sharedRefs{files: map[string][][]byte{}}

// refText returns the text ref names, checking its hash. t is skipped (or
// failed under CI) when ../shared is absent.
func refText(t testing.TB, ref, sum string) string {
	t.Helper()
	refs.mu.Lock()
	defer refs.mu.Unlock()
	if refs.data == "" {
		refs.data = sharedtest.Path(t, "data")
	}
	text, err := refs.resolve(ref)
	if err != nil {
		t.Fatalf("golden reference %s: %v", ref, err)
	}
	h := sha256.Sum256([]byte(text))
	if got := hex.EncodeToString(h[:])[:len(sum)]; got != sum {
		t.Fatalf("golden reference %s: the shared data changed (text hash %s, want %s); regenerate the goldens (make golden-tokenizer)", ref, got, sum)
	}
	return text
}

func (r *sharedRefs) resolve(ref string) (string, error) {
	parts := strings.Split(ref, ":")
	if len(parts) != 3 {
		return "", fmt.Errorf("want FILE:LINE:FIELD")
	}
	line, err := strconv.Atoi(parts[1])
	if err != nil || line < 1 {
		return "", fmt.Errorf("bad line %q", parts[1])
	}
	lines, ok := r.files[parts[0]]
	if !ok {
		b, err := os.ReadFile(filepath.Join(r.data, filepath.FromSlash(parts[0])))
		if err != nil {
			return "", err
		}
		lines = bytes.Split(b, []byte("\n"))
		r.files[parts[0]] = lines
	}
	if line > len(lines) {
		return "", fmt.Errorf("%s has %d lines", parts[0], len(lines))
	}
	l := lines[line-1]
	var o struct {
		Title    string `json:"title"`
		Text     string `json:"text"`
		Question string `json:"question"`
	}
	switch parts[2] {
	case "tsv0":
		f, _, _ := bytes.Cut(l, []byte("\t"))
		return string(f), nil
	case "text", "question", "title+text":
		if err := json.Unmarshal(l, &o); err != nil {
			return "", err
		}
	default:
		return "", fmt.Errorf("unknown field %q", parts[2])
	}
	switch parts[2] {
	case "text":
		return o.Text, nil
	case "question":
		return o.Question, nil
	}
	s := o.Text
	if o.Title != "" {
		s = o.Title + " " + o.Text
	}
	return cutUTF16(s, 2000), nil
}

// cutUTF16 cuts s to at most n UTF-16 code units without splitting a
// surrogate pair, as JavaScript's slice does in inputs.js.
func cutUTF16(s string, n int) string {
	units := 0
	for i, r := range s {
		w := 1
		if r > 0xFFFF {
			w = 2
		}
		if units+w > n {
			return s[:i]
		}
		units += w
	}
	return s
}
