package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/dreval/dreval/results"
)

// File is one output file: its path relative to the output directory
// (slash-separated) and its contents.
type File struct {
	Path string
	Data []byte
}

// Tables returns every table of res in reading order: per dataset its
// DatasetTables, then the average over datasets when there are several.
func Tables(res *results.Results) []*Table {
	var out []*Table
	for _, ds := range res.Datasets {
		out = append(out, DatasetTables(res, ds)...)
	}
	if t := AverageTable(res); t != nil {
		out = append(out, t)
	}
	if t := AverageDropTable(res, nil); t != nil && len(t.Rows) > 0 {
		out = append(out, t)
	}
	return out
}

// Summary writes the main tables (per dataset, and the average over
// datasets) as Markdown: what the command line prints.
func Summary(w io.Writer, res *results.Results) error {
	for _, ds := range res.Datasets {
		for _, t := range []*Table{MainTable(res, ds), DuReaderTable(res, ds), AnswerTable(res, ds)} {
			if t == nil || len(t.Rows) == 0 { // no qrels: no main table
				continue
			}
			if err := t.Markdown(w); err != nil {
				return err
			}
			fmt.Fprintln(w)
		}
	}
	if t := AverageTable(res); t != nil {
		if err := t.Markdown(w); err != nil {
			return err
		}
		fmt.Fprintln(w)
	}
	return nil
}

// JSON writes res as JSON, indented, with every object or array that fits
// in a line of 160 bytes (a query's values, a comparison) on one line.
func JSON(w io.Writer, res *results.Results) error {
	b, err := json.Marshal(res)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := indentFit(&buf, b, 160); err != nil {
		return err
	}
	_, err = w.Write(buf.Bytes())
	return err
}

// Extras are the outputs report does not make itself, so that it
// depends on neither the plotting library nor the page's renderer (the
// browser app imports it).
type Extras struct {
	// Charts are SVG files, as package report/ratechart's Files makes
	// them.
	Charts []File
	// Page renders report.html (package ui's ReportHTML); nil leaves
	// report.html out.
	Page func(res *results.Results) ([]byte, error)
}

// ReportFile is the output path of the HTML report.
const ReportFile = "report.html"

// Files returns every output file of res, in a stable order:
// results.json, the run files (runs/..., see RunFile), the qrels they
// were scored against (qrels/<dataset>.qrels), tables.md, tables.tex, one
// CSV per table (tables/<name>.csv), comparisons.csv (ComparisonsCSV),
// examples.md, the charts of x and report.html when x renders it.
func Files(res *results.Results, x Extras) ([]File, error) {
	var files []File
	add := func(p string, f func(io.Writer) error) error {
		var b bytes.Buffer
		if err := f(&b); err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		files = append(files, File{Path: p, Data: b.Bytes()})
		return nil
	}
	if err := add("results.json", func(w io.Writer) error { return JSON(w, res) }); err != nil {
		return nil, err
	}
	for _, ds := range res.Datasets {
		for _, m := range ds.Models {
			for _, rr := range m.Runs() {
				if rr.Run == nil {
					return nil, fmt.Errorf("dataset %s model %s: run %q has no ranking (results read back from JSON hold no rankings)", ds.Name, m.Model, rr.Name)
				}
				file := RunFile(res, ds, rr)
				if err := checkRel(file); err != nil {
					return nil, err
				}
				if err := add(file, func(w io.Writer) error { return WriteRun(w, rr.Run, rr.Name) }); err != nil {
					return nil, err
				}
			}
		}
		if ds.Qrels != nil {
			if err := add(QrelsFile(ds), func(w io.Writer) error { return WriteQrels(w, ds.Qrels) }); err != nil {
				return nil, err
			}
		}
	}
	tables := Tables(res)
	if err := add("tables.md", func(w io.Writer) error {
		fmt.Fprintf(w, "# dreval results\n\n")
		for _, t := range tables {
			if err := t.Markdown(w); err != nil {
				return err
			}
			fmt.Fprintln(w)
		}
		return nil
	}); err != nil {
		return nil, err
	}
	if err := add("tables.tex", func(w io.Writer) error {
		fmt.Fprintf(w, "%% dreval results; needs \\usepackage{booktabs}\n")
		for _, t := range tables {
			if err := t.LaTeX(w); err != nil {
				return err
			}
			fmt.Fprintln(w)
		}
		return nil
	}); err != nil {
		return nil, err
	}
	for _, t := range tables {
		if err := add("tables/"+t.Name+".csv", t.CSV); err != nil {
			return nil, err
		}
	}
	if err := add(ComparisonsFile, func(w io.Writer) error { return ComparisonsCSV(w, res) }); err != nil {
		return nil, err
	}
	if err := add("examples.md", func(w io.Writer) error { return Examples(w, res) }); err != nil {
		return nil, err
	}
	for _, c := range x.Charts {
		if err := checkRel(c.Path); err != nil {
			return nil, err
		}
		files = append(files, File{Path: c.Path, Data: c.Data})
	}
	if x.Page != nil {
		b, err := x.Page(res)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", ReportFile, err)
		}
		files = append(files, File{Path: ReportFile, Data: b})
	}
	return files, nil
}

// checkRel refuses paths that would leave the output directory.
func checkRel(p string) error {
	c := path.Clean(p)
	if path.IsAbs(c) || c == ".." || strings.HasPrefix(c, "../") || c != p {
		return fmt.Errorf("output path %q is not a clean relative path", p)
	}
	return nil
}

// WriteDir writes Files(res, x) under dir, creating directories as
// needed. It returns the paths written, sorted.
func WriteDir(dir string, res *results.Results, x Extras) ([]string, error) {
	files, err := Files(res, x)
	if err != nil {
		return nil, err
	}
	var written []string
	for _, f := range files {
		p := filepath.Join(dir, filepath.FromSlash(f.Path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return written, err
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			return written, err
		}
		written = append(written, p)
	}
	sort.Strings(written)
	return written, nil
}
