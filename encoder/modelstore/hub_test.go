package modelstore

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dreval/dreval/encoder/modelstore/hubtest"
	"github.com/dreval/dreval/modelfiles"
)

const (
	commitA  = "0123456789abcdef0123456789abcdef01234567"
	commitB  = "89abcdef0123456789abcdef0123456789abcdef"
	tinyRepo = "tiny-org/tiny-bert"
	twinRepo = "tiny-org/tiny-ctx"
)

// weights returns n bytes standing in for a weights file (no real
// weights: the installer never looks inside).
func weights(n int, seed byte) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*7) ^ seed
	}
	return b
}

// tinyFiles are a repository in the Hub's layout: what a BERT checkpoint
// holds, with files the install must leave alone.
func tinyFiles(seed byte) []hubtest.File {
	return []hubtest.File{
		{Path: ".gitattributes", Content: []byte("*.safetensors filter=lfs\n")},
		{Path: "README.md", Content: []byte("# tiny\n")},
		{Path: "config.json", Content: []byte(`{"model_type": "bert", "hidden_size": 4}`)},
		{Path: "model.safetensors", Content: weights(5000+int(seed), seed), LFS: true},
		{Path: "pytorch_model.bin", Content: weights(300, seed^1), LFS: true},
		{Path: "tokenizer.json", Content: []byte(`{"model": {"type": "WordPiece"}}`)},
		{Path: "tokenizer_config.json", Content: []byte(`{"do_lower_case": true}`)},
		{Path: "vocab.txt", Content: []byte("[PAD]\n[UNK]\n[CLS]\n[SEP]\n")},
		{Path: "1_Pooling/config.json", Content: []byte(`{"pooling_mode_mean_tokens": true}`)},
		{Path: "onnx/model.onnx", Content: weights(100, seed), LFS: true},
	}
}

func tinyHubModel(repo, revision string) Model {
	return Model{
		Name: "tiny",
		Hub: []HubRepo{{
			Repo: repo, Revision: revision,
			Files: bertFiles(),
		}},
		Card: Card{Towers: 1, Score: "cos"},
	}
}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// wantInstalled checks that dir holds exactly the files named (slash
// paths) with the content of files.
func wantInstalled(t *testing.T, dir string, files []hubtest.File, names ...string) {
	t.Helper()
	var got []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			got = append(got, filepath.ToSlash(rel))
		}
		return nil
	})
	slices.Sort(got)
	names = slices.Sorted(slices.Values(names))
	if !slices.Equal(got, names) {
		t.Errorf("%s holds %v, want %v", dir, got, names)
	}
	for _, f := range files {
		if !slices.Contains(names, f.Path) {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(f.Path)))
		if err != nil || !bytes.Equal(b, f.Content) {
			t.Errorf("%s: %d bytes (%v), want the %d bytes served", f.Path, len(b), err, len(f.Content))
		}
	}
}

var tinyInstalled = []string{"config.json", "model.safetensors", "tokenizer.json", "tokenizer_config.json", "vocab.txt", "1_Pooling/config.json", RecordFile}

