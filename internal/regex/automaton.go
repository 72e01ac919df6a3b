package regex

import "unicode/utf8"

// automaton is a pattern compiled to a nondeterministic automaton (a
// Thompson construction), searched by keeping the set of states every
// start position can be in (a Pike VM): whether b holds a match is found
// in time proportional to len(b) times the program's size, whatever the
// pattern, where backtracking can take time exponential (or polynomial of
// high degree: ".*a.*b.*c" on a long passage) in len(b). It decides only
// whether a match exists, which is the same for both matchers: which match
// backtracking finds first (alternatives in order, greedy or lazy) changes
// where it ends, never whether there is one. Lookaround, atomic groups and
// possessive quantifiers are not regular in this sense; patterns with them
// have no automaton.
type automaton struct {
	prog  []inst
	start int
}

type iop uint8

const (
	iConsume iop = iota // a character node: on to next if it accepts the character
	iAssert             // an assertion node: on to next if it holds here
	iSplit              // on to every target
	iMatch
)

type inst struct {
	op      iop
	n       *rnode
	next    int
	targets []int // iSplit
}

// maxProg bounds an automaton's size: counted repeats are copied out
// ({1000} of a group of 60 nodes), and past this the pattern is left to
// backtracking.
const maxProg = 100_000

// automaton returns re's automaton, built on first use, or nil.
func (re *Regexp) automaton() *automaton {
	re.autoOnce.Do(func() {
		c := &compiler{}
		match := c.add(inst{op: iMatch})
		start, ok := c.emit(re.root, match)
		if ok {
			re.auto = &automaton{prog: c.prog, start: start}
		}
	})
	return re.auto
}

type compiler struct{ prog []inst }

func (c *compiler) add(i inst) int {
	c.prog = append(c.prog, i)
	return len(c.prog) - 1
}

// emit compiles n to run before next and returns its entry; false when n
// has no automaton or it would be too large.
func (c *compiler) emit(n *rnode, next int) (int, bool) {
	if len(c.prog) > maxProg {
		return 0, false
	}
	switch n.op {
	case rEmpty:
		return next, true
	case rChar, rClass, rAny:
		return c.add(inst{op: iConsume, n: n, next: next}), true
	case rBOL, rEOL, rBOT, rEOT, rEOTNL, rWordB, rNotWordB:
		return c.add(inst{op: iAssert, n: n, next: next}), true
	case rConcat:
		for i := len(n.subs) - 1; i >= 0; i-- {
			var ok bool
			if next, ok = c.emit(n.subs[i], next); !ok {
				return 0, false
			}
		}
		return next, true
	case rAlt:
		split := inst{op: iSplit}
		for _, s := range n.subs {
			e, ok := c.emit(s, next)
			if !ok {
				return 0, false
			}
			split.targets = append(split.targets, e)
		}
		return c.add(split), true
	case rRepeat:
		if n.possessive {
			return 0, false
		}
		sub := n.subs[0]
		if n.max < 0 {
			// A loop: the split goes round the body or on.
			loop := c.add(inst{op: iSplit})
			body, ok := c.emit(sub, loop)
			if !ok {
				return 0, false
			}
			c.prog[loop].targets = []int{body, next}
			next = loop
		} else {
			for i := n.min; i < n.max; i++ {
				body, ok := c.emit(sub, next)
				if !ok {
					return 0, false
				}
				next = c.add(inst{op: iSplit, targets: []int{body, next}})
			}
		}
		for i := 0; i < n.min; i++ {
			var ok bool
			if next, ok = c.emit(sub, next); !ok {
				return 0, false
			}
		}
		return next, true
	}
	return 0, false // lookaround, atomic groups
}

// search reports whether b holds a match; word is the class of \b and \B.
func (a *automaton) search(b []byte, word func(rune) bool) bool {
	m := &rmatch{b: b, word: word}
	cur, nxt := newStateSet(len(a.prog)), newStateSet(len(a.prog))
	var stack []int
	for pos := 0; ; {
		// Every position is also a start (an unanchored search).
		stack = a.closure(m, cur, append(stack[:0], a.start), pos)
		if cur.has[len(a.prog)] {
			return true
		}
		if pos == len(b) {
			return false
		}
		r, size := utf8.DecodeRune(b[pos:])
		nxt.clear()
		for _, s := range cur.list {
			if i := &a.prog[s]; i.op == iConsume && i.n.accepts(r) {
				stack = a.closure(m, nxt, append(stack[:0], i.next), pos+size)
			}
		}
		cur, nxt = nxt, cur
		pos += size
	}
}

// closure adds to set the states reachable from those on stack without
// consuming a character at pos, and returns the emptied stack. Reaching
// iMatch marks set.has[len(prog)].
func (a *automaton) closure(m *rmatch, set *stateSet, stack []int, pos int) []int {
	for len(stack) > 0 {
		s := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if set.has[s] {
			continue
		}
		set.has[s] = true
		switch i := &a.prog[s]; i.op {
		case iConsume:
			set.list = append(set.list, s)
		case iAssert:
			if m.holds(i.n, pos) {
				stack = append(stack, i.next)
			}
		case iSplit:
			for t := len(i.targets) - 1; t >= 0; t-- {
				stack = append(stack, i.targets[t])
			}
		case iMatch:
			set.has[len(a.prog)] = true
		}
	}
	return stack
}

// stateSet is a set of states: has for membership (one more entry, for
// "a match was reached"), list for the consuming states in order.
type stateSet struct {
	has  []bool
	list []int
}

func newStateSet(n int) *stateSet { return &stateSet{has: make([]bool, n+1)} }

func (s *stateSet) clear() {
	clear(s.has)
	s.list = s.list[:0]
}
