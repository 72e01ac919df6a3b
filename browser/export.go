package browser

import (
	"archive/zip"
	"bytes"
	"strings"

	"github.com/dreval/dreval/experiment"
	"github.com/dreval/dreval/report"
	"github.com/dreval/dreval/results"
	"github.com/dreval/dreval/ui"
)

// exportFiles returns what the page downloads of res: the files "dreval
// eval" writes into its output directory for the same results (package
// report decides their names and bytes): results.json, comparisons.csv,
// the TREC runs with their qrels as a zip of runs/ and qrels/, and every
// file as a zip (report.html included; the SVG chart, drawn by the
// plotting library the browser app leaves out, is not).
//
// The page decodes every query for its inspector; the files hold the
// examples "dreval eval" keeps (experiment.DefaultExamples per rate).
func exportFiles(res *results.Results) (*ExportReply, error) {
	files, err := report.Files(res.KeepExamples(experiment.DefaultExamples), report.Extras{Page: ui.ReportHTML})
	if err != nil {
		return nil, err
	}
	var runs []report.File
	out := &ExportReply{}
	for _, f := range files {
		switch {
		case f.Path == "results.json":
			out.JSON = string(f.Data)
		case f.Path == report.ComparisonsFile:
			out.CSV = string(f.Data)
		case strings.HasPrefix(f.Path, "runs/") || strings.HasPrefix(f.Path, "qrels/"):
			runs = append(runs, f)
		}
	}
	if out.RunsZip, err = zipFiles(runs); err != nil {
		return nil, err
	}
	if out.AllZip, err = zipFiles(files); err != nil {
		return nil, err
	}
	return out, nil
}

// zipFiles returns a zip archive of files under their paths.
func zipFiles(files []report.File) ([]byte, error) {
	var buf bytes.Buffer
	z := zip.NewWriter(&buf)
	for _, f := range files {
		w, err := z.Create(f.Path)
		if err != nil {
			return nil, err
		}
		if _, err := w.Write(f.Data); err != nil {
			return nil, err
		}
	}
	if err := z.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