func TestHubInstall(t *testing.T) {
	files := tinyFiles(3)
	hub := hubtest.New(t, hubtest.Repo{Repo: tinyRepo, Commit: commitA, Files: files})
	dir := t.TempDir()
	var statuses []FileStatus
	var lastDone, lastTotal int64
	in := &Installer{Dir: dir, Endpoint: hub.URL, Client: hub.Client(),
		FileProgress: func(s FileStatus) { statuses = append(statuses, s) },
		Progress:     func(d, tot int64) { lastDone, lastTotal = d, tot },
	}
	m := tinyHubModel(tinyRepo, commitA)
	got, err := in.Install(testCtx(t), m)
	if err != nil || !got {
		t.Fatalf("Install = %v, %v", got, err)
	}
	wantInstalled(t, in.Path(m), files, tinyInstalled...)
	assertNoLeftovers(t, dir, "tiny")

	// Resolve URLs name the pinned commit; LFS files come by the CDN.
	for _, r := range hub.Log() {
		if strings.Contains(r.Path, "/resolve/") && !strings.Contains(r.Path, "/resolve/"+commitA+"/") {
			t.Errorf("resolve request %s does not name the commit", r.Path)
		}
	}
	if n := hub.Count("/cdn/"); n != 1 {
		t.Errorf("%d CDN requests, want 1 (model.safetensors)", n)
	}
	if n := hub.Count("/api/models/" + tinyRepo + "/revision/" + commitA); n != 1 {
		t.Errorf("%d metadata requests, want 1", n)
	}

	// Progress: each file from 1 to 6, ending with all its bytes.
	last := map[string]FileStatus{}
	for _, s := range statuses {
		if s.Count != 6 || s.Index < 1 || s.Index > 6 {
			t.Fatalf("status %+v: want Index in 1..6 of Count 6", s)
		}
		last[s.Path] = s
	}
	for _, f := range files {
		if s, ok := last[f.Path]; ok && (s.Done != int64(len(f.Content)) || s.Total != int64(len(f.Content))) {
			t.Errorf("%s: progress ended at %d of %d, want %d", f.Path, s.Done, s.Total, len(f.Content))
		}
	}
	if len(last) != 6 || lastDone != lastTotal || lastTotal <= 5000 {
		t.Errorf("progress for %d files, bytes ended at %d of %d", len(last), lastDone, lastTotal)
	}

	// The record.
	rec, err := in.ReadRecord(m)
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.Repos) != 1 || rec.Repos[0].Commit != commitA || len(rec.Files) != 6 {
		t.Errorf("record %+v", rec)
	}
	for _, f := range rec.Files {
		if !strings.HasPrefix(f.URL, hub.URL+"/"+tinyRepo+"/resolve/"+commitA+"/") || len(f.SHA256) != 64 {
			t.Errorf("recorded %+v", f)
		}
	}

	// A second Install checks and fetches nothing.
	before := len(hub.Log())
	got, err = in.Install(testCtx(t), m)
	if err != nil || got || len(hub.Log()) != before {
		t.Errorf("second Install = %v, %v after %d more requests; want false, nil, 0", got, err, len(hub.Log())-before)
	}

	// A damaged file is found and the model reinstalled.
	p := filepath.Join(in.Path(m), "model.safetensors")
	b, _ := os.ReadFile(p)
	b[10] ^= 0xff
	os.WriteFile(p, b, 0o644)
	if err := in.Check(m); err == nil || !strings.Contains(err.Error(), "SHA-256") {
		t.Errorf("Check of a damaged file: %v", err)
	}
	if _, err := in.ReadRecord(m); err != nil {
		t.Errorf("ReadRecord (sizes only) of a same-size damage: %v", err)
	}
	if got, err := in.Install(testCtx(t), m); err != nil || !got || in.Check(m) != nil {
		t.Errorf("reinstall = %v, %v", got, err)
	}
	wantInstalled(t, in.Path(m), files, tinyInstalled...)
	assertNoLeftovers(t, dir, "tiny")
}

func TestHubTwoTowers(t *testing.T) {
	q, d := tinyFiles(1), tinyFiles(2)
	hub := hubtest.New(t,
		hubtest.Repo{Repo: tinyRepo, Commit: commitA, Files: q},
		hubtest.Repo{Repo: twinRepo, Commit: commitB, Files: d})
	dir := t.TempDir()
	in := &Installer{Dir: dir, Endpoint: hub.URL, Client: hub.Client()}
	m := Model{
		Name: "tiny-dpr",
		Hub: []HubRepo{
			{Repo: tinyRepo, Revision: commitA, Dir: "question_encoder", Files: bertFiles()},
			{Repo: twinRepo, Revision: commitB, Dir: "ctx_encoder", Files: bertFiles()},
		},
		Manifest: &Manifest{Query: "question_encoder", Document: "ctx_encoder", Score: "dot"},
	}
	if _, err := in.Install(testCtx(t), m); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tower := range []string{"question_encoder", "ctx_encoder"} {
		for _, n := range tinyInstalled[:len(tinyInstalled)-1] {
			names = append(names, tower+"/"+n)
		}
	}
	var served []hubtest.File
	for _, f := range q {
		served = append(served, hubtest.File{Path: "question_encoder/" + f.Path, Content: f.Content})
	}
	for _, f := range d {
		served = append(served, hubtest.File{Path: "ctx_encoder/" + f.Path, Content: f.Content})
	}
	wantInstalled(t, in.Path(m), served, append(names, ManifestFile, RecordFile)...)
	b, err := os.ReadFile(filepath.Join(in.Path(m), ManifestFile))
	var mf map[string]string
	if err != nil || json.Unmarshal(b, &mf) != nil || mf["query"] != "question_encoder" || mf["document"] != "ctx_encoder" || mf["score"] != "dot" || len(mf) != 3 {
		t.Errorf("%s = %s (%v)", ManifestFile, b, err)
	}
	if err := in.Check(m); err != nil {
		t.Error(err)
	}
	os.WriteFile(filepath.Join(in.Path(m), ManifestFile), []byte(`{"query": "ctx_encoder"}`), 0o644)
	if err := in.Check(m); err == nil || !strings.Contains(err.Error(), ManifestFile) {
		t.Errorf("Check of a changed manifest: %v", err)
	}
}

