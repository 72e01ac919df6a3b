package dataset

import (
	"archive/zip"
	"bytes"
	"errors"
	"io/fs"
	"reflect"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
)

// TestDemoZip checks that the browser app's archive of the demo (which it
// fetches instead of embedding the collection) loads as the embedded
// collection does, and is the same bytes every time.
func TestDemoZip(t *testing.T) {
	var a, b bytes.Buffer
	if err := WriteDemoZip(&a); err != nil {
		t.Fatal(err)
	}
	if err := WriteDemoZip(&b); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Error("two archives of the same files differ")
	}
	z, err := zip.NewReader(bytes.NewReader(a.Bytes()), int64(a.Len()))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range z.File {
		names = append(names, f.Name)
		if f.Method != zip.Deflate {
			t.Errorf("%s is stored with method %d, not deflate", f.Name, f.Method)
		}
	}
	if !reflect.DeepEqual(names, DemoFiles()) {
		t.Errorf("the archive holds %q, want %q", names, DemoFiles())
	}
	want, err := Demo("test")
	if err != nil {
		t.Fatal(err)
	}
	SetDemoSource(func() (fs.FS, error) { return z, nil })
	defer SetDemoSource(nil)
	got, err := Demo("test")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Error("the demo loaded from the archive differs from the embedded one")
	}
}

// TestDemoSource checks that Demo reads the source it is given (and says
// so when it fails), and that the embedded copy lists DemoFiles.
func TestDemoSource(t *testing.T) {
	src, err := embeddedDemo()
	if err != nil {
		t.Fatal(err)
	}
	var embedded []string
	if err := fs.WalkDir(src, ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			embedded = append(embedded, p)
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if want := slices.Sorted(slices.Values(DemoFiles())); !reflect.DeepEqual(embedded, want) {
		t.Errorf("embedded %q, DemoFiles %q", embedded, DemoFiles())
	}
	if !DemoEmbedded() {
		t.Error("DemoEmbedded is false in a build that embeds the demo")
	}
	defer SetDemoSource(nil)
	SetDemoSource(func() (fs.FS, error) { return nil, errors.New("the site is down") })
	if _, err := Demo("test"); err == nil || !strings.Contains(err.Error(), "demo collection: the site is down") {
		t.Errorf("a failing source: error %v", err)
	}
	small := fstest.MapFS{
		"corpus.jsonl":   {Data: []byte(`{"_id": "d1", "text": "one passage"}` + "\n")},
		"queries.jsonl":  {Data: []byte(`{"_id": "q1", "text": "a query"}` + "\n")},
		"qrels/test.tsv": {Data: []byte("query-id\tcorpus-id\tscore\nq1\td1\t1\n")},
	}
	SetDemoSource(func() (fs.FS, error) { return small, nil })
	c, err := Demo("test")
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Corpus) != 1 || c.Corpus[0].ID != "d1" || len(c.Queries) != 1 {
		t.Errorf("Demo did not read its source: %d documents, %d queries", len(c.Corpus), len(c.Queries))
	}
	SetDemoSource(nil)
	if c, err := Demo("test"); err != nil || len(c.Corpus) != 1084 {
		t.Errorf("after SetDemoSource(nil): %v, want the embedded 1,084 passages", err)
	}
}
