// Package regex implements regular expressions with the syntax and the
// matching rules of Oniguruma (Ruby syntax, UTF-8, Unicode classes): a
// backtracking matcher, so alternatives are tried in order and lookahead,
// lookbehind, atomic groups, lazy and possessive quantifiers work as in
// Oniguruma and in Python's re. It is the one regular-expression engine of
// dreval: the tokenizers' Split pre-tokenizer and Replace normalizer (whose
// reference runs Oniguruma) and DPR's answer patterns (whose reference runs
// Python's re) both use it, each with its own Unicode tables for \s, \d,
// \w, \p{L} and \p{N} (Classes). Go's regexp cannot serve: it lacks
// lookaround, and its \s, \d, \w and \b are ASCII-only. Find and Split
// backtrack, as the references do, within a step budget; Search, which
// only asks whether a match exists, runs an automaton in linear time
// (automaton.go) unless the pattern has lookaround, atomic groups or
// possessive quantifiers.
//
// Supported: literals and escapes (\t \n \r \f \v \a \e \xHH \x{H...}
// \uHHHH \0oo), . ^ $ \A \z \Z \b \B, classes [...] with ranges, negation,
// nesting, && intersection, POSIX brackets and \s \S \d \D \w \W \h \H
// \p{..} \P{..} (general categories and scripts), groups (...) (?:...)
// (?i:...) (?i) (?-i) (?>...) (?=...) (?!...) (?<=...) (?<!...)
// (?<name>...), quantifiers * + ? {n} {n,} {,m} {n,m} with lazy ? and
// possessive + forms. Backreferences and \K, \R, \X, \G are refused.
// ^ and $ match at every line's start and end, and . matches any
// character but \n, as in Ruby (and in Python with re.MULTILINE).
package regex

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// Classes are the Unicode tables of a pattern's character classes: each
// reference an engine follows (Oniguruma, Python's re) has its own.
type Classes struct {
	Space  func(rune) bool // \s, [[:space:]]
	Digit  func(rune) bool // \d, [[:digit:]]
	Word   func(rune) bool // \w, [[:word:]], and the word boundaries \b \B
	Letter func(rune) bool // \p{L}
	Number func(rune) bool // \p{N}
}

// Regexp is a compiled regular expression. It is safe for concurrent use.
type Regexp struct {
	src     string
	root    *rnode
	classes *Classes

	autoOnce sync.Once
	auto     *automaton // nil: the pattern needs backtracking
}

// String returns the source of the pattern.
func (re *Regexp) String() string { return re.src }

// Span is one part of a text split by Split: a match, or the text between
// two matches. Start and End are byte offsets.
type Span struct {
	Start, End int32
	Match      bool
}

// ErrBacktrackLimit is the error of Search when a pattern backtracks past
// the step budget (see MaxSteps).
var ErrBacktrackLimit = errors.New("the pattern backtracks too much (more than 10,000,000 steps)")

type rop uint8

const (
	rEmpty rop = iota
	rChar
	rClass
	rAny
	rConcat
	rAlt
	rRepeat
	rBOL
	rEOL
	rBOT
	rEOT
	rEOTNL
	rWordB
	rNotWordB
	rLookahead
	rLookbehind
	rAtomic
)

type rnode struct {
	op         rop
	r          rune
	fold       bool
	class      *rclass
	subs       []*rnode
	min, max   int // max -1: unbounded
	lazy       bool
	possessive bool
	neg        bool // negative lookaround
}

// Compile parses pattern; its classes follow c, and those c leaves nil
// (or all, when c is nil) follow Go's unicode tables.
func Compile(pattern string, c *Classes) (*Regexp, error) {
	c = withDefaults(c)
	p := &rparser{src: pattern, classes: c}
	n, err := p.alt(false)
	if err != nil {
		return nil, fmt.Errorf("regular expression %q: %v", pattern, err)
	}
	if p.pos < len(p.src) {
		return nil, fmt.Errorf("regular expression %q: unmatched ) at byte %d", pattern, p.pos)
	}
	return &Regexp{src: pattern, root: n, classes: c}, nil
}

