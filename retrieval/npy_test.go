package retrieval

import (
	"bytes"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/dreval/dreval/internal/float16"
	"github.com/dreval/dreval/internal/sharedtest"
)

// numpyFixtureScript has numpy write, into the directory given as its
// argument, the files TestReadNPYFiles and TestReadNPYErrors read: want34
// in every dtype, byte order and format version the reader takes, and in
// three forms it refuses (float64, 3-D, Fortran order).
const numpyFixtureScript = `
import sys, numpy as np
from numpy.lib import format as fmt
d = sys.argv[1]
a = np.arange(12, dtype=np.float64).reshape(3, 4) * 0.25 - 1
np.save(d + '/f4.npy', a.astype('<f4')); np.save(d + '/f2.npy', a.astype('<f2'))
np.save(d + '/be-f4.npy', a.astype('>f4')); np.save(d + '/be-f2.npy', a.astype('>f2'))
np.save(d + '/1d.npy', a[0].astype('<f4')); np.save(d + '/f8.npy', a)
np.save(d + '/3d.npy', a.reshape(3, 2, 2).astype('<f4'))
np.save(d + '/fortran.npy', np.asfortranarray(a.astype('<f4')))
for v in (2, 3):
    with open(d + '/v%d.npy' % v, 'wb') as f:
        fmt.write_array(f, a.astype('<f4'), version=(v, 0))
`

// numpyFixtures returns a directory holding the files numpyFixtureScript
// writes. Without numpy the test is skipped (failed under CI=true, where
// make setup installs it).
func numpyFixtures(t *testing.T) string {
	t.Helper()
	py := numpyPython(t)
	dir := t.TempDir()
	if out, err := exec.Command(py, "-c", numpyFixtureScript, dir).CombinedOutput(); err != nil {
		t.Fatalf("numpy could not write the fixtures: %v\n%s", err, out)
	}
	return dir
}

// want34 is the array numpyFixtureScript writes.
func want34() *Matrix {
	m := NewMatrix(3, 4)
	for i := range m.Data {
		m.Data[i] = float32(i)*0.25 - 1
	}
	return m
}

func TestReadNPYFiles(t *testing.T) {
	dir := numpyFixtures(t)
	for _, tc := range []struct {
		file string
		want *Matrix
	}{
		{"f4.npy", want34()},
		{"f2.npy", want34()},
		{"be-f4.npy", want34()},
		{"be-f2.npy", want34()},
		{"v2.npy", want34()},
		{"v3.npy", want34()},
		{"1d.npy", &Matrix{Rows: 1, Dim: 4, Data: want34().Data[:4]}},
	} {
		path := filepath.Join(dir, tc.file)
		m, err := ReadNPYFile(path)
		if err != nil {
			t.Errorf("%s: %v", tc.file, err)
			continue
		}
		if !reflect.DeepEqual(m, tc.want) {
			t.Errorf("%s: got %+v, want %+v", tc.file, m, tc.want)
		}
		// The streaming reader must agree with the file reader.
		b, _ := os.ReadFile(path)
		m2, err := ReadNPY(bytes.NewReader(b), tc.file)
		if err != nil || !reflect.DeepEqual(m2, tc.want) {
			t.Errorf("%s via ReadNPY: %+v, %v", tc.file, m2, err)
		}
	}
}

func TestReadNPYErrors(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteNPY(&buf, want34(), Float32); err != nil {
		t.Fatal(err)
	}
	f4 := buf.Bytes() // numpy's bytes too: see TestWriteNPYRoundTrip
	hdr := func(dict string) []byte {
		b := []byte("\x93NUMPY\x01\x00")
		b = append(b, byte(len(dict)), byte(len(dict)>>8))
		return append(b, dict...)
	}
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"empty", nil, "empty file"},
		{"magic", []byte("PK\x03\x04 not numpy at all"), "not a .npy file"},
		{"version", []byte("\x93NUMPY\x04\x00\x10\x00"), "format version 4.0"},
		{"short header", []byte("\x93NUMPY\x01\x00\xff\x00{'descr'"), "truncated .npy header"},
		{"not a dict", hdr("['<f4', False, (3, 4)]\n"), "not a Python dict"},
		{"unknown dtype", hdr("{'descr': '<i4', 'fortran_order': False, 'shape': (1, 1), }\n"), `unsupported dtype "<i4"`},
		{"missing key", hdr("{'descr': '<f4', 'shape': (1, 1), }\n"), `missing key "fortran_order"`},
		{"extra key", hdr("{'descr': '<f4', 'fortran_order': False, 'shape': (1, 1), 'x': 1}\n"), `unexpected key "x"`},
		{"bad shape", hdr("{'descr': '<f4', 'fortran_order': False, 'shape': (1, -1), }\n"), "shape: want a non-negative integer"},
		{"not a tuple", hdr("{'descr': '<f4', 'fortran_order': False, 'shape': (3), }\n"), "(n) is not a tuple"},
		{"huge shape", hdr("{'descr': '<f4', 'fortran_order': False, 'shape': (100000000000, 100000000000), }\n"), "too large"},
		{"truncated data", f4[:len(f4)-3], "truncated data: shape (3, 4) of dtype <f4 needs 48 bytes, file has 45"},
		{"extra data", append(append([]byte{}, f4...), 0, 0, 0, 0), "longer than shape (3, 4)"},
		{"zero dim", hdr("{'descr': '<f4', 'fortran_order': False, 'shape': (1000000000000, 0), }\n"), "vectors of dimension 0"},
		{"no data", hdr("{'descr': '<f4', 'fortran_order': False, 'shape': (1000000, 384), }\n"), "truncated data"},
	} {
		_, err := ReadNPY(bytes.NewReader(tc.data), "x.npy")
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "x.npy: ") {
			t.Errorf("%s: got error %v, want x.npy: ...%s...", tc.name, err, tc.want)
		}
	}
	// A file shorter than its header claims is caught from its size.
	p := filepath.Join(t.TempDir(), "short.npy")
	os.WriteFile(p, f4[:len(f4)-4], 0o644)
	if _, err := ReadNPYFile(p); err == nil || !strings.Contains(err.Error(), "needs 48 data bytes after the 128-byte header, file has 44") {
		t.Errorf("short file: %v", err)
	}
}

