package pylit

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestStringList(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{`['Elvis', "O'Brien"]`, []string{"Elvis", "O'Brien"}},
		{`[]`, []string{}},
		{` [ 'a' , ] `, []string{"a"}},
		{`['it\'s', "say \"hi\"", 'back\\slash']`, []string{"it's", `say "hi"`, `back\slash`}},
		{`['Angola \u200e', 'S\xc3\x83o', 'Apple\uf8ff']`, []string{"Angola \u200e", "S\u00c3\u0083o", "Apple\uf8ff"}},
		{`['\U0001F600', '\ud83d\ude00', '\ud83d', '\ude00x']`, []string{"😀", "😀", "\uFFFD", "\uFFFDx"}},
		{`['tab\there', 'nl\n', '\101\0', '\a\b\f\r\v']`, []string{"tab\there", "nl\n", "A\x00", "\a\b\f\r\v"}},
		{`['keeps \s and \d']`, []string{`keeps \s and \d`}},
		{`[u'unicode', r'raw\n', R"raw\"q"]`, []string{"unicode", `raw\n`, `raw\"q`}},
		{`['Llanfair\xadpwll']`, []string{"Llanfair\u00adpwll"}},
		{`['"John Cage after the premiere of 4\'33""""']`, []string{`"John Cage after the premiere of 4'33""""`}},
		{`['über', "日本"]`, []string{"über", "日本"}},
	}
	for _, tt := range tests {
		got, err := StringList(tt.in)
		if err != nil {
			t.Errorf("%s: %v", tt.in, err)
			continue
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: got %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestStringListErrors(t *testing.T) {
	tests := []struct{ in, want string }{
		{``, "byte 0: want '['"},
		{`'a'`, "byte 0: want '['"},
		{`['a'`, "byte 4: want ',' or ']'"},
		{`['a' 'b']`, "byte 5: want ',' or ']'"},
		{`['a]`, "byte 1: unterminated string"},
		{`['a\`, "byte 1: unterminated string"},
		{`[a]`, "byte 1: want a quoted string"},
		{`['''a''']`, "triple-quoted"},
		{`['\x4']`, `bad \x escape`},
		{`['\x4`, `truncated \x escape`},
		{`['\U00110000']`, "beyond U+10FFFF"},
		{`['\N{DASH}']`, `\N{...} escapes are not supported`},
		{`['a'] x`, "byte 6: unexpected text after the list"},
		{"['a\nb']", "newline inside a string"},
		{`[1, 2]`, "want a quoted string"},
	}
	for _, tt := range tests {
		_, err := StringList(tt.in)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: got %v, want %q", tt.in, err, tt.want)
		}
	}
}

func FuzzStringList(f *testing.F) {
	for _, s := range []string{`['Elvis', "O'Brien"]`, `['\u200e\xad\U0001F600\101']`, `[r'\'', u"x",]`, `['\ud83d\ude00']`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		got, err := StringList(in)
		if err != nil {
			return
		}
		if got == nil {
			t.Fatal("nil list without error")
		}
		// Written back as a Python literal, the list parses to itself
		// (strings holding invalid UTF-8 copied from the input excepted).
		for _, s := range got {
			if !utf8.ValidString(s) {
				return
			}
		}
		again, err := StringList(pyRepr(got))
		if err != nil || !reflect.DeepEqual(again, got) {
			t.Fatalf("round trip of %q via %s: %q, %v", got, pyRepr(got), again, err)
		}
	})
}

// pyRepr writes strs, which must be valid UTF-8, as a Python list literal
// with every non-ASCII or control character escaped.
func pyRepr(strs []string) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, s := range strs {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteByte('\'')
		for _, r := range s {
			switch {
			case r == '\\' || r == '\'':
				b.WriteByte('\\')
				b.WriteRune(r)
			case r >= 0x20 && r < 0x7f:
				b.WriteRune(r)
			case r <= 0xff:
				fmt.Fprintf(&b, "\\x%02x", r)
			case r <= 0xffff:
				fmt.Fprintf(&b, "\\u%04x", r)
			default:
				fmt.Fprintf(&b, "\\U%08x", r)
			}
		}
		b.WriteByte('\'')
	}
	b.WriteByte(']')
	return b.String()
}

func TestParserValues(t *testing.T) {
	p := NewParser(`'<f4' True False (3, 4) (5,) () (7L, 2) x`)
	s, err := p.StringLit()
	if err != nil || s != "<f4" {
		t.Fatalf("StringLit: %q, %v", s, err)
	}
	for _, want := range []bool{true, false} {
		p.Space()
		if b, err := p.Bool(); err != nil || b != want {
			t.Fatalf("Bool at byte %d: %v, %v; want %v", p.Offset(), b, err, want)
		}
	}
	for _, want := range [][]int{{3, 4}, {5}, nil, {7, 2}} {
		p.Space()
		if got, err := p.IntTuple(); err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("IntTuple: %v, %v; want %v", got, err, want)
		}
	}
	p.Space()
	if p.Rest() != "x" || p.Offset() != len(`'<f4' True False (3, 4) (5,) () (7L, 2) `) {
		t.Errorf("rest %q at byte %d", p.Rest(), p.Offset())
	}
	for _, tt := range []struct {
		in   string
		read func(*Parser) error
		want string
	}{
		{"Yes", func(p *Parser) error { _, err := p.Bool(); return err }, "byte 0: want True or False"},
		{"(3)", func(p *Parser) error { _, err := p.IntTuple(); return err }, "byte 3: (n) is not a tuple, want (n,)"},
		{"(1, -1)", func(p *Parser) error { _, err := p.IntTuple(); return err }, "byte 4: want a non-negative integer"},
		{"(1 2)", func(p *Parser) error { _, err := p.IntTuple(); return err }, "byte 3: want ',' or ')'"},
		{"3, 4", func(p *Parser) error { _, err := p.IntTuple(); return err }, "byte 0: want a tuple"},
		{"(99999999999999999999,)", func(p *Parser) error { _, err := p.IntTuple(); return err }, "byte 1: dimension 99999999999999999999 is out of range"},
		{"x'a'", func(p *Parser) error { _, err := p.StringLit(); return err }, "byte 0: want a quoted string"},
	} {
		err := tt.read(NewParser(tt.in))
		var pe *Error
		if !errors.As(err, &pe) || err.Error() != tt.want {
			t.Errorf("%s: got %v, want %q", tt.in, err, tt.want)
		}
	}
}

