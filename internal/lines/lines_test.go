package lines

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

func readAll(r *Reader) ([]string, error) {
	var out []string
	for {
		b, err := r.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, string(b))
	}
}

// TestNext reads terminators, a byte order mark, blank and long lines the
// same way from a small and from a large buffer.
func TestNext(t *testing.T) {
	long := strings.Repeat("x", 300<<10) // longer than the read buffer
	for _, c := range []struct {
		name, in string
		want     []string
	}{
		{"empty", "", nil},
		{"no final newline", "a\nb", []string{"a", "b"}},
		{"crlf", "a\r\nb\r\n", []string{"a", "b"}},
		{"bom", "\ufeffa\n\ufeffb\n", []string{"a", "\ufeffb"}},
		{"blank lines", "\n\na\n", []string{"", "", "a"}},
		{"lone cr kept inside", "a\rb\n", []string{"a\rb"}},
		{"long", long + "\nshort\n" + long, []string{long, "short", long}},
	} {
		for _, r := range []io.Reader{strings.NewReader(c.in), iotest.OneByteReader(strings.NewReader(c.in)), io.MultiReader(strings.NewReader(c.in))} {
			got, err := readAll(New(r, "f", 1<<20))
			if err != nil || strings.Join(got, "|") != strings.Join(c.want, "|") || len(got) != len(c.want) {
				t.Errorf("%s (%T): %d lines, %v", c.name, r, len(got), err)
			}
		}
	}
}

// TestLimits refuses a line past the limit, naming the file and line, and
// reports read errors the same way.
func TestLimits(t *testing.T) {
	r := New(io.MultiReader(strings.NewReader("ok\n"+strings.Repeat("y", 400<<10)+"\n")), "big.tsv", 300<<10)
	got, err := readAll(r)
	var le *Error
	if len(got) != 1 || !errors.As(err, &le) || le.Line != 2 || err.Error() != "big.tsv:2: line longer than 307200 bytes" {
		t.Errorf("got %d lines, %v", len(got), err)
	}
	r = New(strings.NewReader(strings.Repeat("z", 40)+"\n"), "small", 10)
	if _, err := r.Next(); err == nil || err.Error() != "small:1: line longer than 10 bytes" {
		t.Errorf("a small input: %v", err)
	}
	boom := errors.New("boom")
	r = New(io.MultiReader(strings.NewReader("a\n"), iotest.ErrReader(boom)), "net", 100)
	if got, err := readAll(r); len(got) != 1 || !errors.Is(err, boom) || err.Error() != "net:2: boom" || r.Line() != 1 {
		t.Errorf("a read error: %d lines, %v", len(got), err)
	}
}