// Literal returns the pattern that matches s literally.
func Literal(s string) *Regexp {
	var subs []*rnode
	for _, r := range s {
		subs = append(subs, &rnode{op: rChar, r: r})
	}
	return &Regexp{src: s, root: &rnode{op: rConcat, subs: subs}, classes: withDefaults(nil)}
}

type rparser struct {
	src     string
	pos     int
	fold    bool
	classes *Classes
}

func (p *rparser) errorf(format string, args ...any) error {
	return fmt.Errorf("at byte %d: %s", p.pos, fmt.Sprintf(format, args...))
}

func (p *rparser) more() bool { return p.pos < len(p.src) }

func (p *rparser) peek() rune {
	r, _ := utf8.DecodeRuneInString(p.src[p.pos:])
	return r
}

func (p *rparser) next() rune {
	r, size := utf8.DecodeRuneInString(p.src[p.pos:])
	p.pos += size
	return r
}

// alt parses alternatives up to ")" (inGroup) or the end.
func (p *rparser) alt(inGroup bool) (*rnode, error) {
	saved := p.fold
	defer func() { p.fold = saved }()
	var alts []*rnode
	for {
		seq, err := p.concat()
		if err != nil {
			return nil, err
		}
		alts = append(alts, seq)
		if !p.more() {
			if inGroup {
				return nil, p.errorf("missing )")
			}
			break
		}
		if c := p.peek(); c == '|' {
			p.pos++
			continue
		} else if c == ')' {
			if !inGroup {
				return nil, p.errorf("unmatched )")
			}
			break
		}
	}
	if len(alts) == 1 {
		return alts[0], nil
	}
	return &rnode{op: rAlt, subs: alts}, nil
}

func (p *rparser) concat() (*rnode, error) {
	var subs []*rnode
	for p.more() {
		c := p.peek()
		if c == '|' || c == ')' {
			break
		}
		atom, err := p.atom()
		if err != nil {
			return nil, err
		}
		if atom == nil { // a flag group like (?i)
			continue
		}
		atom, err = p.quantifiers(atom)
		if err != nil {
			return nil, err
		}
		subs = append(subs, atom)
	}
	if len(subs) == 1 {
		return subs[0], nil
	}
	return &rnode{op: rConcat, subs: subs}, nil
}

func (p *rparser) quantifiers(atom *rnode) (*rnode, error) {
	for p.more() {
		min, max := -1, -1
		start := p.pos
		switch p.peek() {
		case '*':
			p.pos++
			min, max = 0, -1
		case '+':
			p.pos++
			min, max = 1, -1
		case '?':
			p.pos++
			min, max = 0, 1
		case '{':
			lo, hi, ok := p.interval()
			if !ok {
				p.pos = start
				return atom, nil // a literal "{"
			}
			min, max = lo, hi
		default:
			return atom, nil
		}
		if atom.op == rBOL || atom.op == rEOL || atom.op == rBOT || atom.op == rEOT || atom.op == rEOTNL || atom.op == rWordB || atom.op == rNotWordB {
			return nil, p.errorf("target of repeat operator is invalid")
		}
		n := &rnode{op: rRepeat, subs: []*rnode{atom}, min: min, max: max}
		if p.more() {
			switch p.peek() {
			case '?':
				p.pos++
				n.lazy = true
			case '+':
				if p.src[start] != '{' { // Ruby: {n,m}+ repeats the repeat
					p.pos++
					n.possessive = true
				}
			}
		}
		reduceRepeat(n)
		atom = n
	}
	return atom, nil
}

// reduceRepeat folds a greedy ?, * or + applied to a greedy ?, * or +
// into one (X** is X*, X+? is X*, ...), as Oniguruma does: the same
// matches are found in the same order, without the exponential
// backtracking of the nested loops.
func reduceRepeat(n *rnode) {
	in := n.subs[0]
	small := func(x *rnode) bool { return x.min <= 1 && (x.max == 1 || x.max == -1) }
	if in.op != rRepeat || n.lazy || n.possessive || in.lazy || in.possessive || !small(n) || !small(in) {
		return
	}
	max := 1
	if n.max == -1 || in.max == -1 {
		max = -1
	}
	n.subs, n.min, n.max = in.subs, n.min*in.min, max
}