func TestWriteNPYRoundTrip(t *testing.T) {
	dir := t.TempDir()
	m := want34()
	for _, dtype := range []string{Float32, Float16} {
		p := filepath.Join(dir, "m.npy")
		if err := WriteNPYFile(p, m, dtype); err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(p)
		if len(b)%64 != (m.Rows*m.Dim*map[string]int{Float32: 4, Float16: 2}[dtype])%64 {
			t.Errorf("%s: header not padded to 64 bytes", dtype)
		}
		got, err := ReadNPYFile(p)
		if err != nil || !reflect.DeepEqual(got, m) {
			t.Errorf("%s round trip: %+v, %v", dtype, got, err)
		}
	}
	// The bytes of a float32 file equal numpy's.
	var buf bytes.Buffer
	if err := WriteNPY(&buf, m, Float32); err != nil {
		t.Fatal(err)
	}
	if want, err := os.ReadFile(filepath.Join(numpyFixtures(t), "f4.npy")); err != nil || !bytes.Equal(buf.Bytes(), want) {
		t.Errorf("WriteNPY output differs from numpy.save's:\n%q\n%q", buf.Bytes(), want)
	}
	if err := WriteNPY(&buf, &Matrix{Rows: 1, Dim: 1, Data: []float32{70000}}, Float16); err == nil || !strings.Contains(err.Error(), "does not fit float16") {
		t.Errorf("float16 overflow: %v", err)
	}
	if err := WriteNPY(&buf, m, "<f8"); err == nil {
		t.Error("WriteNPY accepted dtype <f8")
	}
}

// TestHalfRoundTrip converts every float16 to float32 and back.
func TestHalfRoundTrip(t *testing.T) {
	for h := 0; h < 1<<16; h++ {
		f := float16.ToFloat32(uint16(h))
		back, ok := float16.Round(f)
		if math.IsNaN(float64(f)) {
			if back&0x7c00 != 0x7c00 || back&0x3ff == 0 {
				t.Fatalf("NaN %#04x came back as %#04x", h, back)
			}
			continue
		}
		if !ok || back != uint16(h) {
			t.Fatalf("%#04x -> %v -> %#04x (ok %v)", h, f, back, ok)
		}
	}
	for _, tc := range []struct {
		f    float32
		want uint16
		ok   bool
	}{
		{1 + 1.0/2048, 0x3c00, true},              // halfway, ties to even (down)
		{1 + 3.0/2048, 0x3c02, true},              // halfway, ties to even (up)
		{65504, 0x7bff, true},                     // max half
		{65519, 0x7bff, true},                     // rounds down to max
		{65520, 0x7c00, false},                    // rounds to infinity
		{1.0 / (1 << 25), 0, true},                // half the smallest subnormal: to even (0)
		{1.5 / (1 << 25), 1, true},                // above half: smallest subnormal
		{-1.0 / (1 << 14), 0x8400, true},          // smallest normal, negative
		{1.0/(1<<14) - 1.0/(1<<25), 0x0400, true}, // rounds up into the normals
	} {
		got, ok := float16.Round(tc.f)
		if got != tc.want || ok != tc.ok {
			t.Errorf("float16.Round(%g) = %#04x, %v; want %#04x, %v", tc.f, got, ok, tc.want, tc.ok)
		}
	}
}