// TestHubResumesWithinARun: a transfer cut short is resumed at once with
// a Range request for the rest.
func TestHubResumesWithinARun(t *testing.T) {
	files := tinyFiles(4)
	hub := hubtest.New(t, hubtest.Repo{Repo: tinyRepo, Commit: commitA, Files: files})
	hub.Interrupt(tinyRepo, "model.safetensors", 1, 1234)
	in := &Installer{Dir: t.TempDir(), Endpoint: hub.URL, Client: hub.Client()}
	m := tinyHubModel(tinyRepo, commitA)
	if _, err := in.Install(testCtx(t), m); err != nil {
		t.Fatal(err)
	}
	wantInstalled(t, in.Path(m), files, tinyInstalled...)
	var ranges []string
	for _, r := range hub.Log() {
		if strings.HasPrefix(r.Path, "/cdn/") {
			ranges = append(ranges, r.Range)
		}
	}
	if !slices.Equal(ranges, []string{"", "bytes=1234-"}) {
		t.Errorf("CDN requests with ranges %q, want a whole one then bytes=1234-", ranges)
	}
}

// TestHubResumesAcrossRuns: an install whose transfers keep breaking
// fails, keeping the part; the next install asks for the rest only.
func TestHubResumesAcrossRuns(t *testing.T) {
	files := tinyFiles(5)
	hub := hubtest.New(t, hubtest.Repo{Repo: tinyRepo, Commit: commitA, Files: files})
	hub.Interrupt(tinyRepo, "model.safetensors", fetchAttempts, 700)
	dir := t.TempDir()
	in := &Installer{Dir: dir, Endpoint: hub.URL, Client: hub.Client()}
	m := tinyHubModel(tinyRepo, commitA)
	_, err := in.Install(testCtx(t), m)
	if err == nil || !strings.Contains(err.Error(), "/resolve/"+commitA+"/model.safetensors") || !strings.Contains(err.Error(), "interrupted") {
		t.Fatalf("error %v, want one naming the URL and the interruption", err)
	}
	if !in.PartialDownload(m) || in.Check(m) == nil {
		t.Errorf("after the failure: partial %v, check %v", in.PartialDownload(m), in.Check(m))
	}
	// Each of the three tries got 700 bytes and the next asked for the rest.
	var ranges []string
	for _, r := range hub.Log() {
		if strings.HasPrefix(r.Path, "/cdn/") {
			ranges = append(ranges, r.Range)
		}
	}
	if !slices.Equal(ranges, []string{"", "bytes=700-", "bytes=1400-"}) {
		t.Errorf("CDN requests with ranges %q, want none, bytes=700-, bytes=1400-", ranges)
	}
	part := filepath.Join(in.stagingDir(m), "model.safetensors.part")
	st, err := os.Stat(part)
	if err != nil || st.Size() != 2100 {
		t.Fatalf("part file: %v, %v; want 2100 bytes", st, err)
	}
	before := len(hub.Log())
	if _, err := in.Install(testCtx(t), m); err != nil {
		t.Fatal(err)
	}
	var last hubtest.Request
	for _, r := range hub.Log()[before:] {
		if strings.HasPrefix(r.Path, "/cdn/") {
			last = r
		}
	}
	if want := "bytes=" + itoa(st.Size()) + "-"; last.Range != want {
		t.Errorf("the second install asked %q, want %q", last.Range, want)
	}
	wantInstalled(t, in.Path(m), files, tinyInstalled...)
	assertNoLeftovers(t, dir, "tiny")
}

func itoa(n int64) string { b, _ := json.Marshal(n); return string(b) }

// TestHubServerIgnoringRange: a part is kept, but the server answers the
// whole file; the install starts the file over and gets it right.
func TestHubServerIgnoringRange(t *testing.T) {
	files := tinyFiles(6)
	hub := hubtest.New(t, hubtest.Repo{Repo: tinyRepo, Commit: commitA, Files: files})
	hub.Interrupt(tinyRepo, "model.safetensors", fetchAttempts, 900)
	in := &Installer{Dir: t.TempDir(), Endpoint: hub.URL, Client: hub.Client()}
	m := tinyHubModel(tinyRepo, commitA)
	if _, err := in.Install(testCtx(t), m); err == nil {
		t.Fatal("no error")
	}
	hub.IgnoreRange(tinyRepo, "model.safetensors")
	if _, err := in.Install(testCtx(t), m); err != nil {
		t.Fatal(err)
	}
	wantInstalled(t, in.Path(m), files, tinyInstalled...)
}

