package browser

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"unicode"

	"github.com/dreval/dreval/dataset"
	"github.com/dreval/dreval/encoder/safetensors"
	"github.com/dreval/dreval/encoder/static"
	"github.com/dreval/dreval/encoder/tensor"
	"github.com/dreval/dreval/encoder/tokenizer"
	"github.com/dreval/dreval/modelfiles"
)

// The fakes of the browser's ports the tests run the app with: a site
// (Fetcher) serving a tiny static model as "static" and its tokenizer as
// minilm's (which BM25 reads), helper workers that are apps of their own
// reached through the wire (Encode, Decode: what crosses a MessagePort),
// and a server (Server).

var (
	staticOnce  sync.Once
	staticFiles map[string][]byte
)

// staticModel returns the files of a tiny static model: a token table of
// 16 dimensions over the demo collection's 2,000 most frequent words,
// drawn from a fixed seed.
func staticModel(t testing.TB) map[string][]byte {
	t.Helper()
	staticOnce.Do(func() {
		c, err := dataset.Demo("test")
		if err != nil {
			t.Fatal(err)
		}
		count := map[string]int{}
		words := func(s string) {
			for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
				count[w]++
			}
		}
		for _, d := range c.Corpus {
			words(d.Title + " " + d.Text)
		}
		for _, q := range c.Queries {
			words(q.Text)
		}
		var vocab []string
		for w := range count {
			vocab = append(vocab, w)
		}
		sort.Slice(vocab, func(i, j int) bool {
			return count[vocab[i]] > count[vocab[j]] || count[vocab[i]] == count[vocab[j]] && vocab[i] < vocab[j]
		})
		vocab = append([]string{"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"}, vocab[:min(2000, len(vocab))]...)
		tok, err := tokenizer.FromVocab(strings.NewReader(strings.Join(vocab, "\n")), "vocab.txt", tokenizer.DefaultBertSettings())
		if err != nil {
			t.Fatal(err)
		}
		var tj bytes.Buffer
		if err := tok.Save(&tj); err != nil {
			t.Fatal(err)
		}
		r := rand.New(rand.NewPCG(7, 8))
		table := tensor.New(len(vocab), 16)
		for i := range table.Data {
			table.Data[i] = float32(r.NormFloat64())
		}
		dir := t.TempDir()
		if err := static.Save(dir, table, tj.Bytes(), static.Config{Source: "the browser package's tests"}, safetensors.F32); err != nil {
			t.Fatal(err)
		}
		staticFiles = map[string][]byte{}
		for _, f := range []string{"config.json", "tokenizer.json", "model.safetensors"} {
			b, err := os.ReadFile(filepath.Join(dir, f))
			if err != nil {
				t.Fatal(err)
			}
			staticFiles[f] = b
		}
	})
	if staticFiles == nil {
		t.Fatal("the static model could not be made")
	}
	return staticFiles
}

// siteFS returns a site's files: the static model, minilm's tokenizer,
// and models/index.json listing them with the weights' digests.
func siteFS(t testing.TB) fstest.MapFS {
	t.Helper()
	fsys := fstest.MapFS{}
	for f, b := range staticModel(t) {
		fsys["models/static/"+f] = &fstest.MapFile{Data: b}
	}
	fsys["models/minilm/tokenizer.json"] = &fstest.MapFile{Data: staticModel(t)["tokenizer.json"]}
	models, err := fs.Sub(fsys, "models")
	if err != nil {
		t.Fatal(err)
	}
	x, err := modelfiles.IndexFS(models)
	if err != nil {
		t.Fatal(err)
	}
	if err := x.SetDigests(models, nil); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(x)
	if err != nil {
		t.Fatal(err)
	}
	fsys["models/index.json"] = &fstest.MapFile{Data: b}
	return fsys
}

// site is a Fetcher of a site's files: a file it lacks is a 404. It
// records what was asked.
type site struct {
	fsys  fs.FS
	mu    sync.Mutex
	asked []string
}

func (s *site) Fetch(url string, size int64, label string, sum bool) func() ([]byte, string, error) {
	s.mu.Lock()
	s.asked = append(s.asked, url)
	s.mu.Unlock()
	b, err := fs.ReadFile(s.fsys, url)
	return func() ([]byte, string, error) {
		if err != nil {
			return nil, "", fmt.Errorf("%s: 404 Not Found", url)
		}
		if !sum {
			return b, "", nil
		}
		d := sha256.Sum256(b)
		return b, hex.EncodeToString(d[:]), nil
	}
}

func (s *site) wasAsked(url string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, a := range s.asked {
		if a == url {
			return true
		}
	}
	return false
}

// helper is a Peer that is another worker's App, reached as through a
// MessagePort: every request and reply crosses as the tree JavaScript
// would give back (numbers float64), by PortPeer's numbering.
func helper(t testing.TB, a *App) Peer {
	var p *PortPeer
	p = NewPortPeer(func(tree map[string]any) {
		req, err := DecodeRequest(asJS(tree).(map[string]any))
		if err != nil {
			t.Errorf("a helper got a request that does not decode: %v", err)
			return
		}
		go a.Handle(req, func(m Message) {
			reply := Encode(m)
			reply["id"] = tree["id"]
			p.Receive(asJS(reply).(map[string]any))
		})
	})
	return p
}

// newApp returns an app on the test site with n helpers (apps on the same
// site), and the site.
func newApp(t testing.TB, n int) (*App, *site) {
	t.Helper()
	s := &site{fsys: siteFS(t)}
	var peers []Peer
	for range n {
		peers = append(peers, helper(t, New(Ports{Files: s})))
	}
	return New(Ports{Files: s, Peers: func() []Peer { return peers }}), s
}

// ask has a answer req, returning its Progress messages and its reply.
func ask(a *App, req Message) (progress []*Progress, reply Message) {
	a.Handle(req, func(m Message) {
		if p, ok := m.(*Progress); ok {
			progress = append(progress, p)
			return
		}
		if reply != nil {
			panic(fmt.Sprintf("a second reply %T after %T", m, reply))
		}
		reply = m
	})
	return progress, reply
}

// answer returns a's reply to req, of type T, failing t on an
// ErrorReply or a reply of another type.
func answer[T Message](t testing.TB, a *App, req Message) T {
	t.Helper()
	_, r := ask(a, req)
	out, ok := r.(T)
	if !ok {
		t.Fatalf("%s: reply %#v", req.MessageType(), r)
	}
	return out
}

// failure returns the message of a's ErrorReply to req, failing t on
// another reply.
func failure(t testing.TB, a *App, req Message) string {
	t.Helper()
	_, r := ask(a, req)
	e, ok := r.(*ErrorReply)
	if !ok {
		t.Fatalf("%s: reply %#v, want an error", req.MessageType(), r)
	}
	return e.Message
}
