package modelfiles

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"path"
	"slices"
	"sort"
	"strings"
)

// IndexFile is where a server or a static site lists its models:
// models/index.json, an Index.
const IndexFile = "index.json"

// Index lists the models a server or a static site serves under models/,
// and each model's files: what the browser app reads to know which models
// it can use and which files to fetch for one.
type Index struct {
	Models []Model `json:"models"`
	// Preload lists the files the page fetches while the app downloads
	// and compiles, before any worker asks for them: those of the model
	// the page opens on (SetPreload). The page only fetches what it lists.
	Preload []Preload `json:"preload,omitempty"`
	// Demo lists the precomputed demo vectors a static site holds under
	// data/demo/ (DemoDir): each file's name there and size, as "dreval
	// site" writes them (MODEL.json and MODEL.npy, the corpus's;
	// MODEL.queries.json and .npy, the queries'). A server that computes
	// them when asked lists none, and the page then asks for a .npy only
	// once its .json came (a site without them answers one 404, not
	// two); listed, both are asked for at once.
	Demo []File `json:"demo,omitempty"`
}

// DemoDir is where a site serves the precomputed demo vectors.
const DemoDir = "data/demo"

// HasDemo reports whether x lists file (such as "static.npy") under
// DemoDir.
func (x *Index) HasDemo(file string) bool {
	for _, f := range x.Demo {
		if f.Path == file {
			return true
		}
	}
	return false
}

// LessonModel is the model the page opens on: its first Model option,
// whose idshift sweep on the demo runs when the page loads. Sites and
// servers list its files in Index.Preload.
const LessonModel = "static"

// Preload is a file the page fetches with the app: its URL below the
// site root (URL), its size in bytes and how the page's status names its
// download.
type Preload struct {
	URL   string `json:"url"`
	Size  int64  `json:"size"`
	Label string `json:"label"`
}

// SetPreload sets x.Preload to the files of model name that a run of it
// reads (ToLoad: those the browser app's workers fetch for it), with the
// URLs and labels the workers ask for them by, then its demo vectors that
// x lists (Demo); none when x does not serve name.
func (x *Index) SetPreload(name string) {
	x.Preload = nil
	m := x.Model(name)
	if m == nil {
		return
	}
	for _, f := range ToLoad(m.Paths()) {
		x.Preload = append(x.Preload, Preload{URL: URL(name, f), Size: m.Size(f), Label: FileLabel(name, f)})
	}
	for _, f := range x.Demo {
		if slices.Contains(DemoFiles(name), f.Path) {
			x.Preload = append(x.Preload, Preload{URL: DemoDir + "/" + f.Path, Size: f.Size, Label: DemoDir + "/" + f.Path})
		}
	}
}

// DemoFiles returns the names under DemoDir of model name's precomputed
// demo vectors: the corpus's description and matrix, the queries'.
func DemoFiles(name string) []string {
	return []string{name + ".json", name + ".npy", name + ".queries.json", name + ".queries.npy"}
}

// FileLabel is how the page's status names the download of a model's
// file: "static's model.safetensors".
func FileLabel(model, file string) string { return model + "'s " + file }

// Model is one model of an Index.
type Model struct {
	Name  string `json:"name"`
	Files []File `json:"files"`
}

// File is one file of a model: its path in the model directory, its
// size in bytes and, for weights where the index's writer computed it
// (SetDigests), its hex SHA-256. With it the browser app fetches a
// model's weights only when its engine reads them (onnxruntime-web runs
// the model.onnx served beside them), and checks the bytes against it.
//
// Optimized, for an ONNX graph, is the level at which ONNX Runtime
// optimized it offline ("extended": "dreval site" writes the served
// model.onnx so, ort.Optimize): a session opens it with its own graph
// optimizations off, sooner, for the same products.
type File struct {
	Path      string `json:"path"`
	Size      int64  `json:"size"`
	SHA256    string `json:"sha256,omitempty"`
	Optimized string `json:"optimized,omitempty"`
}

// IsWeights reports whether file (a path in a model directory) holds
// weights that another file can stand in for: a safetensors file or
// PyTorch's pytorch_model.bin (the ONNX graph is what an engine runs,
// and is not one).
func IsWeights(file string) bool {
	name := path.Base(file)
	return name == PyTorch || strings.HasSuffix(name, ".safetensors")
}

