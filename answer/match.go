package answer

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/dreval/dreval/internal/regex"
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

// PatternError is a Regex-mode answer that cannot be compiled, or that
// backtracked past the engine's step budget on a passage.
type PatternError struct {
	QueryID string
	Pattern string
	Err     error
}

func (e *PatternError) Error() string {
	return fmt.Sprintf("question %q: answer pattern %q: %v", e.QueryID, e.Pattern, e.Err)
}

func (e *PatternError) Unwrap() error { return e.Err }

// Matcher decides whether a passage holds one of a question's answers.
type Matcher struct {
	mode  Mode
	forms []string // String and Substring modes: non-empty answer forms
	id    string   // the question's, for errors
	res   []*regex.Regexp
	pats  []string // the answers res were compiled from, for errors
}

// NewMatcher compiles the answers of question queryID for mode. Answers
// whose normalised form is empty are left out (they never match); Empty
// reports when none is left. In Regex mode a pattern that does not compile
// is a *PatternError.
func NewMatcher(queryID string, answers []string, mode Mode) (*Matcher, error) {
	m := &Matcher{mode: mode, id: queryID}
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
			m.pats = append(m.pats, a)
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
// on every call; TopK normalises each passage once instead. In Regex mode
// a pattern that backtracks past the engine's budget on text is a
// *PatternError: whether it matches is not known.
func (m *Matcher) Match(text string) (bool, error) {
	switch m.mode {
	case String:
		return m.matchForm(tokenForm(text)), nil
	case Substring:
		return m.matchForm(substringForm(text)), nil
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
func (m *Matcher) matchNFD(text string) (bool, error) {
	b := []byte(text)
	for i, re := range m.res {
		ok, err := re.Search(b)
		if err != nil {
			return false, &PatternError{QueryID: m.id, Pattern: m.pats[i], Err: err}
		}
		if ok {
			return true, nil
		}
	}
	return false, nil
}

// HasAnswer reports whether text holds one of answers under mode, as DPR's
// has_answer does (except that empty answers never match).
func HasAnswer(answers []string, text string, mode Mode) (bool, error) {
	m, err := NewMatcher("", answers, mode)
	if err != nil {
		return false, err
	}
	return m.Match(text)
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
// does: NFD-normalised, and matched as Python's re.search with
// re.IGNORECASE, re.UNICODE and re.MULTILINE (DPR's regex_match): Python's
// Unicode \s, \d and \w (so \b too), ^ and $ at every line, Python's \Z as
// the end of the text, (?P<name>...) as a named group.
func CompilePattern(pattern string) (*regex.Regexp, error) {
	p, err := pythonSyntax(nfd(literalEscapes(pattern)))
	if err != nil {
		return nil, err
	}
	return regex.Compile("(?i)"+p, pythonClasses)
}

// pythonClasses are the classes of Python's re for str patterns.
var pythonClasses = &regex.Classes{
	Space:  isPythonSpace,
	Digit:  unicode.IsDigit,
	Word:   isPythonWord,
	Letter: unicode.IsLetter,
	Number: unicode.IsNumber,
}

// isPythonSpace is Python's \s (str.isspace): the ASCII whitespace, the
// information separators U+001C-U+001F, U+0085 and the Z categories.
func isPythonSpace(r rune) bool {
	if r < utf8.RuneSelf {
		return r == ' ' || r >= '\t' && r <= '\r' || r >= 0x1c && r <= 0x1f
	}
	return r == 0x85 || unicode.In(r, unicode.Z)
}

// isPythonWord is Python's \w (str.isalnum or "_"): letters and numbers,
// but not marks, so that after NFD a combining accent ends a word.
func isPythonWord(r rune) bool {
	if r < utf8.RuneSelf {
		return r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z'
	}
	return unicode.IsLetter(r) || unicode.IsNumber(r)
}

// literalEscapes drops the backslash before a non-ASCII character: Python
// reads "\–" as a literal "–". It runs before NFD, so
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

// pythonSyntax rewrites what Python's re spells otherwise than
// Oniguruma: \Z (Python: the end of the text; Oniguruma: before a final
// newline too) becomes \z, and (?P<name> becomes (?<name>. A repeat
// {n,m} with n > m, which Oniguruma reads as literal text, is Python's
// error. Everything else is copied unchanged.
func pythonSyntax(p string) (string, error) {
	var b strings.Builder
	inClass := false
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '\\' && i+1 < len(p):
			if p[i+1] == 'Z' && !inClass {
				b.WriteString(`\z`)
			} else {
				b.WriteString(p[i : i+2])
			}
			i++
			continue
		case inClass:
			inClass = c != ']'
		case c == '[':
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
		case strings.HasPrefix(p[i:], "(?P<"):
			b.WriteString("(?<")
			i += 3
			continue
		case c == '{':
			if lo, hi, ok := interval(p[i+1:]); ok && lo > hi {
				return "", fmt.Errorf("min repeat greater than max repeat at position %d", i+1)
			}
		}
		b.WriteByte(c)
	}
	return b.String(), nil
}

// interval reads "n,m}" at the start of s.
func interval(s string) (lo, hi int, ok bool) {
	body, _, found := strings.Cut(s, "}")
	a, z, comma := strings.Cut(body, ",")
	if !found || !comma || a == "" || z == "" {
		return 0, 0, false
	}
	lo, err1 := strconv.Atoi(a)
	hi, err2 := strconv.Atoi(z)
	return lo, hi, err1 == nil && err2 == nil
}
