package metrics

import (
	"errors"
	"hash/maphash"
	"io"
	"math"
	"sort"
	"strconv"
)

// ScoredDoc is one retrieved document and its score.
type ScoredDoc struct {
	DocID string
	Score float64
}

// Ranked is one query's retrieved documents. Lists read from a file keep
// the file's order; the rank column is ignored. Evaluate orders each list
// by its Convention (see Convention.Order) before scoring it.
type Ranked []ScoredDoc

// Run maps query ids to their retrieved documents.
type Run map[string]Ranked

// QueryIDs returns the query ids of r, sorted byte-wise.
func (r Run) QueryIDs() []string {
	ids := make([]string, 0, len(r))
	for id := range r {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// runLine is one parsed line of a TREC run.
type runLine struct {
	qid, doc, tag []byte
	score         float64
}

const runFormat = "qid Q0 docid rank score tag"

// parseRunLine parses "qid Q0 docid rank score tag". The Q0 and rank
// columns are not interpreted, and text after the tag is ignored, as
// trec_eval ignores it. The score must be a finite number.
func parseRunLine(name string, line int, b []byte, fields *[6][]byte) (runLine, error) {
	f, nf := splitFields(b, fields[:0:6])
	if nf < 6 {
		return runLine{}, parseErrorf(name, line, "%d fields: expected 6 (%s)", nf, runFormat)
	}
	score, ok := parseDecimal(f[4])
	var err error
	if !ok {
		score, err = strconv.ParseFloat(string(f[4]), 64)
	}
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return runLine{}, parseErrorf(name, line, "score %s: expected a number (%s)", quote(f[4]), runFormat)
	}
	if math.IsNaN(score) || math.IsInf(score, 0) {
		return runLine{}, parseErrorf(name, line, "score %s: expected a finite number", quote(f[4]))
	}
	return runLine{qid: f[0], doc: f[2], tag: f[5], score: score}, nil
}

// RunReader reads a TREC run ("qid Q0 docid rank score tag") one query at a
// time, so that memory holds one query's list (and the ids of the queries
// already read, to notice one reappearing). It expects the run grouped
// by query, as runs usually are: when a query id reappears after its lines
// ended, Next returns an error wrapping ErrUngrouped; ReadRun reads an
// ungrouped run whole, and EvaluateReader falls back to it by itself when
// its input can seek.
type RunReader struct {
	s       *lineScanner
	name    string
	tag     string
	cur     string // query whose lines are being collected
	arena   []byte // document ids of cur, back to back
	entries []runEntry
	out     Ranked
	done    map[string]struct{}
	table   []int32 // open-addressing set of entry indexes + 1, for duplicates
	lines   int     // non-blank lines read
	eof     bool
	err     error
}

type runEntry struct {
	off, n uint32
	line   int32
	score  float64
	hash   uint64 // of the document id
}

// docSeed seeds the document id hashes of duplicate detection.
var docSeed = maphash.MakeSeed()

// NewRunReader returns a reader of the run in r; name is used in errors.
func NewRunReader(r io.Reader, name string) *RunReader {
	return &RunReader{
		s:    newLineScanner(r, name),
		name: name,
		done: map[string]struct{}{},
	}
}

// Tag returns the run tag (the sixth column) of the first line read.
func (rr *RunReader) Tag() string { return rr.tag }

// Next returns the next query and its documents in file order, or io.EOF
// after the last. The list is valid until the next call. A malformed
// line, a bad score, a document listed twice for a query, a reappearing
// query (ErrUngrouped) or an empty input is an error naming the file and
// line; after an error Next keeps returning it.
func (rr *RunReader) Next() (string, Ranked, error) {
	if rr.err != nil {
		return "", nil, rr.err
	}
	var fields [6][]byte
	for !rr.eof {
		b, err := rr.s.next()
		if err == io.EOF {
			rr.eof = true
			break
		}
		if err != nil {
			rr.err = err
			return "", nil, err
		}
		if isBlank(b) {
			continue
		}
		l, err := parseRunLine(rr.name, rr.s.line, b, &fields)
		if err != nil {
			rr.err = err
			return "", nil, err
		}
		if rr.lines == 0 {
			rr.tag = string(l.tag)
			rr.cur = string(l.qid)
		}
		rr.lines++
		if string(l.qid) != rr.cur {
			if _, again := rr.done[string(l.qid)]; again {
				rr.err = &ParseError{File: rr.name, Line: rr.s.line, Err: ErrUngrouped,
					Msg: "query " + quote(l.qid) + " reappears after its lines ended: expected the run grouped by query"}
				return "", nil, rr.err
			}
			qid, list, err := rr.flush()
			if err != nil {
				return "", nil, err
			}
			rr.cur = string(l.qid)
			rr.add(l, rr.s.line)
			return qid, list, nil
		}
		rr.add(l, rr.s.line)
	}
	if len(rr.entries) > 0 {
		return rr.flush()
	}
	if rr.lines == 0 {
		rr.err = parseErrorf(rr.name, 0, "empty run: expected lines %q", runFormat)
		return "", nil, rr.err
	}
	return "", nil, io.EOF
}

func (rr *RunReader) add(l runLine, line int) {
	rr.entries = append(rr.entries, runEntry{off: uint32(len(rr.arena)), n: uint32(len(l.doc)), line: int32(line), score: l.score,
		hash: maphash.Bytes(docSeed, l.doc)})
	rr.arena = append(rr.arena, l.doc...)
}

// flush turns the collected lines of rr.cur into a Ranked list, checking
// for duplicate documents, and resets the buffers.
func (rr *RunReader) flush() (string, Ranked, error) {
	ids := string(rr.arena) // one allocation per query; the ids share it
	doc := func(e runEntry) string { return ids[e.off : e.off+e.n] }
	size := 16
	for size < 2*len(rr.entries) {
		size *= 2
	}
	if cap(rr.table) < size {
		rr.table = make([]int32, size)
	}
	table := rr.table[:size]
	clear(table)
	mask := uint64(size - 1)
	out := rr.out[:0]
	for i, e := range rr.entries {
		for slot := e.hash & mask; ; slot = (slot + 1) & mask {
			j := table[slot]
			if j == 0 {
				table[slot] = int32(i + 1)
				break
			}
			if f := rr.entries[j-1]; f.hash == e.hash && doc(f) == doc(e) {
				rr.err = parseErrorf(rr.name, int(e.line), "document %s listed twice for query %s (first at line %d): expected each (query, document) pair once",
					strconv.Quote(doc(e)), strconv.Quote(rr.cur), f.line)
				return "", nil, rr.err
			}
		}
		out = append(out, ScoredDoc{DocID: doc(e), Score: e.score})
	}
	rr.out = out
	rr.done[rr.cur] = struct{}{}
	rr.entries = rr.entries[:0]
	rr.arena = rr.arena[:0]
	return rr.cur, out, nil
}

// ReadRun reads a whole TREC run into memory; the lines of a query need
// not be adjacent. Each list keeps file order. Errors are those of
// RunReader.Next, except that an ungrouped run is accepted.
func ReadRun(r io.Reader, name string) (Run, error) {
	s := newLineScanner(r, name)
	run := Run{}
	seen := map[string]map[string]int{}
	var fields [6][]byte
	n := 0
	for {
		b, err := s.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if isBlank(b) {
			continue
		}
		l, err := parseRunLine(name, s.line, b, &fields)
		if err != nil {
			return nil, err
		}
		n++
		docs := seen[string(l.qid)]
		if docs == nil {
			docs = map[string]int{}
			seen[string(l.qid)] = docs
		}
		if first, dup := docs[string(l.doc)]; dup {
			return nil, parseErrorf(name, s.line, "document %s listed twice for query %s (first at line %d): expected each (query, document) pair once",
				quote(l.doc), quote(l.qid), first)
		}
		doc := string(l.doc)
		docs[doc] = s.line
		run[string(l.qid)] = append(run[string(l.qid)], ScoredDoc{DocID: doc, Score: l.score})
	}
	if n == 0 {
		return nil, parseErrorf(name, 0, "empty run: expected lines %q", runFormat)
	}
	return run, nil
}

// pow10 holds the powers of ten that float64 represents exactly.
var pow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// parseDecimal parses the common score form [+-]digits[.digits] when its
// digits fit in 2^53 and it has at most 22 decimals: then float64(m) /
// 10^d is correctly rounded (Clinger's fast path), the same value
// strconv.ParseFloat returns. It reports false for anything else, which
// the caller hands to strconv.ParseFloat.
func parseDecimal(b []byte) (float64, bool) {
	neg := false
	if len(b) > 0 && (b[0] == '-' || b[0] == '+') {
		neg = b[0] == '-'
		b = b[1:]
	}
	var m uint64
	digits, frac := 0, -1
	for i, c := range b {
		switch {
		case c >= '0' && c <= '9':
			if m >= 1<<53/10 {
				return 0, false
			}
			m = m*10 + uint64(c-'0')
			digits++
		case c == '.' && frac < 0:
			frac = len(b) - i - 1
		default:
			return 0, false
		}
	}
	if digits == 0 || frac > 22 {
		return 0, false
	}
	f := float64(m)
	if frac > 0 {
		f /= pow10[frac]
	}
	if neg {
		f = -f
	}
	return f, true
}