// interval parses {n}, {n,}, {,m} or {n,m} at p.pos.
func (p *rparser) interval() (int, int, bool) {
	end := strings.IndexByte(p.src[p.pos:], '}')
	if end < 0 {
		return 0, 0, false
	}
	body := p.src[p.pos+1 : p.pos+end]
	lo, hi := 0, 0
	var err error
	if a, b, comma := strings.Cut(body, ","); comma {
		if a == "" && b == "" {
			return 0, 0, false
		}
		if a != "" {
			if lo, err = strconv.Atoi(a); err != nil || lo < 0 {
				return 0, 0, false
			}
		}
		hi = -1
		if b != "" {
			if hi, err = strconv.Atoi(b); err != nil || hi < lo {
				return 0, 0, false
			}
		}
	} else {
		if lo, err = strconv.Atoi(body); err != nil || lo < 0 {
			return 0, 0, false
		}
		hi = lo
	}
	if lo > 1000 || hi > 1000 {
		return 0, 0, false
	}
	p.pos += end + 1
	return lo, hi, true
}

func (p *rparser) atom() (*rnode, error) {
	c := p.next()
	switch c {
	case '(':
		return p.group()
	case '[':
		cl, err := p.class()
		if err != nil {
			return nil, err
		}
		return &rnode{op: rClass, class: cl, fold: p.fold}, nil
	case '.':
		return &rnode{op: rAny}, nil
	case '^':
		return &rnode{op: rBOL}, nil
	case '$':
		return &rnode{op: rEOL}, nil
	case '\\':
		return p.escape()
	case '*', '+', '?':
		return nil, p.errorf("target of repeat operator is not specified")
	}
	return &rnode{op: rChar, r: c, fold: p.fold}, nil
}

func (p *rparser) group() (*rnode, error) {
	if !strings.HasPrefix(p.src[p.pos:], "?") {
		return p.groupBody(&rnode{op: rConcat})
	}
	p.pos++
	switch {
	case strings.HasPrefix(p.src[p.pos:], ":"):
		p.pos++
		return p.groupBody(nil)
	case strings.HasPrefix(p.src[p.pos:], ">"):
		p.pos++
		return p.groupBody(&rnode{op: rAtomic})
	case strings.HasPrefix(p.src[p.pos:], "="):
		p.pos++
		return p.groupBody(&rnode{op: rLookahead})
	case strings.HasPrefix(p.src[p.pos:], "!"):
		p.pos++
		return p.groupBody(&rnode{op: rLookahead, neg: true})
	case strings.HasPrefix(p.src[p.pos:], "<="):
		p.pos += 2
		return p.groupBody(&rnode{op: rLookbehind})
	case strings.HasPrefix(p.src[p.pos:], "<!"):
		p.pos += 2
		return p.groupBody(&rnode{op: rLookbehind, neg: true})
	case strings.HasPrefix(p.src[p.pos:], "<"), strings.HasPrefix(p.src[p.pos:], "'"):
		close := byte('>')
		if p.src[p.pos] == '\'' {
			close = '\''
		}
		end := strings.IndexByte(p.src[p.pos+1:], close)
		if end < 0 {
			return nil, p.errorf("invalid group name")
		}
		p.pos += end + 2
		return p.groupBody(nil)
	case strings.HasPrefix(p.src[p.pos:], "#"):
		end := strings.IndexByte(p.src[p.pos:], ')')
		if end < 0 {
			return nil, p.errorf("end pattern in group")
		}
		p.pos += end + 1
		return &rnode{op: rEmpty}, nil
	}
	// Flags: (?imx-imx) or (?imx-imx:...).
	on := true
	fold := p.fold
	for p.more() {
		switch c := p.next(); c {
		case 'i':
			fold = on
		case 'm', 'x':
			return nil, p.errorf("option %q is not supported", c)
		case '-':
			on = false
		case ')':
			p.fold = fold // applies to the rest of the enclosing group
			return nil, nil
		case ':':
			saved := p.fold
			p.fold = fold
			n, err := p.groupBody(nil)
			p.fold = saved
			return n, err
		default:
			return nil, p.errorf("undefined group option %q", c)
		}
	}
	return nil, p.errorf("end pattern in group")
}

