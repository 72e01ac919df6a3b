package dockerfile

import (
	"reflect"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	src := `ARG V=1.2
ARG IMG=golang:1.26
# a comment

from ${IMG} AS build
ENV A=/x \
    B="/y"
RUN apt-get update \
 # a comment inside the instruction
 && echo ok
COPY --from=build --chmod=755 a b/ /dst/
RUN ["sh", "-c", "echo json"]
RUN [not json
FROM scratch
ENV C 1 2
`
	f, err := Parse(strings.NewReader(src), "Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(f.Args, map[string]string{"V": "1.2", "IMG": "golang:1.26"}) {
		t.Errorf("global args %v", f.Args)
	}
	if len(f.Stages) != 2 || f.Stages[0].Image != "${IMG}" || f.Stages[0].Name != "build" || f.Stages[1].Image != "scratch" {
		t.Fatalf("stages %+v", f.Stages)
	}
	ins := f.Stages[0].Instructions
	want := []Instruction{
		{Line: 6, Cmd: "ENV", Flags: map[string]string{}, Args: []string{"A=/x", `B="/y"`}},
		{Line: 8, Cmd: "RUN", Flags: map[string]string{}, Args: []string{"apt-get update   && echo ok"}},
		{Line: 11, Cmd: "COPY", Flags: map[string]string{"from": "build", "chmod": "755"}, Args: []string{"a", "b/", "/dst/"}},
		{Line: 12, Cmd: "RUN", Flags: map[string]string{}, Args: []string{"sh", "-c", "echo json"}, JSON: true},
		{Line: 13, Cmd: "RUN", Flags: map[string]string{}, Args: []string{"[not json"}},
	}
	if !reflect.DeepEqual(ins, want) {
		t.Errorf("instructions\n%+v\nwant\n%+v", ins, want)
	}
	if env := f.Stages[0].Env(); env["A"] != "/x" || env["B"] != "/y" {
		t.Errorf("Env %v", env)
	}
	if env := f.Stages[1].Env(); env["C"] != "1 2" {
		t.Errorf("legacy ENV form: %v", env)
	}
	if f.Stage("build") != &f.Stages[0] || f.Stage("nope") != nil {
		t.Error("Stage by name")
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"", "no FROM"},
		{"# comment only\n", "no FROM"},
		{"# escape=`\nFROM x\n", "line 1: parser directive"},
		{"# syntax=docker/dockerfile:1\nFROM x\n", "line 1: parser directive"},
		{"FROM x\nRUN <<EOF\necho\nEOF\n", "line 2: here-documents"},
		{"FROM x\nFETCH y\n", `line 2: unknown instruction "FETCH"`},
		{"RUN echo\nFROM x\n", "line 1: RUN before the first FROM"},
		{"FROM x\nRUN echo \\\n", "line 2: the instruction continued by a backslash never ends"},
		{"FROM x\nCOPY\n", "line 2: COPY without arguments"},
		{"FROM x\nCOPY -- a b\n", "empty flag"},
		{"FROM a b\n", "want FROM IMAGE [AS NAME]"},
	} {
		_, err := Parse(strings.NewReader(tc.src), "Dockerfile")
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "Dockerfile") {
			t.Errorf("Parse(%q) = %v; want an error naming the file and %q", tc.src, err, tc.want)
		}
	}
	// A << that starts no here-document, and a directive after the
	// first instruction (a comment then).
	if _, err := Parse(strings.NewReader("FROM x\nRUN echo 'a<<b' && test 1 -lt 2 && echo $((1<<2))\n# escape=`\n"), "D"); err != nil {
		t.Errorf("no here-document: %v", err)
	}
}

func TestExpand(t *testing.T) {
	vars := map[string]string{"A": "1", "B_2": "two"}
	for _, tc := range []struct{ in, want, err string }{
		{"x${A}y", "x1y", ""},
		{"$A/$B_2", "1/two", ""},
		{"no vars $", "no vars $", ""},
		{"${C}", "", "$C is not defined"},
		{"${A", "", "without }"},
	} {
		got, err := Expand(tc.in, vars)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("Expand(%q) = %q, %v; want error %q", tc.in, got, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("Expand(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add("ARG V=1\nFROM a:${V} AS b\nRUN x \\\n && y\nCOPY --from=b /a /b\n")
	f.Add("FROM x\nRUN [\"a\", \"b\"]\nENV K V\n")
	f.Add("# escape=`\nFROM x")
	f.Add("FROM x\nRUN <<EOF\n")
	f.Fuzz(func(t *testing.T, src string) {
		file, err := Parse(strings.NewReader(src), "D")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "D") {
				t.Fatalf("error %q does not name the file", err)
			}
			return
		}
		if len(file.Stages) == 0 {
			t.Fatal("parsed without a stage")
		}
		for _, st := range file.Stages {
			st.Env()
			for _, in := range st.Instructions {
				if in.Line < 1 || !known[in.Cmd] || len(in.Args) == 0 {
					t.Fatalf("instruction %+v", in)
				}
			}
			Expand(st.Image, file.Args)
		}
	})
}