// TestHubStalePart: a part that is no prefix of the file (a leftover of
// another revision) fails the hash after resuming; the install fetches the
// file once more from the start.
func TestHubStalePart(t *testing.T) {
	files := tinyFiles(7)
	hub := hubtest.New(t, hubtest.Repo{Repo: tinyRepo, Commit: commitA, Files: files})
	in := &Installer{Dir: t.TempDir(), Endpoint: hub.URL, Client: hub.Client()}
	m := tinyHubModel(tinyRepo, commitA)
	os.MkdirAll(in.stagingDir(m), 0o755)
	os.WriteFile(filepath.Join(in.stagingDir(m), "model.safetensors.part"), []byte("stale bytes of something else"), 0o644)
	if _, err := in.Install(testCtx(t), m); err != nil {
		t.Fatal(err)
	}
	wantInstalled(t, in.Path(m), files, tinyInstalled...)
	if n := hub.Count("/cdn/"); n != 2 {
		t.Errorf("%d CDN requests, want 2 (the resumed one, then the whole file)", n)
	}
}

func TestHubFailures(t *testing.T) {
	for _, c := range []struct {
		name   string
		setup  func(h *hubtest.Server)
		files  func([]hubtest.File) []hubtest.File
		model  func() Model
		want   []string
		noGets bool // fails on the metadata alone: nothing downloaded, nothing written
		// keepsPart: the transfer kept ending short, and what arrived is
		// kept for the next attempt to resume.
		keepsPart bool
	}{
		{
			name:  "wrong sha256",
			setup: func(h *hubtest.Server) { h.WrongSHA256(tinyRepo, "model.safetensors") },
			want:  []string{"/resolve/" + commitA + "/model.safetensors", "(model.safetensors)", "SHA-256 ", "expected ", "the Hub's LFS sha256"},
		},
		{
			name:  "wrong git blob id",
			setup: func(h *hubtest.Server) { h.WrongBlobID(tinyRepo, "config.json") },
			want:  []string{"/resolve/" + commitA + "/config.json", "git blob id", "expected "},
		},
		{
			name:      "wrong size",
			setup:     func(h *hubtest.Server) { h.WrongSize(tinyRepo, "tokenizer.json", 5) },
			want:      []string{"/resolve/" + commitA + "/tokenizer.json", "of the 37 bytes expected"},
			keepsPart: true,
		},
		{
			name:  "listed file not served",
			setup: func(h *hubtest.Server) { h.NotServed(tinyRepo, "vocab.txt") },
			want:  []string{"/resolve/" + commitA + "/vocab.txt", "404 Not Found"},
		},
		{
			name:   "required file missing",
			files:  func(fs []hubtest.File) []hubtest.File { return without(fs, "config.json") },
			want:   []string{tinyRepo + " at " + commitA + " has no config.json", "it lists"},
			noGets: true,
		},
		{
			name: "no weights",
			files: func(fs []hubtest.File) []hubtest.File {
				return without(without(fs, "model.safetensors"), "pytorch_model.bin")
			},
			want:   []string{tinyRepo + " at " + commitA + " has no weights file (none of model.safetensors, pytorch_model.bin; it lists .gitattributes, 1_Pooling/config.json, README.md, config.json"},
			noGets: true,
		},
		{
			name:   "no tokenizer",
			files:  func(fs []hubtest.File) []hubtest.File { return without(without(fs, "tokenizer.json"), "vocab.txt") },
			want:   []string{"has no tokenizer file (none of tokenizer.json, vocab.txt; it lists "},
			noGets: true,
		},
		{
			name:   "unknown revision",
			model:  func() Model { return tinyHubModel(tinyRepo, commitB) },
			want:   []string{"/api/models/" + tinyRepo + "/revision/" + commitB, "404", "no repository " + tinyRepo + " with a revision"},
			noGets: true,
		},
		{
			name:   "unknown repository",
			model:  func() Model { return tinyHubModel("tiny-org/nothing", "main") },
			want:   []string{"/api/models/tiny-org/nothing/revision/main", "404"},
			noGets: true,
		},
		{
			name: "the Hub answers another commit",
			setup: func(h *hubtest.Server) {
				h.Commits[commitB] = commitA
			},
			model:  func() Model { return tinyHubModel(tinyRepo, commitB) },
			want:   []string{"answered for commit " + commitA + ", not the pinned " + commitB},
			noGets: true,
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			files := tinyFiles(8)
			if c.files != nil {
				files = c.files(files)
			}
			hub := hubtest.New(t, hubtest.Repo{Repo: tinyRepo, Commit: commitA, Files: files})
			if c.setup != nil {
				c.setup(hub)
			}
			m := tinyHubModel(tinyRepo, commitA)
			if c.model != nil {
				m = c.model()
			}
			dir := t.TempDir()
			in := &Installer{Dir: dir, Endpoint: hub.URL, Client: hub.Client()}
			_, err := in.Install(testCtx(t), m)
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			if _, err := os.Stat(in.Path(m)); err == nil {
				t.Error("a model directory was created")
			}
			if c.noGets {
				if n := hub.Count("/resolve/"); n != 0 {
					t.Errorf("%d downloads", n)
				}
				assertNoLeftovers(t, dir)
			} else if !c.keepsPart {
				// No unverified file is kept for the next attempt.
				filepath.WalkDir(in.stagingDir(m), func(p string, d os.DirEntry, err error) error {
					if err == nil && strings.HasSuffix(p, ".part") {
						t.Errorf("%s kept", p)
					}
					return nil
				})
			}
		})
	}
}