// groupBody parses up to the closing ")" and wraps the result in wrap (nil:
// a plain group).
func (p *rparser) groupBody(wrap *rnode) (*rnode, error) {
	n, err := p.alt(true)
	if err != nil {
		return nil, err
	}
	p.pos++ // ")"
	if wrap == nil || wrap.op == rConcat && len(wrap.subs) == 0 {
		return n, nil
	}
	wrap.subs = []*rnode{n}
	return wrap, nil
}

// escape parses the escape after a backslash outside a class.
func (p *rparser) escape() (*rnode, error) {
	if !p.more() {
		return nil, p.errorf("end pattern at escape")
	}
	c := p.peek()
	switch c {
	case 'A':
		p.pos++
		return &rnode{op: rBOT}, nil
	case 'z':
		p.pos++
		return &rnode{op: rEOT}, nil
	case 'Z':
		p.pos++
		return &rnode{op: rEOTNL}, nil
	case 'b':
		p.pos++
		return &rnode{op: rWordB}, nil
	case 'B':
		p.pos++
		return &rnode{op: rNotWordB}, nil
	case 'K', 'R', 'X', 'G', 'g', 'k', 'N', 'O', 'y', 'Y':
		return nil, p.errorf(`\%c is not supported`, c)
	}
	if c >= '1' && c <= '9' {
		return nil, p.errorf("backreferences are not supported")
	}
	cl, r, err := p.escapeItem()
	if err != nil {
		return nil, err
	}
	if cl != nil {
		return &rnode{op: rClass, class: cl, fold: p.fold}, nil
	}
	return &rnode{op: rChar, r: r, fold: p.fold}, nil
}

// escapeItem parses an escape (after the backslash) that is a character or
// a class shorthand, in or out of a bracket class.
func (p *rparser) escapeItem() (*rclass, rune, error) {
	c := p.next()
	switch c {
	case 's', 'S', 'd', 'D', 'w', 'W', 'h', 'H':
		cl := &rclass{props: []rprop{p.propOf(unicode.ToLower(c))}, neg: unicode.IsUpper(c)}
		return cl, 0, nil
	case 'p', 'P':
		neg := c == 'P'
		if !strings.HasPrefix(p.src[p.pos:], "{") {
			return nil, 0, p.errorf(`invalid \%c`, c)
		}
		end := strings.IndexByte(p.src[p.pos:], '}')
		if end < 0 {
			return nil, 0, p.errorf("invalid character property name")
		}
		name := p.src[p.pos+1 : p.pos+end]
		p.pos += end + 1
		if strings.HasPrefix(name, "^") {
			neg = !neg
			name = name[1:]
		}
		pr, ok := p.namedProp(name)
		if !ok {
			return nil, 0, p.errorf("invalid character property name {%s}", name)
		}
		return &rclass{props: []rprop{pr}, neg: neg}, 0, nil
	case 't':
		return nil, '\t', nil
	case 'n':
		return nil, '\n', nil
	case 'r':
		return nil, '\r', nil
	case 'f':
		return nil, '\f', nil
	case 'v':
		return nil, '\v', nil
	case 'a':
		return nil, '\a', nil
	case 'e':
		return nil, 0x1b, nil
	case 'x':
		if strings.HasPrefix(p.src[p.pos:], "{") {
			end := strings.IndexByte(p.src[p.pos:], '}')
			if end < 0 {
				return nil, 0, p.errorf("invalid code point value")
			}
			v, err := strconv.ParseUint(strings.TrimSpace(p.src[p.pos+1:p.pos+end]), 16, 32)
			if err != nil || v > unicode.MaxRune {
				return nil, 0, p.errorf("invalid code point value")
			}
			p.pos += end + 1
			return nil, rune(v), nil
		}
		return nil, p.hex(2), nil
	case 'u':
		if p.pos+4 > len(p.src) {
			return nil, 0, p.errorf(`too short \u`)
		}
		v, err := strconv.ParseUint(p.src[p.pos:p.pos+4], 16, 32)
		if err != nil {
			return nil, 0, p.errorf(`invalid \u`)
		}
		p.pos += 4
		return nil, rune(v), nil
	case '0':
		v := 0
		for i := 0; i < 2 && p.more() && p.peek() >= '0' && p.peek() <= '7'; i++ {
			v = v*8 + int(p.next()-'0')
		}
		return nil, rune(v), nil
	}
	if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
		return nil, 0, p.errorf(`\%c is not supported`, c)
	}
	return nil, c, nil
}

