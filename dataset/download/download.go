// Package download fetches BEIR datasets over HTTP for "dreval dataset
// get": the archive, its md5 checked against the published sum, unpacked
// into a data folder in the BEIR layout that package dataset loads.
//
// It is kept out of package dataset so that the browser app, which loads
// collections but never downloads them, does not carry Go's HTTP and TLS
// code (this package's deps_test.go checks that).
package download

import (
	"archive/zip"
	"context"
	"crypto/md5"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// DefaultBaseURL is where BEIR publishes its dataset archives
// (<base>/<name>.zip).
const DefaultBaseURL = "https://public.ukp.informatik.tu-darmstadt.de/thakur/BEIR/datasets"

// BEIRMD5 returns the md5 sums published in BEIR's README for its public
// single-collection dataset archives (cqadupstack, whose archive nests
// twelve collections, is left out).
func BEIRMD5() map[string]string {
	return map[string]string{
		"msmarco":          "444067daf65d982533ea17ebd59501e4",
		"trec-covid":       "ce62140cb23feb9becf6270d0d1fe6d1",
		"nfcorpus":         "a89dba18a62ef92f7d323ec890a0d38d",
		"nq":               "d4d3d2e48787a744b6f6e691ff534307",
		"hotpotqa":         "f412724f78b0d91183a0e86805e16114",
		"fiqa":             "17918ed23cd04fb15047f73e6c3bd9d9",
		"arguana":          "8ad3e3c2a5867cdced806d6503f29b99",
		"webis-touche2020": "46f650ba5a527fc69e0a6521c5a23563",
		"quora":            "18fb154900ba42a600f84b839c173167",
		"dbpedia-entity":   "c2a39eb420a3164af735795df012ac2c",
		"scidocs":          "38121350fc3a4d2f48850f6aff52e4a9",
		"fever":            "5a818580227bfb4b35bb6fa46d9b6c03",
		"climate-fever":    "8b66f0a9126c521bae2bde127b4dc99d",
		"scifact":          "5f7d1de60b170fc8027bb7898e2efca1",
	}
}

// Published is the scale of a BEIR collection as BEIR's README states it:
// Queries is its "Queries" column (the evaluation split's queries) and
// Corpus its "Corpus" column (documents, rounded as the README prints
// them, such as "57K" or "5.23M"). It says nothing of the archive's size
// in bytes, which the README does not publish (ArchiveSize asks the
// server).
type Published struct {
	Queries int
	Corpus  string
}

// BEIRPublished returns the queries and corpus sizes of the datasets of
// BEIRMD5, copied from the dataset table of BEIR's README
// (github.com/beir-cellar/beir, "Available Datasets"), the same table
// whose md5 column BEIRMD5 holds.
func BEIRPublished() map[string]Published {
	return map[string]Published{
		"msmarco":          {6980, "8.84M"},
		"trec-covid":       {50, "171K"},
		"nfcorpus":         {323, "3.6K"},
		"nq":               {3452, "2.68M"},
		"hotpotqa":         {7405, "5.23M"},
		"fiqa":             {648, "57K"},
		"arguana":          {1406, "8.67K"},
		"webis-touche2020": {49, "382K"},
		"quora":            {10000, "523K"},
		"dbpedia-entity":   {400, "4.63M"},
		"scidocs":          {1000, "25K"},
		"fever":            {6666, "5.42M"},
		"climate-fever":    {1535, "5.42M"},
		"scifact":          {300, "5K"},
	}
}

// Options configures Get. The zero value downloads from DefaultBaseURL
// and checks BEIRMD5.
type Options struct {
	// BaseURL replaces DefaultBaseURL.
	BaseURL string
	// MD5 replaces the table of expected md5 sums (name -> hex digest).
	MD5 map[string]string
	// Client is the HTTP client; nil means http.DefaultClient.
	Client *http.Client
	// MaxArchiveBytes bounds the download (default 8 GiB) and
	// MaxUnpackedBytes the total size of the unpacked files (default
	// 32 GiB).
	MaxArchiveBytes  int64
	MaxUnpackedBytes int64
	// Progress, when set, is called as the work advances: stage is
	// "download" or "unpack", done and total count bytes (total is -1
	// when unknown).
	Progress func(stage string, done, total int64)
}

var datasetName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// Get downloads the BEIR dataset archive name.zip, checks its md5 against
// the published sum, and unpacks it into dataDir/name, which it returns.
// The archive is unpacked into a temporary folder in dataDir and renamed
// into place only when complete and readable as a BEIR layout, so dataDir/
// name is never left half-written. If dataDir/name exists already, Get
// returns it with an error wrapping fs.ErrExist.
func Get(ctx context.Context, name, dataDir string, opt Options) (string, error) {
	if !datasetName.MatchString(name) || strings.Contains(name, "..") {
		return "", fmt.Errorf("invalid dataset name %q", name)
	}
	sums := opt.MD5
	if sums == nil {
		sums = BEIRMD5()
	}
	want, ok := sums[name]
	if !ok {
		known := make([]string, 0, len(sums))
		for n := range sums {
			known = append(known, n)
		}
		sort.Strings(known)
		return "", fmt.Errorf("no published md5 for dataset %q; known datasets: %s", name, strings.Join(known, ", "))
	}
	want = strings.ToLower(want)
	final := filepath.Join(dataDir, name)
	if _, err := os.Stat(final); err == nil {
		return final, fmt.Errorf("%s: %w", final, fs.ErrExist)
	}
	if err := os.MkdirAll(dataDir, 0o755); err != nil {
		return "", err
	}
	url := archiveURL(name, opt)

	tmp, err := os.CreateTemp(dataDir, "."+name+"-*.zip")
	if err != nil {
		return "", err
	}
	defer os.Remove(tmp.Name())
	defer tmp.Close()
	got, size, err := fetch(ctx, url, tmp, opt)
	if err != nil {
		return "", err
	}
	if got != want {
		return "", fmt.Errorf("%s: md5 %s, want %s (the published sum): the download is corrupt or the archive changed upstream", url, got, want)
	}

	unpack, err := os.MkdirTemp(dataDir, "."+name+"-unpack-*")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(unpack)
	if err := unzip(tmp, size, unpack, opt); err != nil {
		return "", fmt.Errorf("%s: %w", url, err)
	}
	root, err := archiveRoot(unpack, name)
	if err != nil {
		return "", fmt.Errorf("%s: %w", url, err)
	}
	if err := os.Rename(root, final); err != nil {
		return "", err
	}
	return final, nil
}

// archiveURL is where Get downloads name's archive from.
func archiveURL(name string, opt Options) string {
	base := opt.BaseURL
	if base == "" {
		base = DefaultBaseURL
	}
	return strings.TrimSuffix(base, "/") + "/" + name + ".zip"
}

// ArchiveSize asks the server for the size in bytes of the archive Get
// would download for name (an HTTP HEAD request; nothing is downloaded)
// and returns the Content-Length it announces, or -1 when it announces
// none. An error means the server could not be asked or did not answer
// 200 OK.
func ArchiveSize(ctx context.Context, name string, opt Options) (int64, error) {
	if !datasetName.MatchString(name) || strings.Contains(name, "..") {
		return 0, fmt.Errorf("invalid dataset name %q", name)
	}
	client := opt.Client
	if client == nil {
		client = http.DefaultClient
	}
	url := archiveURL(name, opt)
	req, err := http.NewRequestWithContext(ctx, http.MethodHead, url, nil)
	if err != nil {
		return 0, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("HEAD %s: %s", url, resp.Status)
	}
	return resp.ContentLength, nil
}

// fetch copies url into w and returns the md5 of what it wrote.
func fetch(ctx context.Context, url string, w io.Writer, opt Options) (sum string, n int64, err error) {
	client := opt.Client
	if client == nil {
		client = http.DefaultClient
	}
	limit := opt.MaxArchiveBytes
	if limit <= 0 {
		limit = 8 << 30
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return "", 0, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return "", 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", 0, fmt.Errorf("%s: %s", url, resp.Status)
	}
	if resp.ContentLength > limit {
		return "", 0, fmt.Errorf("%s: archive of %d bytes exceeds the limit of %d", url, resp.ContentLength, limit)
	}
	h := md5.New()
	dst := io.MultiWriter(w, h)
	if opt.Progress != nil {
		pw := &progressWriter{w: dst, stage: "download", total: resp.ContentLength, f: opt.Progress}
		defer pw.finish()
		dst = pw
	}
	n, err = io.Copy(dst, io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return "", n, fmt.Errorf("%s: %w", url, err)
	}
	if n > limit {
		return "", n, fmt.Errorf("%s: archive exceeds the limit of %d bytes", url, limit)
	}
	if resp.ContentLength >= 0 && n != resp.ContentLength {
		return "", n, fmt.Errorf("%s: got %d bytes, the server announced %d", url, n, resp.ContentLength)
	}
	return hex.EncodeToString(h.Sum(nil)), n, nil
}

type progressWriter struct {
	w         io.Writer
	stage     string
	done      int64
	total     int64
	f         func(string, int64, int64)
	lastShown int64
}

// finish reports the final count unless it was the last one reported.
func (p *progressWriter) finish() {
	if p.done != p.lastShown {
		p.lastShown = p.done
		p.f(p.stage, p.done, p.total)
	}
}

func (p *progressWriter) Write(b []byte) (int, error) {
	n, err := p.w.Write(b)
	p.done += int64(n)
	if p.done-p.lastShown >= 1<<20 || (p.total >= 0 && p.done == p.total) {
		p.lastShown = p.done
		p.f(p.stage, p.done, p.total)
	}
	return n, err
}

// unzip extracts the zip archive r (of the given size) into dir, refusing
// entries that would land outside dir, links and special files, and
// archives that unpack to more than the configured limit.
func unzip(r io.ReaderAt, size int64, dir string, opt Options) error {
	limit := opt.MaxUnpackedBytes
	if limit <= 0 {
		limit = 32 << 30
	}
	zr, err := zip.NewReader(r, size)
	if err != nil {
		return fmt.Errorf("reading the zip archive: %w", err)
	}
	var declared uint64
	for _, f := range zr.File {
		declared += f.UncompressedSize64
	}
	if declared > uint64(limit) {
		return fmt.Errorf("archive declares %d unpacked bytes, more than the limit of %d", declared, limit)
	}
	var total int64
	for _, f := range zr.File {
		rel := filepath.FromSlash(f.Name)
		if !filepath.IsLocal(rel) || strings.Contains(f.Name, `\`) {
			return fmt.Errorf("archive entry %q would be written outside the target folder", f.Name)
		}
		dst := filepath.Join(dir, rel)
		mode := f.Mode()
		switch {
		case mode.IsDir():
			if err := os.MkdirAll(dst, 0o755); err != nil {
				return err
			}
			continue
		case !mode.IsRegular():
			return fmt.Errorf("archive entry %q is not a regular file (%v)", f.Name, mode.Type())
		}
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		n, err := extract(f, dst, limit-total)
		total += n
		if err != nil {
			return fmt.Errorf("archive entry %q: %w", f.Name, err)
		}
		if opt.Progress != nil {
			opt.Progress("unpack", total, int64(declared))
		}
	}
	return nil
}

func extract(f *zip.File, dst string, room int64) (int64, error) {
	rc, err := f.Open()
	if err != nil {
		return 0, err
	}
	defer rc.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return 0, err
	}
	n, err := io.Copy(out, io.LimitReader(rc, room+1))
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err == nil && n > room {
		err = errors.New("unpacked data exceeds the size limit")
	}
	return n, err
}

// archiveRoot finds the dataset folder in an unpacked archive: dir itself
// when it holds corpus.jsonl, else its only subfolder (BEIR's archives
// hold a folder named after the dataset). The folder must hold
// corpus.jsonl and queries.jsonl.
func archiveRoot(dir, name string) (string, error) {
	if isBEIR(dir) {
		return dir, nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", err
	}
	var dirs []string
	for _, e := range entries {
		if e.IsDir() && e.Name() != "__MACOSX" {
			dirs = append(dirs, e.Name())
		}
	}
	if len(dirs) == 1 && isBEIR(filepath.Join(dir, dirs[0])) {
		return filepath.Join(dir, dirs[0]), nil
	}
	if p := filepath.Join(dir, name); isBEIR(p) {
		return p, nil
	}
	return "", fmt.Errorf("archive holds no BEIR dataset folder (corpus.jsonl and queries.jsonl, at the top or in a folder %q)", name)
}

func isBEIR(dir string) bool {
	for _, f := range []string{"corpus.jsonl", "queries.jsonl"} {
		if fi, err := os.Stat(filepath.Join(dir, f)); err != nil || !fi.Mode().IsRegular() {
			return false
		}
	}
	return true
}