// numpyPython returns a Python interpreter with numpy, or skips t.
func numpyPython(t *testing.T) string {
	t.Helper()
	for _, py := range []string{"python3", "/usr/bin/python3"} {
		if p, err := exec.LookPath(py); err == nil && exec.Command(p, "-c", "import numpy").Run() == nil {
			return p
		}
	}
	if runtime.GOOS == "js" {
		t.Skip("numpy cannot be run from js/wasm; the native tests compare with it")
	}
	const msg = "no python3 with numpy (make setup installs python3-numpy)"
	if sharedtest.InCI() {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

// TestNumpyRoundTrip writes random matrices with WriteNPY, has numpy read
// them, check them and write its own copies in every supported dtype and
// format version, and reads those back.
func TestNumpyRoundTrip(t *testing.T) {
	py := numpyPython(t)
	dir := t.TempDir()
	m := want34()
	for i := range m.Data {
		m.Data[i] = float32(math.Sin(float64(i)*1.7) * 100)
	}
	if err := WriteNPYFile(filepath.Join(dir, "go-f4.npy"), m, Float32); err != nil {
		t.Fatal(err)
	}
	if err := WriteNPYFile(filepath.Join(dir, "go-f2.npy"), m, Float16); err != nil {
		t.Fatal(err)
	}
	script := `
import sys, numpy as np
from numpy.lib import format as fmt
d = sys.argv[1]
a = np.sin(np.arange(12) * 1.7).reshape(3, 4) * 100
f4, f2 = np.load(d + '/go-f4.npy'), np.load(d + '/go-f2.npy')
assert f4.dtype == np.float32 and f4.shape == (3, 4), (f4.dtype, f4.shape)
assert (f4 == a.astype(np.float32)).all(), f4
assert f2.dtype == np.float16 and (f2 == a.astype(np.float32).astype(np.float16)).all(), f2
for dt in ['<f4', '>f4', '<f2', '>f2']:
    for v in [(1, 0), (2, 0), (3, 0)]:
        with open('%s/np-%s-%d.npy' % (d, dt[1:] + ('be' if dt[0] == '>' else 'le'), v[0]), 'wb') as f:
            fmt.write_array(f, a.astype(np.float32).astype(dt), version=v)
`
	if out, err := exec.Command(py, "-c", script, dir).CombinedOutput(); err != nil {
		t.Fatalf("numpy rejected WriteNPY's files: %v\n%s", err, out)
	}
	f2 := make([]float32, len(m.Data))
	for i, v := range m.Data {
		h, _ := float16.Round(v)
		f2[i] = float16.ToFloat32(h)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "np-*.npy"))
	if len(files) != 12 {
		t.Fatalf("numpy wrote %d files, want 12", len(files))
	}
	for _, p := range files {
		got, err := ReadNPYFile(p)
		if err != nil {
			t.Error(err)
			continue
		}
		want := m.Data
		if strings.Contains(p, "f2") {
			want = f2
		}
		if got.Rows != 3 || got.Dim != 4 || !reflect.DeepEqual(got.Data, want) {
			t.Errorf("%s: got %v, want %v", filepath.Base(p), got.Data, want)
		}
	}
}

func FuzzReadNPY(f *testing.F) {
	for _, dtype := range []string{Float32, Float16} {
		var buf bytes.Buffer
		if err := WriteNPY(&buf, want34(), dtype); err != nil {
			f.Fatal(err)
		}
		f.Add(buf.Bytes())
	}
	f.Add([]byte("\x93NUMPY\x02\x00\x40\x00\x00\x00{'descr': '>f2', 'fortran_order': False, 'shape': (2, 1), }      \n\x3c\x00\xbc\x00"))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := ReadNPY(bytes.NewReader(b), "fuzz.npy")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.npy: ") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		if len(m.Data) != m.Rows*m.Dim {
			t.Fatalf("%d values for %d x %d", len(m.Data), m.Rows, m.Dim)
		}
		// What was read writes and reads back bit for bit.
		var buf bytes.Buffer
		if err := WriteNPY(&buf, m, Float32); err != nil {
			t.Fatal(err)
		}
		m2, err := ReadNPY(&buf, "again.npy")
		if err != nil {
			t.Fatal(err)
		}
		if m2.Rows != m.Rows || m2.Dim != m.Dim || len(m2.Data) != len(m.Data) {
			t.Fatalf("round trip changed the shape: %dx%d -> %dx%d", m.Rows, m.Dim, m2.Rows, m2.Dim)
		}
		for i := range m.Data {
			if math.Float32bits(m.Data[i]) != math.Float32bits(m2.Data[i]) {
				t.Fatalf("value %d changed: %v -> %v", i, m.Data[i], m2.Data[i])
			}
		}
	})
}

// TestReadNPYRefusesNumpyForms reads numpy's own files of the forms the
// reader refuses: the error names the file and the reason.
func TestReadNPYRefusesNumpyForms(t *testing.T) {
	dir := numpyFixtures(t)
	for _, tc := range []struct{ file, want string }{
		{"f8.npy", `unsupported dtype "<f8"`},
		{"3d.npy", "shape (3, 2, 2), want 2-D"},
		{"fortran.npy", "Fortran order"},
	} {
		_, err := ReadNPYFile(filepath.Join(dir, tc.file))
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), tc.file) {
			t.Errorf("%s: got error %v, want one naming the file and %q", tc.file, err, tc.want)
		}
	}
}