// hex reads up to n hexadecimal digits.
func (p *rparser) hex(n int) rune {
	v := rune(0)
	for i := 0; i < n && p.more(); i++ {
		c := p.peek()
		d := strings.IndexRune("0123456789abcdef", unicode.ToLower(c))
		if d < 0 {
			break
		}
		p.pos++
		v = v*16 + rune(d)
	}
	return v
}

// posixName reports whether s can name a POSIX bracket ([:alpha:], [:^digit:]):
// letters after an optional "^". Anything else after "[:" opens a nested class.
func posixName(s string) bool {
	s = strings.TrimPrefix(s, "^")
	if s == "" || len(s) > 20 {
		return false
	}
	for _, c := range s {
		if c < 'a' || c > 'z' {
			if c < 'A' || c > 'Z' {
				return false
			}
		}
	}
	return true
}

// class parses a bracket class after its "[".
func (p *rparser) class() (*rclass, error) {
	cl := &rclass{}
	if strings.HasPrefix(p.src[p.pos:], "^") {
		p.pos++
		cl.neg = true
	}
	first := true
	for {
		if !p.more() {
			return nil, p.errorf("premature end of char-class")
		}
		if p.src[p.pos] == ']' && !first {
			p.pos++
			return cl, nil
		}
		first = false
		if strings.HasPrefix(p.src[p.pos:], "&&") {
			p.pos += 2
			rest, err := p.classRest()
			if err != nil {
				return nil, err
			}
			left := &rclass{ranges: cl.ranges, props: cl.props, subs: cl.subs, and: cl.and}
			return &rclass{neg: cl.neg, and: []*rclass{left, rest}}, nil
		}
		if strings.HasPrefix(p.src[p.pos:], "[:") {
			if end := strings.Index(p.src[p.pos+2:], ":]"); end >= 0 && posixName(p.src[p.pos+2:p.pos+2+end]) {
				name := p.src[p.pos+2 : p.pos+2+end]
				neg := strings.HasPrefix(name, "^")
				pr, ok := p.posixProp(strings.TrimPrefix(name, "^"))
				if !ok {
					return nil, p.errorf("invalid POSIX bracket type %q", name)
				}
				p.pos += end + 4
				cl.subs = append(cl.subs, &rclass{props: []rprop{pr}, neg: neg})
				continue
			}
		}
		if p.src[p.pos] == '[' {
			p.pos++
			sub, err := p.class()
			if err != nil {
				return nil, err
			}
			cl.subs = append(cl.subs, sub)
			continue
		}
		lo, sub, err := p.classAtom()
		if err != nil {
			return nil, err
		}
		if sub != nil {
			cl.subs = append(cl.subs, sub)
			continue
		}
		hi := lo
		if strings.HasPrefix(p.src[p.pos:], "-") && p.pos+1 < len(p.src) && p.src[p.pos+1] != ']' {
			p.pos++
			h, sub, err := p.classAtom()
			if err != nil {
				return nil, err
			}
			if sub != nil {
				return nil, p.errorf("char-class value at end of range")
			}
			if h < lo {
				return nil, p.errorf("empty range in char class")
			}
			hi = h
		}
		cl.ranges = append(cl.ranges, runeRange{lo, hi})
	}
}

// classRest parses the right side of && up to the class's "]".
func (p *rparser) classRest() (*rclass, error) {
	// The right side is itself the body of a class ending at "]".
	return p.class()
}

func (p *rparser) classAtom() (rune, *rclass, error) {
	c := p.next()
	if c != '\\' {
		return c, nil, nil
	}
	if !p.more() {
		return 0, nil, p.errorf("end pattern at escape")
	}
	if c := p.peek(); c == 'b' {
		p.pos++
		return '\b', nil, nil
	}
	cl, r, err := p.escapeItem()
	return r, cl, err
}

