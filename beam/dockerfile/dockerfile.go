// Package dockerfile reads the subset of the Dockerfile format that
// dreval's worker image (beam/Dockerfile) is written in, so that tests
// can check the image's recipe against the repository without building
// it: the build stages, their instructions, and the sources and
// destinations of COPY.
//
// It follows the Dockerfile reference for what it accepts: comment lines
// (# first on a line, also inside a continued instruction), blank lines,
// lines continued by a trailing backslash, instruction keywords in any
// case, and the shell and JSON-array forms of RUN. It refuses, with the
// line, what it does not read: parser directives (# escape=, # syntax=),
// here-documents (<<EOF), and instructions it does not know.
package dockerfile

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// Instruction is one instruction of a Dockerfile.
type Instruction struct {
	// Line is the 1-based line the instruction starts on.
	Line int
	// Cmd is the keyword, upper-case: FROM, RUN, COPY, ...
	Cmd string
	// Flags are the leading --name=value options (COPY --from=build).
	Flags map[string]string
	// Args is the rest: for the shell form of RUN, CMD and ENTRYPOINT one
	// string (the command line, continuation lines joined with a space);
	// for their JSON form the array's strings (JSON true); otherwise the
	// words, split on white space.
	Args []string
	JSON bool
}

// Stage is a build stage: a FROM and the instructions up to the next.
type Stage struct {
	// Image is FROM's image (ARGs not substituted), Name its AS name.
	Image, Name  string
	Instructions []Instruction
}

// File is a parsed Dockerfile.
type File struct {
	// Args are the ARG instructions before the first FROM (the ones FROM
	// lines may use), name to default value.
	Args   map[string]string
	Stages []Stage
}

// known are the instructions the package reads.
var known = map[string]bool{
	"FROM": true, "RUN": true, "COPY": true, "ADD": true, "ENV": true, "ARG": true, "WORKDIR": true,
	"USER": true, "LABEL": true, "EXPOSE": true, "VOLUME": true, "CMD": true, "ENTRYPOINT": true,
	"SHELL": true, "STOPSIGNAL": true, "HEALTHCHECK": true, "ONBUILD": true,
}

// commandForm are the instructions whose argument is a command line.
var commandForm = map[string]bool{"RUN": true, "CMD": true, "ENTRYPOINT": true}

