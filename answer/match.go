package answer

import (
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Mode is how answers are matched against passages.
type Mode int

const (
	// String is DPR's token-sequence match (match_type "string").
	String Mode = iota
	// Regex treats each answer as a Python-style regular expression
	// (CuratedTREC).
	Regex
	// Substring matches whitespace-free, lower-cased NFD forms.
	Substring
)

var modeNames = []string{"string", "regex", "substring"}

// String returns the mode's name as the CLI spells it.
func (m Mode) String() string {
	if m >= 0 && int(m) < len(modeNames) {
		return modeNames[m]
	}
	return fmt.Sprintf("Mode(%d)", int(m))
}

// ParseMode returns the mode named s: "string" (or "token"), "regex" or
// "substring".
func ParseMode(s string) (Mode, error) {
	switch s {
	case "string", "token":
		return String, nil
	case "regex":
		return Regex, nil
	case "substring":
		return Substring, nil
	}
	return 0, fmt.Errorf("unknown match mode %q (accepted: string, regex, substring)", s)
}

// PatternError is a Regex-mode answer that RE2 cannot compile.
type PatternError struct {
	QueryID string
	Pattern string
	Err     error
}

func (e *PatternError) Error() string {
	return fmt.Sprintf("question %q: answer pattern %q: %v (RE2 has no backreferences or lookaround; rewrite the pattern)", e.QueryID, e.Pattern, e.Err)
}

func (e *PatternError) Unwrap() error { return e.Err }

// Matcher decides whether a passage holds one of a question's answers.
type Matcher struct {
	mode  Mode
	forms []string // String and Substring modes: non-empty answer forms
	res   []*regexp.Regexp
}

// NewMatcher compiles the answers of question queryID for mode. Answers
// whose normalised form is empty are left out (they never match); Empty
// reports when none is left. In Regex mode a pattern RE2 cannot compile is
// a *PatternError.
func NewMatcher(queryID string, answers []string, mode Mode) (*Matcher, error) {
	m := &Matcher{mode: mode}
	for _, a := range answers {
		switch mode {
		case String:
			if f := tokenForm(a); f != "" {
				m.forms = append(m.forms, f)
			}
		case Substring:
			if f := substringForm(a); f != "" {
				m.forms = append(m.forms, f)
			}
		case Regex:
			if substringForm(a) == "" {
				continue
			}
			re, err := CompilePattern(a)
			if err != nil {
				return nil, &PatternError{QueryID: queryID, Pattern: a, Err: err}
			}
			m.res = append(m.res, re)
		default:
			return nil, fmt.Errorf("unknown match mode %d", int(mode))
		}
	}
	return m, nil
}

// Empty reports whether the matcher has no usable answer: it matches
// nothing.
func (m *Matcher) Empty() bool { return len(m.forms) == 0 && len(m.res) == 0 }

// Match reports whether text holds one of the answers. It normalises text
// on every call; TopK normalises each passage once instead.
func (m *Matcher) Match(text string) bool {
	switch m.mode {
	case String:
		return m.matchForm(tokenForm(text))
	case Substring:
		return m.matchForm(substringForm(text))
	default:
		return m.matchNFD(nfd(text))
	}
}

// matchForm matches a passage's String or Substring form.
func (m *Matcher) matchForm(form string) bool {
	for _, f := range m.forms {
		if strings.Contains(form, f) {
			return true
		}
	}
	return false
}

// matchNFD matches a passage's NFD text in Regex mode.
func (m *Matcher) matchNFD(text string) bool {
	for _, re := range m.res {
		if re.MatchString(text) {
			return true
		}
	}
	return false
}

// HasAnswer reports whether text holds one of answers under mode, as DPR's
// has_answer does (except that empty answers never match).
func HasAnswer(answers []string, text string, mode Mode) (bool, error) {
	m, err := NewMatcher("", answers, mode)
	if err != nil {
		return false, err
	}
	return m.Match(text), nil
}

func nfd(s string) string {
	if !isNFDFast(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
		return norm.NFD.String(s)
	}
	return s
}

// isNFDFast reports whether s is ASCII (and so already NFD).
func isNFDFast(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// CompilePattern compiles a Python-style answer pattern as Regex mode
// does: NFD-normalised, case-insensitive, multi-line, with \s made
// Unicode-aware (see the package documentation).
func CompilePattern(pattern string) (*regexp.Regexp, error) {
	return regexp.Compile("(?im)" + unicodeSpaces(nfd(literalEscapes(pattern))))
}

// literalEscapes drops the backslash before a non-ASCII character: Python
// reads "\–" as a literal "–", RE2 refuses it. It runs before NFD, so
// that "\ě" stays the letter ě (Python, after DPR's NFD, would see the
// unknown escape "\e" and refuse the pattern).
func literalEscapes(p string) string {
	if !strings.Contains(p, `\`) {
		return p
	}
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		if p[i] == '\\' && i+1 < len(p) {
			if p[i+1] >= utf8.RuneSelf {
				continue // drop the backslash, keep the character
			}
			b.WriteByte('\\')
			b.WriteByte(p[i+1])
			i++
			continue
		}
		b.WriteByte(p[i])
	}
	return b.String()
}

// pySpace is Python's \s for str patterns, as an RE2 class body.
const pySpace = `\t\n\v\f\r\x{1c}-\x{1f}\x{85}\p{Z}`

// unicodeSpaces rewrites \s and \S (outside and inside brackets) to
// Python's Unicode whitespace. Inside a bracket \S cannot be expressed and
// is left to RE2. Everything else is copied unchanged.
func unicodeSpaces(p string) string {
	if !strings.Contains(p, `\s`) && !strings.Contains(p, `\S`) {
		return p
	}
	var b strings.Builder
	inClass := false
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '\\' && i+1 < len(p):
			next := p[i+1]
			switch {
			case next == 's' && inClass:
				b.WriteString(pySpace)
			case next == 's':
				b.WriteString("[" + pySpace + "]")
			case next == 'S' && !inClass:
				b.WriteString("[^" + pySpace + "]")
			default:
				b.WriteByte(c)
				b.WriteByte(next)
			}
			i++
			continue
		case c == '[' && !inClass:
			inClass = true
			b.WriteByte(c)
			// A ']' right after '[' or '[^' is a literal.
			if i+1 < len(p) && p[i+1] == '^' {
				b.WriteByte('^')
				i++
			}
			if i+1 < len(p) && p[i+1] == ']' {
				b.WriteByte(']')
				i++
			}
			continue
		case c == ']' && inClass:
			inClass = false
		}
		b.WriteByte(c)
	}
	return b.String()
}