// rclass is a character class.
type rclass struct {
	neg    bool
	ranges []runeRange
	props  []rprop
	subs   []*rclass // union
	and    []*rclass // intersection (when set, the class is their intersection)
}

type rprop func(rune) bool

func (c *rclass) has(r rune) bool {
	in := false
	if len(c.and) > 0 {
		in = true
		for _, a := range c.and {
			if !a.has(r) {
				in = false
				break
			}
		}
	} else {
		for _, rr := range c.ranges {
			if r >= rr.lo && r <= rr.hi {
				in = true
				break
			}
		}
		if !in {
			for _, pr := range c.props {
				if pr(r) {
					in = true
					break
				}
			}
		}
		if !in {
			for _, s := range c.subs {
				if s.has(r) {
					in = true
					break
				}
			}
		}
	}
	return in != c.neg
}

// hasFold reports whether r or a character of its case-folding orbit is in c.
func (c *rclass) hasFold(r rune) bool {
	if c.has(r) {
		return true
	}
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		if c.has(f) {
			return true
		}
	}
	return false
}

func (p *rparser) propOf(c rune) rprop {
	switch c {
	case 's':
		return p.classes.Space
	case 'd':
		return p.classes.Digit
	case 'w':
		return p.classes.Word
	}
	return func(r rune) bool { return r >= '0' && r <= '9' || r >= 'a' && r <= 'f' || r >= 'A' && r <= 'F' }
}

// namedProp returns the class \p{name}: a general category (L, Lu, ...; N,
// Nd, ...), a script (Han, Latin, ...), or one of Alpha, Digit, Space,
// Word, Alnum, Upper, Lower, Punct, Any, ASCII.
func (p *rparser) namedProp(name string) (rprop, bool) {
	n := strings.ReplaceAll(strings.ReplaceAll(name, "_", ""), " ", "")
	switch n {
	case "L", "Letter":
		return p.classes.Letter, true
	case "N", "Number":
		return p.classes.Number, true
	case "Any":
		return func(rune) bool { return true }, true
	case "ASCII":
		return func(r rune) bool { return r < utf8.RuneSelf }, true
	}
	if pr, ok := p.posixProp(strings.ToLower(n)); ok {
		return pr, true
	}
	for _, c := range categories {
		if strings.EqualFold(c.name, n) {
			t := c.table
			return func(r rune) bool { return unicode.Is(t, r) }, true
		}
	}
	for _, s := range scripts {
		if strings.EqualFold(strings.ReplaceAll(s.name, "_", ""), n) {
			t := s.table
			return func(r rune) bool { return unicode.Is(t, r) }, true
		}
	}
	return nil, false
}

func (p *rparser) posixProp(name string) (rprop, bool) {
	switch name {
	case "alpha":
		return func(r rune) bool { return unicode.IsLetter(r) || unicode.Is(unicode.Other_Alphabetic, r) }, true
	case "digit":
		return p.classes.Digit, true
	case "alnum":
		return func(r rune) bool {
			return unicode.IsLetter(r) || unicode.Is(unicode.Other_Alphabetic, r) || unicode.Is(unicode.Nd, r)
		}, true
	case "space":
		return p.classes.Space, true
	case "word":
		return p.classes.Word, true
	case "upper":
		return unicode.IsUpper, true
	case "lower":
		return unicode.IsLower, true
	case "punct":
		return unicode.IsPunct, true
	case "xdigit":
		return p.propOf('h'), true
	case "cntrl":
		return unicode.IsControl, true
	case "blank":
		return func(r rune) bool { return r == '\t' || unicode.Is(unicode.Zs, r) }, true
	}
	return nil, false
}

// matches are searched with a continuation-passing backtracking matcher.
type rmatch struct {
	b     []byte
	steps int
	word  func(rune) bool
}

// maxSteps bounds the work of one search, as Oniguruma bounds its
// backtracking (retry-limit-in-match, ten million): a pattern that
// backtracks catastrophically stops rather than running for ever.
const maxSteps = 10_000_000

// Find returns the leftmost match at or after byte from of b. A search
// that stops at the step budget finds nothing, as Oniguruma's search does
// (Search says so instead).
func (re *Regexp) Find(b []byte, from int) (start, end int, ok bool) {
	start, end, ok, _ = re.find(b, from)
	return start, end, ok
}