// SetDigests records in x the hex SHA-256 of every weights file
// (IsWeights) of its models, which lie in fsys as IndexFS lists them
// (MODEL/FILE), as sum gives it: FileSHA256 when sum is nil.
func (x *Index) SetDigests(fsys fs.FS, sum func(fsys fs.FS, name string) (string, error)) error {
	if sum == nil {
		sum = FileSHA256
	}
	for i := range x.Models {
		m := &x.Models[i]
		for j := range m.Files {
			f := &m.Files[j]
			if !IsWeights(f.Path) {
				continue
			}
			d, err := sum(fsys, m.Name+"/"+f.Path)
			if err != nil {
				return fmt.Errorf("model %s: %s: %w", m.Name, f.Path, err)
			}
			f.SHA256 = d
		}
	}
	return nil
}

// FileSHA256 returns the hex SHA-256 of file name in fsys.
func FileSHA256(fsys fs.FS, name string) (string, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// Model returns the model called name, or nil.
func (x *Index) Model(name string) *Model {
	for i := range x.Models {
		if x.Models[i].Name == name {
			return &x.Models[i]
		}
	}
	return nil
}

// Paths returns the paths of m's files.
func (m *Model) Paths() []string {
	out := make([]string, len(m.Files))
	for i, f := range m.Files {
		out[i] = f.Path
	}
	return out
}

// Has reports whether m has file.
func (m *Model) Has(file string) bool { return slices.Contains(m.Paths(), file) }

// SHA256 returns the hex SHA-256 the index records for m's file, or "".
func (m *Model) SHA256(file string) string {
	if f := m.file(file); f != nil {
		return f.SHA256
	}
	return ""
}

// Size returns the size of m's file, or -1 when it has none.
func (m *Model) Size(file string) int64 {
	if f := m.file(file); f != nil {
		return f.Size
	}
	return -1
}

// Optimized returns the level at which ONNX Runtime optimized m's graph
// file offline (File.Optimized), or "".
func (m *Model) Optimized(file string) string {
	if f := m.file(file); f != nil {
		return f.Optimized
	}
	return ""
}

// SetOptimized records that m's graph file was optimized offline by ONNX
// Runtime at level; false when m has no such file.
func (m *Model) SetOptimized(file, level string) bool {
	f := m.file(file)
	if f == nil {
		return false
	}
	f.Optimized = level
	return true
}

func (m *Model) file(path string) *File {
	for i := range m.Files {
		if m.Files[i].Path == path {
			return &m.Files[i]
		}
	}
	return nil
}

// ValidName reports whether name can name a model directory: one path
// element, not hidden, of letters, digits, '.', '-' and '_'.
func ValidName(name string) bool {
	if name == "" || name[0] == '.' || len(name) > 128 {
		return false
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune(".-_", r)) {
			return false
		}
	}
	return true
}

// IndexFS lists the models of fsys, one directory per model at its root
// (names not ValidName are skipped), with their files that IsOf accepts
// (a retriever's towers' too), sorted by name and path. A directory without any such file is not a
// model and is left out.
func IndexFS(fsys fs.FS) (*Index, error) {
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return nil, err
	}
	x := &Index{Models: []Model{}}
	for _, e := range entries {
		if !ValidName(e.Name()) {
			continue
		}
		if fi, err := fs.Stat(fsys, e.Name()); err != nil || !fi.IsDir() { // a link to a model is followed
			continue
		}
		m := Model{Name: e.Name(), Files: []File{}}
		var towers []string
		if b, err := fs.ReadFile(fsys, e.Name()+"/"+ManifestFile); err == nil {
			if towers, err = Towers(b, e.Name()+"/"+ManifestFile); err != nil {
				return nil, err
			}
		}
		err := fs.WalkDir(fsys, e.Name(), func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			rel := strings.TrimPrefix(p, e.Name()+"/")
			if d.IsDir() || !IsOf(rel, towers) {
				return nil
			}
			info, err := fs.Stat(fsys, p) // follows a link
			if err != nil {
				return err
			}
			if !info.Mode().IsRegular() {
				return nil
			}
			m.Files = append(m.Files, File{Path: rel, Size: info.Size()})
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("listing model %s: %w", e.Name(), err)
		}
		if len(m.Files) == 0 {
			continue
		}
		// sort.Slice, not slices.SortFunc: each element type slices sorts
		// adds 19 KB of code to the browser app; sort.Slice shares one.
		sort.Slice(m.Files, func(i, j int) bool { return m.Files[i].Path < m.Files[j].Path })
		x.Models = append(x.Models, m)
	}
	return x, nil
}

// URL returns the path of a model's file below the site root:
// models/NAME/FILE.
func URL(model, file string) string { return path.Join("models", model, file) }
