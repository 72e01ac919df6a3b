package archtest

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/dreval/dreval/internal/golist"
)

const module = "github.com/dreval/dreval"

// policyFile is where the rules live, relative to this package.
var policyFile = filepath.Join("..", "..", "docs", "architecture.md")

// policy is the import policy: for each package (relative to the module),
// the packages it may import.
type policy map[string]map[string]bool

// parsePolicy reads the rules of the first ```deps block of doc. A rule
// is "a, b < c, d < e;": each package of a later list may import every
// package of the earlier lists and whatever those may import. A package
// is declared once, right of a "<"; a package left of one must have been
// declared before ("NONE" is the empty list). '#' starts a comment.
func parsePolicy(doc string) (policy, error) {
	_, rest, ok := strings.Cut(doc, "```deps\n")
	if !ok {
		return nil, errors.New("no ```deps block")
	}
	block, _, ok := strings.Cut(rest, "```")
	if !ok {
		return nil, errors.New("the ```deps block is not closed")
	}
	var lines []string
	for _, l := range strings.Split(block, "\n") {
		l, _, _ = strings.Cut(l, "#")
		lines = append(lines, l)
	}
	p := policy{}
	for i, rule := range strings.Split(strings.Join(lines, " "), ";") {
		if strings.TrimSpace(rule) == "" {
			continue
		}
		lists := strings.Split(rule, "<")
		if len(lists) < 2 {
			return nil, fmt.Errorf("rule %d %q: expected lists separated by <", i+1, strings.TrimSpace(rule))
		}
		below := map[string]bool{}
		for j, list := range lists {
			var names []string
			for _, n := range strings.Split(list, ",") {
				if n = strings.TrimSpace(n); n != "" {
					names = append(names, n)
				}
			}
			if len(names) == 0 {
				return nil, fmt.Errorf("rule %d: an empty list", i+1)
			}
			for _, n := range names {
				switch {
				case n == "NONE":
					if j != 0 || len(names) != 1 {
						return nil, fmt.Errorf("rule %d: NONE stands alone, first", i+1)
					}
					continue
				case j == 0:
					if _, ok := p[n]; !ok {
						return nil, fmt.Errorf("rule %d: %s is used before it is declared", i+1, n)
					}
				default:
					if _, ok := p[n]; ok {
						return nil, fmt.Errorf("rule %d: %s is declared twice", i+1, n)
					}
					allowed := map[string]bool{}
					for b := range below {
						allowed[b] = true
					}
					p[n] = allowed
				}
			}
			for _, n := range names {
				if n == "NONE" {
					continue
				}
				below[n] = true
				for b := range p[n] {
					below[b] = true
				}
			}
		}
	}
	return p, nil
}

// graph returns each dreval package's imports of other dreval packages,
// relative to the module, for the build goos/goarch.
func graph(t *testing.T, goos, goarch string) map[string][]string {
	t.Helper()
	g := map[string][]string{}
	for _, line := range golist.Imports(t, goos, goarch, module+"/...") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		pkg, ok := rel(f[0])
		if !ok {
			continue
		}
		g[pkg] = nil
		for _, imp := range f[1:] {
			if r, ok := rel(imp); ok {
				g[pkg] = append(g[pkg], r)
			}
		}
	}
	return g
}

// rel returns path relative to the module, and false for other modules'.
func rel(path string) (string, bool) {
	r, ok := strings.CutPrefix(path, module+"/")
	return r, ok && path != module
}

func readPolicy(t *testing.T) policy {
	t.Helper()
	b, err := os.ReadFile(policyFile)
	if err != nil {
		t.Fatal(err)
	}
	p, err := parsePolicy(string(b))
	if err != nil {
		t.Fatalf("%s: %v", policyFile, err)
	}
	return p
}

// TestImportGraph checks every import of every dreval package, natively
// and under js/wasm, against the rules of docs/architecture.md, and that
// the rules name every package and no package that is gone.
func TestImportGraph(t *testing.T) {
	p := readPolicy(t)
	seen := map[string]bool{}
	for _, b := range [][2]string{{"linux", "amd64"}, {"js", "wasm"}} {
		for pkg, imports := range graph(t, b[0], b[1]) {
			seen[pkg] = true
			allowed, ok := p[pkg]
			if !ok {
				t.Errorf("%s is not in the rules of %s: add it to its layer", pkg, policyFile)
				continue
			}
			for _, imp := range imports {
				if !allowed[imp] {
					t.Errorf("%s imports %s (GOOS=%s GOARCH=%s), which the rules of %s do not allow", pkg, imp, b[0], b[1], policyFile)
				}
			}
		}
	}
	var gone []string
	for pkg := range p {
		if !seen[pkg] {
			gone = append(gone, pkg)
		}
	}
	sort.Strings(gone)
	for _, pkg := range gone {
		t.Errorf("%s names %s, which is not a package of the module", policyFile, pkg)
	}
}

// neural are the packages that run or read a transformer: the pure-Go
// transformer, the weight formats, ONNX and the backends.
var neural = []string{
	"encoder/bert", "encoder/transformer", "encoder/safetensors", "encoder/torchckpt",
	"encoder/onnx", "encoder/ort", "encoder/ortweb", "encoder/quantize", "encoder/static", "encoder/engine",
}

// TestLeanPackages states the promises the layering exists for: the
// Cloudflare Worker and the server's perturbation view, and the package
// that declares the embedding interface, depend on no neural package.
func TestLeanPackages(t *testing.T) {
	for _, c := range []struct {
		pkg, goos, goarch string
	}{
		{"cloudflare", "js", "wasm"},
		{"serve", "linux", "amd64"},
		{"encoder", "linux", "amd64"},
		{"encoder", "js", "wasm"},
		{"modelfiles", "js", "wasm"},
	} {
		for _, dep := range golist.Deps(t, c.goos, c.goarch, module+"/"+c.pkg) {
			if r, ok := rel(dep); ok && slices.Contains(neural, r) {
				t.Errorf("%s (GOOS=%s GOARCH=%s) depends on %s", c.pkg, c.goos, c.goarch, r)
			}
		}
	}
}

// TestParsePolicy checks the rules' reader on the shapes it must refuse.
func TestParsePolicy(t *testing.T) {
	good := "```deps\nNONE < a, b; # leaves\na < c < d;\n```"
	p, err := parsePolicy(good)
	if err != nil {
		t.Fatal(err)
	}
	if !p["d"]["a"] || !p["d"]["c"] || p["d"]["b"] || p["c"]["d"] || len(p["a"]) != 0 {
		t.Errorf("parsePolicy(%q) = %v", good, p)
	}
	for _, c := range []struct{ doc, want string }{
		{"no block", "no ```deps block"},
		{"```deps\nNONE < a;", "not closed"},
		{"```deps\nNONE < a; NONE < a;\n```", "declared twice"},
		{"```deps\nb < a;\n```", "used before it is declared"},
		{"```deps\na;\n```", "expected lists"},
		{"```deps\nNONE < , ;\n```", "empty list"},
	} {
		if _, err := parsePolicy(c.doc); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("parsePolicy(%q): %v, want %q", c.doc, err, c.want)
		}
	}
}