// Parse reads a Dockerfile from r; name labels errors ("beam/Dockerfile
// line 12: ...").
func Parse(r io.Reader, name string) (*File, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20) // lines up to 1 MiB
	f := &File{Args: map[string]string{}}
	lineNo, start := 0, 0
	var cur strings.Builder
	seenInstruction := false
	flush := func() error {
		text := strings.TrimSpace(cur.String())
		cur.Reset()
		if text == "" {
			return nil
		}
		in, err := parseInstruction(text, start)
		if err != nil {
			return fmt.Errorf("%s line %d: %w", name, start, err)
		}
		seenInstruction = true
		return f.add(in, name)
	}
	continued := false
	for sc.Scan() {
		lineNo++
		line := sc.Text()
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "#") {
			if !seenInstruction && !continued && isDirective(trimmed) {
				return nil, fmt.Errorf("%s line %d: parser directive %q: not read by this package (only the default escape character, \\)", name, lineNo, trimmed)
			}
			continue // a comment, also between continued lines
		}
		if !continued {
			if trimmed == "" {
				continue
			}
			start = lineNo
		}
		if strings.Contains(line, "<<") && heredoc(line) {
			return nil, fmt.Errorf("%s line %d: here-documents (<<) are not read by this package", name, lineNo)
		}
		if body, ok := strings.CutSuffix(strings.TrimRight(line, " \t"), `\`); ok {
			cur.WriteString(body)
			cur.WriteString(" ")
			continued = true
			continue
		}
		cur.WriteString(line)
		continued = false
		if err := flush(); err != nil {
			return nil, err
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if continued {
		return nil, fmt.Errorf("%s line %d: the instruction continued by a backslash never ends", name, start)
	}
	if len(f.Stages) == 0 {
		return nil, fmt.Errorf("%s: no FROM: a Dockerfile needs a base image", name)
	}
	return f, nil
}

// isDirective reports whether a comment line is a parser directive
// (# key=value before any instruction).
func isDirective(comment string) bool {
	k, _, ok := strings.Cut(strings.TrimSpace(strings.TrimPrefix(comment, "#")), "=")
	k = strings.ToLower(strings.TrimSpace(k))
	return ok && (k == "escape" || k == "syntax" || k == "check")
}

// heredoc reports whether line starts a here-document (<<WORD or <<-WORD,
// outside quotes), which the shell form of RUN may hold.
func heredoc(line string) bool {
	quote := byte(0)
	for i := 0; i+2 < len(line); i++ {
		c := line[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '<' && line[i+1] == '<':
			rest := strings.TrimLeft(line[i+2:], "-")
			if rest != "" && (rest[0] == '"' || rest[0] == '\'' || rest[0] == '_' || 'A' <= rest[0] && rest[0] <= 'Z' || 'a' <= rest[0] && rest[0] <= 'z') {
				return true
			}
			i++
		}
	}
	return false
}

func parseInstruction(text string, line int) (Instruction, error) {
	kw, rest, _ := strings.Cut(text, " ")
	if i := strings.IndexAny(kw, "\t"); i >= 0 {
		kw, rest = kw[:i], kw[i+1:]+" "+rest
	}
	in := Instruction{Line: line, Cmd: strings.ToUpper(kw), Flags: map[string]string{}}
	if !known[in.Cmd] {
		return in, fmt.Errorf("unknown instruction %q", kw)
	}
	rest = strings.TrimSpace(rest)
	for strings.HasPrefix(rest, "--") {
		var flag string
		flag, rest, _ = strings.Cut(rest, " ")
		k, v, _ := strings.Cut(strings.TrimPrefix(flag, "--"), "=")
		if k == "" {
			return in, fmt.Errorf("%s: empty flag %q", in.Cmd, flag)
		}
		in.Flags[k] = v
		rest = strings.TrimSpace(rest)
	}
	if rest == "" {
		return in, fmt.Errorf("%s without arguments", in.Cmd)
	}
	if commandForm[in.Cmd] {
		if strings.HasPrefix(rest, "[") {
			var args []string
			if err := json.Unmarshal([]byte(rest), &args); err == nil {
				in.Args, in.JSON = args, true
				return in, nil
			}
			// Not valid JSON: Docker runs it as a shell command line.
		}
		in.Args = []string{rest}
		return in, nil
	}
	in.Args = strings.Fields(rest)
	return in, nil
}

// add appends in to f: a FROM opens a stage, an ARG before any FROM is a
// global one, other instructions need a stage.
func (f *File) add(in Instruction, name string) error {
	switch {
	case in.Cmd == "FROM":
		st := Stage{Image: in.Args[0]}
		switch {
		case len(in.Args) == 3 && strings.EqualFold(in.Args[1], "AS"):
			st.Name = in.Args[2]
		case len(in.Args) != 1:
			return fmt.Errorf("%s line %d: FROM %s: want FROM IMAGE [AS NAME]", name, in.Line, strings.Join(in.Args, " "))
		}
		f.Stages = append(f.Stages, st)
		return nil
	case in.Cmd == "ARG" && len(f.Stages) == 0:
		for _, a := range in.Args {
			k, v, _ := strings.Cut(a, "=")
			f.Args[k] = v
		}
		return nil
	case len(f.Stages) == 0:
		return fmt.Errorf("%s line %d: %s before the first FROM", name, in.Line, in.Cmd)
	}
	st := &f.Stages[len(f.Stages)-1]
	st.Instructions = append(st.Instructions, in)
	return nil
}

// Expand substitutes $NAME and ${NAME} in s from vars; an unknown name is
// an error.
func Expand(s string, vars map[string]string) (string, error) {
	var out strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '$' || i+1 == len(s) {
			out.WriteByte(s[i])
			continue
		}
		var key string
		if s[i+1] == '{' {
			end := strings.IndexByte(s[i:], '}')
			if end < 0 {
				return "", fmt.Errorf("%q: ${ without }", s)
			}
			key, i = s[i+2:i+end], i+end
		} else {
			j := i + 1
			for j < len(s) && (s[j] == '_' || 'A' <= s[j] && s[j] <= 'Z' || 'a' <= s[j] && s[j] <= 'z' || '0' <= s[j] && s[j] <= '9') {
				j++
			}
			key, i = s[i+1:j], j-1
		}
		v, ok := vars[key]
		if !ok {
			return "", fmt.Errorf("%q: $%s is not defined", s, key)
		}
		out.WriteString(v)
	}
	return out.String(), nil
}

// Stage returns the stage named name, or nil.
func (f *File) Stage(name string) *Stage {
	for i := range f.Stages {
		if f.Stages[i].Name == name {
			return &f.Stages[i]
		}
	}
	return nil
}

// Env returns the ENV values a stage sets (KEY=VALUE pairs; the legacy
// "ENV KEY VALUE" form too).
func (s *Stage) Env() map[string]string {
	env := map[string]string{}
	for _, in := range s.Instructions {
		if in.Cmd != "ENV" {
			continue
		}
		if len(in.Args) >= 2 && !strings.Contains(in.Args[0], "=") {
			env[in.Args[0]] = strings.Join(in.Args[1:], " ")
			continue
		}
		for _, a := range in.Args {
			k, v, _ := strings.Cut(a, "=")
			env[k] = strings.Trim(v, `"`)
		}
	}
	return env
}
