package modelfiles

import (
	"fmt"
	"io/fs"
	"slices"
	"strings"
)

// Towers returns the tower folders a dreval.json's contents name: its
// "query" and "document" folders, each once, the manifest's own folder
// ("" or ".") left out. name names the file in errors.
func Towers(manifest []byte, name string) ([]string, error) {
	m, err := ParseManifest(manifest, name)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, t := range []string{m.Query, m.Document} {
		if t == "" || t == "." || slices.Contains(out, t) {
			continue
		}
		if !fs.ValidPath(t) || strings.Contains(t, "/") {
			return nil, fmt.Errorf("%s: tower folder %q is not a folder directly inside the manifest's", name, t)
		}
		out = append(out, t)
	}
	return out, nil
}

// IsOf reports whether file is a model file (Is) of a retriever's folder
// whose towers are towers: one of the folder's own, or tower/rest where
// rest is a model file of the tower.
func IsOf(file string, towers []string) bool {
	if Is(file) {
		return true
	}
	tower, rest, ok := strings.Cut(file, "/")
	return ok && slices.Contains(towers, tower) && Is(rest)
}

// ToLoadOf returns ToLoad of a retriever's folder and of each of its
// towers, the towers' files under their folders, sorted.
func ToLoadOf(files []string, towers []string) []string {
	var top []string
	byTower := map[string][]string{}
	for _, f := range files {
		if tower, rest, ok := strings.Cut(f, "/"); ok && slices.Contains(towers, tower) {
			byTower[tower] = append(byTower[tower], rest)
			continue
		}
		top = append(top, f)
	}
	out := ToLoad(top)
	for _, t := range towers {
		for _, f := range ToLoad(byTower[t]) {
			out = append(out, t+"/"+f)
		}
	}
	slices.Sort(out)
	return out
}