// FuzzParser drives a Parser through any text with any sequence of calls:
// none panics, the offset never moves back or past the end, and every
// error is an *Error at an offset within the text.
func FuzzParser(f *testing.F) {
	f.Add("{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }", []byte{0, 1, 2, 0, 1, 0, 3, 0, 1, 0, 4})
	f.Add(`['a', "b\x00", r'\'']`, []byte{1, 2, 1, 2, 1, 2, 1})
	f.Add("(1L, 2,) True", []byte{4, 0, 3})
	f.Fuzz(func(t *testing.T, s string, ops []byte) {
		p := NewParser(s)
		last := 0
		for _, op := range ops {
			var err error
			switch op % 5 {
			case 0:
				p.Space()
			case 1:
				p.Eat(",[]{}():"[op/5%8])
			case 2:
				_, err = p.StringLit()
			case 3:
				_, err = p.Bool()
			case 4:
				_, err = p.IntTuple()
			}
			if off := p.Offset(); off < last || off > len(s) || p.Rest() != s[off:] {
				t.Fatalf("offset %d after %d (len %d)", off, last, len(s))
			}
			last = p.Offset()
			if err != nil {
				var pe *Error
				if !errors.As(err, &pe) || pe.Offset < 0 || pe.Offset > len(s) {
					t.Fatalf("error %v is not an *Error within the text", err)
				}
			}
		}
	})
}