// TestHubInstallPyTorch: a revision without model.safetensors installs
// pytorch_model.bin, and one with both installs model.safetensors alone
// (TestHubInstall); the record must hold one of them.
func TestHubInstallPyTorch(t *testing.T) {
	files := without(tinyFiles(5), "model.safetensors")
	hub := hubtest.New(t, hubtest.Repo{Repo: tinyRepo, Commit: commitA, Files: files})
	in := &Installer{Dir: t.TempDir(), Endpoint: hub.URL, Client: hub.Client()}
	m := tinyHubModel(tinyRepo, commitA)
	if got, err := in.Install(testCtx(t), m); err != nil || !got {
		t.Fatalf("Install = %v, %v", got, err)
	}
	installed := slices.Clone(tinyInstalled)
	installed[slices.Index(installed, "model.safetensors")] = "pytorch_model.bin"
	wantInstalled(t, in.Path(m), files, installed...)
	if err := in.Check(m); err != nil {
		t.Errorf("Check: %v", err)
	}
	if got := modelfiles.ToLoad(installed); !slices.Contains(got, "pytorch_model.bin") {
		t.Errorf("modelfiles.ToLoad(%v) = %v: the loaders would not read the weights installed", installed, got)
	}

	// A record without the weights is not an install.
	p := filepath.Join(in.Path(m), RecordFile)
	b, _ := os.ReadFile(p)
	var rec Record
	json.Unmarshal(b, &rec)
	rec.Files = slices.DeleteFunc(rec.Files, func(f InstalledFile) bool { return f.Path == "pytorch_model.bin" })
	b, _ = json.Marshal(rec)
	os.WriteFile(p, b, 0o644)
	if _, err := in.ReadRecord(m); err == nil || !strings.Contains(err.Error(), "lacks weights (any of model.safetensors, pytorch_model.bin)") {
		t.Errorf("ReadRecord without the weights: %v", err)
	}
}

func without(files []hubtest.File, path string) []hubtest.File {
	var out []hubtest.File
	for _, f := range files {
		if f.Path != path {
			out = append(out, f)
		}
	}
	return out
}

// TestHubUnpinned: a branch is resolved to its commit once, and every
// file comes from that commit; the record keeps it.
func TestHubUnpinned(t *testing.T) {
	files := tinyFiles(9)
	hub := hubtest.New(t, hubtest.Repo{Repo: tinyRepo, Commit: commitB, Files: files})
	in := &Installer{Dir: t.TempDir(), Endpoint: hub.URL, Client: hub.Client()}
	m := tinyHubModel(tinyRepo, "main")
	if m.Hub[0].Pinned() {
		t.Error("main is pinned")
	}
	if _, err := in.Install(testCtx(t), m); err != nil {
		t.Fatal(err)
	}
	if n, all := hub.Count("/resolve/"+commitB+"/"), hub.Count("/resolve/"); n != all || n != 6 {
		t.Errorf("%d of %d downloads name the commit, want all 6", n, all)
	}
	rec, err := in.ReadRecord(m)
	if err != nil || rec.Repos[0].Revision != "main" || rec.Repos[0].Commit != commitB {
		t.Errorf("record %+v, %v", rec, err)
	}
	// The catalogue moving to a pinned commit makes it not installed.
	pinned := tinyHubModel(tinyRepo, commitB)
	if err := in.Check(pinned); err == nil || !strings.Contains(err.Error(), "the catalogue wants") {
		t.Errorf("Check against another revision: %v", err)
	}
}

// TestHubCancel: a cancelled install stops and keeps its part for later.
func TestHubCancel(t *testing.T) {
	hub := hubtest.New(t, hubtest.Repo{Repo: tinyRepo, Commit: commitA, Files: tinyFiles(10)})
	ctx, cancel := context.WithCancel(context.Background())
	in := &Installer{Dir: t.TempDir(), Endpoint: hub.URL, Client: hub.Client()}
	in.FileProgress = func(s FileStatus) {
		if s.Path == "model.safetensors" && s.Done > 0 {
			cancel()
		}
	}
	_, err := in.Install(ctx, tinyHubModel(tinyRepo, commitA))
	if err == nil || !strings.Contains(err.Error(), "context canceled") {
		t.Errorf("error %v, want context canceled", err)
	}
}