// Search reports whether b holds a match of re, as Python's re.search
// does. A pattern without lookaround, atomic groups or possessive
// quantifiers is searched by an automaton (automaton.go), in time linear
// in len(b); the others by backtracking, which fails with
// ErrBacktrackLimit when the step budget ran out before a match was
// found: then neither answer is known.
func (re *Regexp) Search(b []byte) (bool, error) {
	if a := re.automaton(); a != nil {
		return a.search(b, re.classes.Word), nil
	}
	return re.backtrackSearch(b)
}

// backtrackSearch is Search by backtracking.
func (re *Regexp) backtrackSearch(b []byte) (bool, error) {
	_, _, ok, over := re.find(b, 0)
	if over {
		return false, ErrBacktrackLimit
	}
	return ok, nil
}

// find returns the leftmost match at or after from, and whether the search
// stopped at the step budget.
func (re *Regexp) find(b []byte, from int) (start, end int, ok, over bool) {
	m := rmatch{b: b, word: re.classes.Word}
	for s := from; s <= len(b); {
		end := -1
		if m.match(re.root, s, func(e int) bool { end = e; return true }) {
			return s, end, true, false
		}
		if m.steps > maxSteps {
			return 0, 0, false, true
		}
		if s == len(b) {
			break
		}
		_, size := utf8.DecodeRune(b[s:])
		s += size
	}
	return 0, 0, false, false
}

// Split appends the matches of re in b and the text between them, covering
// b, as the reference's find_matches does with Oniguruma's find_iter: the
// search resumes after each match (one character further after an empty
// one), and an empty match where the previous match ended is skipped.
func (re *Regexp) Split(b []byte, dst []Span) []Span {
	prev, last := 0, 0
	prevEnd := -1
	for last <= len(b) {
		s, e, ok, _ := re.find(b, last)
		if !ok {
			break
		}
		last = e
		if e == s {
			if last < len(b) {
				_, size := utf8.DecodeRune(b[last:])
				last += size
			} else {
				last++
			}
			if e == prevEnd {
				continue
			}
		}
		prevEnd = e
		if prev != s {
			dst = append(dst, Span{int32(prev), int32(s), false})
		}
		dst = append(dst, Span{int32(s), int32(e), true})
		prev = e
	}
	if prev != len(b) {
		dst = append(dst, Span{int32(prev), int32(len(b)), false})
	}
	return dst
}

func (m *rmatch) decode(pos int) (rune, int) {
	if pos >= len(m.b) {
		return 0, 0
	}
	if c := m.b[pos]; c < utf8.RuneSelf {
		return rune(c), 1
	}
	return utf8.DecodeRune(m.b[pos:])
}

func (m *rmatch) decodeLast(pos int) (rune, int) {
	if pos <= 0 {
		return 0, 0
	}
	return utf8.DecodeLastRune(m.b[:pos])
}

func foldEq(a, b rune) bool {
	if a == b {
		return true
	}
	for f := unicode.SimpleFold(a); f != a; f = unicode.SimpleFold(f) {
		if f == b {
			return true
		}
	}
	return false
}

func (m *rmatch) isWordAt(pos int) bool {
	r, n := m.decode(pos)
	return n > 0 && m.word(r)
}

func (m *rmatch) isWordBefore(pos int) bool {
	r, n := m.decodeLast(pos)
	return n > 0 && m.word(r)
}