func TestURLs(t *testing.T) {
	in := &Installer{}
	for _, c := range []struct{ got, want string }{
		{in.ResolveURL("facebook/contriever", commitA, "config.json"), "https://huggingface.co/facebook/contriever/resolve/" + commitA + "/config.json"},
		{in.ResolveURL("o/n", "refs/pr/3", "1_Pooling/config.json"), "https://huggingface.co/o/n/resolve/refs%2Fpr%2F3/1_Pooling/config.json"},
		{in.ResolveURL("o/n", "main", "a b#.json"), "https://huggingface.co/o/n/resolve/main/a%20b%23.json"},
		{in.InfoURL("o/n", "refs/pr/3"), "https://huggingface.co/api/models/o/n/revision/refs%2Fpr%2F3?blobs=true"},
		{(&Installer{Endpoint: "http://127.0.0.1:9/"}).InfoURL("o/n", "main"), "http://127.0.0.1:9/api/models/o/n/revision/main?blobs=true"},
	} {
		if c.got != c.want {
			t.Errorf("got %s, want %s", c.got, c.want)
		}
	}
}

func TestParseContentRange(t *testing.T) {
	for _, c := range []struct {
		in           string
		start, total int64
		ok           bool
	}{
		{"bytes 100-199/200", 100, 200, true},
		{"bytes 0-0/*", 0, -1, true},
		{"bytes */200", 0, 0, false},
		{"bytes 5-9", 0, 0, false},
		{"items 1-2/3", 0, 0, false},
		{"bytes -1-2/3", 0, 0, false},
		{"", 0, 0, false},
	} {
		s, tot, ok := parseContentRange(c.in)
		if ok != c.ok || (ok && (s != c.start || tot != c.total)) {
			t.Errorf("parseContentRange(%q) = %d, %d, %v; want %d, %d, %v", c.in, s, tot, ok, c.start, c.total, c.ok)
		}
	}
}

var sampleInfo = `{"_id":"x","id":"o/n","sha":"` + commitA + `","siblings":[
 {"rfilename":"config.json","blobId":"` + commitB + `","size":10},
 {"rfilename":"model.safetensors","blobId":"` + commitB + `","size":440,"lfs":{"sha256":"` + commitA + commitA[:24] + `","size":440,"pointerSize":134}},
 {"rfilename":"1_Pooling/config.json"}]}`

func TestParseRepoInfo(t *testing.T) {
	ri, err := ParseRepoInfo([]byte(sampleInfo))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]RemoteFile{
		"config.json":           {Path: "config.json", Size: 10, BlobID: commitB},
		"model.safetensors":     {Path: "model.safetensors", Size: 440, SHA256: commitA + commitA[:24]},
		"1_Pooling/config.json": {Path: "1_Pooling/config.json", Size: -1},
	}
	if ri.Commit != commitA || len(ri.Files) != len(want) {
		t.Fatalf("%+v", ri)
	}
	for p, w := range want {
		if ri.Files[p] != w {
			t.Errorf("%s: %+v, want %+v", p, ri.Files[p], w)
		}
	}
	for _, c := range []struct{ in, want string }{
		{`[]`, "not the Hub's repository metadata"},
		{`{"sha":"main","siblings":[]}`, "not 40 lowercase hex"},
		{`{"sha":"` + commitA + `"}`, "lists no files"},
		{`{"sha":"` + commitA + `","siblings":[{"rfilename":"../x"}]}`, "not a path inside"},
		{`{"sha":"` + commitA + `","siblings":[{"rfilename":"/etc/x"}]}`, "not a path inside"},
		{`{"sha":"` + commitA + `","siblings":[{"rfilename":""}]}`, "not a path inside"},
		{`{"sha":"` + commitA + `","siblings":[{"rfilename":"a"},{"rfilename":"a"}]}`, "listed twice"},
		{`{"sha":"` + commitA + `","siblings":[{"rfilename":"a","size":-2}]}`, "negative size"},
		{`{"sha":"` + commitA + `","siblings":[{"rfilename":"a","size":-1}]}`, "negative size"},
		{`{"sha":"` + commitA + `","siblings":[{"rfilename":"a","lfs":{"sha256":"abc","size":1}}]}`, "not 64 lowercase hex"},
		{`{"sha":"` + commitA + `","siblings":[{"rfilename":"a","lfs":{"sha256":"` + commitA + commitA[:24] + `","size":-5}}]}`, "negative size"},
		{`{"sha":"` + commitA + `","siblings":[{"rfilename":"a","blobId":"xyz"}]}`, "blobId"},
	} {
		if _, err := ParseRepoInfo([]byte(c.in)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ParseRepoInfo(%s): %v, want an error with %q", c.in, err, c.want)
		}
	}
}

// FuzzParseRepoInfo: any input gives an error or metadata an install can
// rely on (a commit, paths inside the repository, sizes and hashes of the
// right form), and that metadata, written back, reads the same.
func FuzzParseRepoInfo(f *testing.F) {
	f.Add([]byte(sampleInfo))
	f.Add([]byte(`{"sha":"` + commitA + `","siblings":[]}`))
	f.Add([]byte(`{"sha":"` + commitA + `","siblings":[{"rfilename":"a/b","size":0,"lfs":null}]}`))
	f.Add([]byte(`{"sha":null,"siblings":null}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		ri, err := ParseRepoInfo(data)
		if err != nil {
			return
		}
		if !isCommit(ri.Commit) {
			t.Fatalf("commit %q", ri.Commit)
		}
		type lfs struct {
			SHA256 string `json:"sha256"`
			Size   *int64 `json:"size,omitempty"`
		}
		type sib struct {
			RFilename string `json:"rfilename"`
			Size      *int64 `json:"size,omitempty"`
			BlobID    string `json:"blobId,omitempty"`
			LFS       *lfs   `json:"lfs,omitempty"`
		}
		var sibs []sib
		for p, rf := range ri.Files {
			if p != rf.Path || !fs.ValidPath(p) || !filepath.IsLocal(filepath.FromSlash(p)) || rf.Size < -1 ||
				(rf.SHA256 != "" && !isHex(rf.SHA256, 64)) || (rf.BlobID != "" && !isHex(rf.BlobID, 40)) || (rf.SHA256 != "" && rf.BlobID != "") {
				t.Fatalf("file %+v", rf)
			}
			s := sib{RFilename: p, BlobID: rf.BlobID}
			var size *int64
			if rf.Size >= 0 {
				n := rf.Size
				size = &n
			}
			if rf.SHA256 != "" {
				s.LFS = &lfs{SHA256: rf.SHA256, Size: size}
			} else {
				s.Size = size
			}
			sibs = append(sibs, s)
		}
		b, _ := json.Marshal(map[string]any{"sha": ri.Commit, "siblings": append([]sib{}, sibs...)})
		again, err := ParseRepoInfo(b)
		if err != nil || again.Commit != ri.Commit || len(again.Files) != len(ri.Files) {
			t.Fatalf("round trip: %v", err)
		}
		for p, rf := range ri.Files {
			if got := again.Files[p]; got != rf {
				t.Fatalf("round trip of %s: %+v, want %+v", p, got, rf)
			}
		}
	})
}

func TestCatalogue(t *testing.T) {
	names := map[string]bool{}
	for _, m := range Catalogue() {
		if err := m.Validate(); err != nil {
			t.Errorf("%s: %v", m.Name, err)
		}
		if names[m.Name] || !modelfiles.ValidName(m.Name) {
			t.Errorf("name %q repeated or not a model directory name", m.Name)
		}
		names[m.Name] = true
		if m.Description == "" || m.Card.License == "" || m.Card.MaxLength <= 0 || (m.Card.Score != "dot" && m.Card.Score != "cos") || m.Card.Pooling == "" || m.Card.Arch == "" {
			t.Errorf("%s: incomplete card %+v", m.Name, m.Card)
		}
		if !m.IsHub() {
			continue
		}
		if m.Card.Towers != len(m.Hub) || (m.Card.Towers == 2) != (m.Manifest != nil && m.Manifest.Query != m.Manifest.Document) {
			t.Errorf("%s: %d towers, %d repositories, manifest %v", m.Name, m.Card.Towers, len(m.Hub), m.Manifest)
		}
		if m.Manifest != nil && m.Manifest.Score != m.Card.Score {
			t.Errorf("%s: the manifest scores by %s, the card by %s", m.Name, m.Manifest.Score, m.Card.Score)
		}
		queryMax := m.Card.QueryMaxLength
		if queryMax == 0 {
			queryMax = m.Card.MaxLength
		}
		if mf := m.Manifest; mf != nil && ((mf.DocumentMaxLength != 0 && mf.DocumentMaxLength != m.Card.MaxLength) || (mf.QueryMaxLength != 0 && mf.QueryMaxLength != queryMax)) {
			t.Errorf("%s: the manifest's lengths (query %d, document %d) are not the card's (%d, %d)", m.Name, mf.QueryMaxLength, mf.DocumentMaxLength, m.Card.QueryMaxLength, m.Card.MaxLength)
		}
		for _, r := range m.Hub {
			// A revision is a commit, or "main" with a source saying why.
			if !r.Pinned() && (r.Revision != "main" || !strings.Contains(r.Source, "no commit")) {
				t.Errorf("%s: %s at %q (source %q)", m.Name, r.Repo, r.Revision, r.Source)
			}
			if r.Source == "" {
				t.Errorf("%s: %s has no source for its revision", m.Name, r.Repo)
			}
			if r.Pickle != "" && r.Pickle != "pytorch_model.bin" {
				t.Errorf("%s: pickle %q", m.Name, r.Pickle)
			}
			// The weights: model.safetensors, else pytorch_model.bin.
			var weights []string
			for _, f := range r.Files {
				if f.OneOf == "weights" {
					weights = append(weights, f.Path)
				}
			}
			if !slices.Equal(weights, []string{"model.safetensors", "pytorch_model.bin"}) {
				t.Errorf("%s: %s's weights are %v", m.Name, r.Repo, weights)
			}
			for _, f := range r.Files {
				if !modelfiles.Is(f.Path) {
					t.Errorf("%s: %s is not a file the loaders read", m.Name, f.Path)
				}
			}
		}
	}
	for _, n := range []string{"minilm", "bert-base-uncased", "dpr-nq", "contriever", "contriever-msmarco", "simcse-sup", "simcse-unsup", "ance-msmarco"} {
		if !names[n] {
			t.Errorf("the catalogue lacks %s", n)
		}
	}
	m, _ := Lookup("dpr-nq")
	if b := m.manifestBytes(); string(b) != "{\n  \"query\": \"question_encoder\",\n  \"document\": \"ctx_encoder\",\n  \"score\": \"dot\",\n  \"document_max_length\": 256\n}\n" {
		t.Errorf("dpr-nq's manifest: %s", b)
	}
}

// TestCatalogueHubIsACopy: changing a Hub entry got from Catalogue
// changes nothing for the next caller.
func TestCatalogueHubIsACopy(t *testing.T) {
	m, _ := Lookup("dpr-nq")
	m.Hub[0].Files[0].Path = "changed"
	m.Manifest.Score = "cos"
	again, _ := Lookup("dpr-nq")
	if again.Hub[0].Files[0].Path != "config.json" || again.Manifest.Score != "dot" {
		t.Errorf("the catalogue changed: %+v", again.Hub[0].Files[0])
	}
}

func TestValidateHub(t *testing.T) {
	ok := func() Model { return tinyHubModel(tinyRepo, commitA) }
	for _, c := range []struct {
		name   string
		change func(*Model)
		want   string
	}{
		{"hidden name", func(m *Model) { m.Name = ".x" }, "not a plain directory name"},
		{"path name", func(m *Model) { m.Name = "a/b" }, "not a plain directory name"},
		{"repo without owner", func(m *Model) { m.Hub[0].Repo = "bert" }, "not owner/name"},
		{"repo with a path", func(m *Model) { m.Hub[0].Repo = "../x" }, "not owner/name"},
		{"no revision", func(m *Model) { m.Hub[0].Revision = "" }, "not a commit or branch"},
		{"folder outside", func(m *Model) { m.Hub[0].Dir = "../up" }, "not inside the model directory"},
		{"file outside", func(m *Model) { m.Hub[0].Files[2].Path = "../x" }, "not a path inside"},
		{"part file", func(m *Model) { m.Hub[0].Files[2].Path = "x.part" }, "not a path inside"},
		{"file twice", func(m *Model) { m.Hub[0].Files[2].Path = "config.json" }, "installed twice"},
		{"the record's name", func(m *Model) { m.Hub[0].Files[2].Path = RecordFile }, "installed twice"},
		{"optional config", func(m *Model) { m.Hub[0].Files[0].Optional = true }, "must require config.json"},
		{"no weights", func(m *Model) { m.Hub[0].Files = m.Hub[0].Files[:1] }, "must require config.json and weights (safetensors or pytorch_model.bin)"},
		{"weights optional", func(m *Model) {
			m.Hub[0].Files = []HubFile{{Path: "config.json"}, {Path: "model.safetensors", Optional: true}}
		}, "must require config.json and weights"},
		{"weights of a group with a tokenizer", func(m *Model) {
			m.Hub[0].Files = []HubFile{{Path: "config.json"}, {Path: "model.safetensors", OneOf: "w"}, {Path: "vocab.txt", OneOf: "w"}}
		}, "must require config.json and weights"},
		{"one of a group, optional", func(m *Model) { m.Hub[0].Files[1].Optional = true }, `file model.safetensors is in group "weights" of which one is installed, and optional`},
		{"same folder twice", func(m *Model) { m.Hub = append(m.Hub, m.Hub[0]) }, "two repositories install into folder"},
		{"manifest folders", func(m *Model) { m.Manifest = &Manifest{Query: "q", Document: "d", Score: "dot"} }, "not folders of its repositories"},
		{"manifest score", func(m *Model) {
			m.Hub[0].Dir = "q"
			m.Manifest = &Manifest{Query: "q", Document: "q", Score: "l2"}
		}, `score: similarity "l2" is not supported`},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := ok()
			c.change(&m)
			if err := m.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("Validate: %v, want %q", err, c.want)
			}
		})
	}
	if err := ok().Validate(); err != nil {
		t.Errorf("a good model: %v", err)
	}
}