// match reports whether n matches at pos with the rest of the pattern (k)
// matching after it.
func (m *rmatch) match(n *rnode, pos int, k func(int) bool) bool {
	if m.steps++; m.steps > maxSteps {
		return false
	}
	switch n.op {
	case rEmpty:
		return k(pos)
	case rChar, rClass, rAny:
		r, size := m.decode(pos)
		if size == 0 || !n.accepts(r) {
			return false
		}
		return k(pos + size)
	case rConcat:
		return m.seq(n.subs, 0, pos, k)
	case rAlt:
		for _, s := range n.subs {
			if m.match(s, pos, k) {
				return true
			}
		}
		return false
	case rRepeat:
		if n.possessive {
			end := m.greedyAtomic(n, pos)
			return end >= 0 && k(end)
		}
		return m.repeat(n, 0, pos, k)
	case rBOL, rEOL, rBOT, rEOT, rEOTNL, rWordB, rNotWordB:
		return m.holds(n, pos) && k(pos)
	case rLookahead:
		ok := m.match(n.subs[0], pos, func(int) bool { return true })
		if ok != n.neg {
			return k(pos)
		}
		return false
	case rLookbehind:
		ok := false
		for s := pos; s >= 0; {
			if m.match(n.subs[0], s, func(e int) bool { return e == pos }) {
				ok = true
				break
			}
			if s == 0 {
				break
			}
			_, size := m.decodeLast(s)
			s -= size
		}
		if ok != n.neg {
			return k(pos)
		}
		return false
	case rAtomic:
		end := -1
		if !m.match(n.subs[0], pos, func(e int) bool { end = e; return true }) {
			return false
		}
		return k(end)
	}
	return false
}

// accepts reports whether a character node (rChar, rClass, rAny) matches r.
func (n *rnode) accepts(r rune) bool {
	switch n.op {
	case rChar:
		return r == n.r || n.fold && foldEq(r, n.r)
	case rClass:
		if n.fold {
			return n.class.hasFold(r)
		}
		return n.class.has(r)
	}
	return r != '\n' // rAny
}

// holds reports whether the assertion n (^ $ \A \z \Z \b \B) holds at pos.
func (m *rmatch) holds(n *rnode, pos int) bool {
	switch n.op {
	case rBOL:
		return pos == 0 || m.b[pos-1] == '\n'
	case rEOL:
		return pos == len(m.b) || m.b[pos] == '\n'
	case rBOT:
		return pos == 0
	case rEOT:
		return pos == len(m.b)
	case rEOTNL:
		return pos == len(m.b) || pos == len(m.b)-1 && m.b[pos] == '\n'
	}
	at := m.isWordBefore(pos) != m.isWordAt(pos)
	return at == (n.op == rWordB)
}

func (m *rmatch) seq(subs []*rnode, i, pos int, k func(int) bool) bool {
	if i == len(subs) {
		return k(pos)
	}
	return m.match(subs[i], pos, func(p int) bool { return m.seq(subs, i+1, p, k) })
}

// repeat matches n.subs[0] count or more times: greedy (as many as
// possible first) or lazy. An iteration that matches the empty string ends
// the loop, as Oniguruma's empty check does.
func (m *rmatch) repeat(n *rnode, count, pos int, k func(int) bool) bool {
	canMore := n.max < 0 || count < n.max
	more := func() bool {
		return m.match(n.subs[0], pos, func(p int) bool {
			if p == pos && count >= n.min {
				return false
			}
			return m.repeat(n, count+1, p, k)
		})
	}
	if n.lazy {
		if count >= n.min && k(pos) {
			return true
		}
		return canMore && more()
	}
	if canMore && more() {
		return true
	}
	return count >= n.min && k(pos)
}

// greedyAtomic matches a possessive repeat: as many iterations as match,
// each the first way it matches, never given back.
func (m *rmatch) greedyAtomic(n *rnode, pos int) int {
	for count := 0; n.max < 0 || count < n.max; count++ {
		end := -1
		if !m.match(n.subs[0], pos, func(e int) bool { end = e; return true }) {
			if count < n.min {
				return -1
			}
			break
		}
		if end == pos {
			break // an empty iteration satisfies the rest of the minimum
		}
		pos = end
	}
	return pos
}

type runeRange struct{ lo, hi rune }

// withDefaults returns c with its nil classes set by Go's unicode tables.
func withDefaults(c *Classes) *Classes {
	d := Classes{}
	if c != nil {
		d = *c
	}
	if d.Space == nil {
		d.Space = unicode.IsSpace
	}
	if d.Digit == nil {
		d.Digit = unicode.IsDigit
	}
	if d.Word == nil {
		d.Word = func(r rune) bool {
			return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r) || unicode.Is(unicode.Pc, r)
		}
	}
	if d.Letter == nil {
		d.Letter = unicode.IsLetter
	}
	if d.Number == nil {
		d.Number = unicode.IsNumber
	}
	return &d
}
