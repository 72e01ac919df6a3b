package metrics

import (
	"bytes"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
)

// Qrels holds relevance judgments: query id -> document id -> relevance.
// Relevance is an integer; it may be negative (-1 = judged not relevant)
// or graded (0..4). A document is relevant when its relevance is at least
// the relevance level (Options.RelLevel, default 1).
type Qrels map[string]map[string]int

// QrelsFormat selects how ReadQrelsFormat reads its input.
type QrelsFormat int

const (
	// QrelsAuto detects the format from the first non-blank line: a BEIR
	// header (see QrelsBEIR) or three tab-separated fields mean BEIR, four
	// whitespace-separated fields TREC.
	QrelsAuto QrelsFormat = iota
	// QrelsTREC is "qid iter docid rel", whitespace separated; iter is
	// ignored.
	QrelsTREC
	// QrelsBEIR is a tab-separated file "query-id<TAB>corpus-id<TAB>score"
	// that starts with its header line (under QrelsAuto the header may be
	// left out).
	QrelsBEIR
)

var qrelsFormatNames = []string{"auto", "trec", "beir"}

func (f QrelsFormat) String() string {
	if f >= 0 && int(f) < len(qrelsFormatNames) {
		return qrelsFormatNames[f]
	}
	return fmt.Sprintf("QrelsFormat(%d)", int(f))
}

// ParseQrelsFormat returns the format named s ("auto", "trec" or "beir").
func ParseQrelsFormat(s string) (QrelsFormat, error) {
	for i, n := range qrelsFormatNames {
		if strings.EqualFold(s, n) {
			return QrelsFormat(i), nil
		}
	}
	return 0, fmt.Errorf("unknown qrels format %q: expected one of %s", s, strings.Join(qrelsFormatNames, ", "))
}

// isQrelsHeader reports whether b, the first line of a qrels file, is a
// BEIR header such as "query-id<TAB>corpus-id<TAB>score": three fields, the
// last a column name (score, relevance, rel, label or grade), never a
// grade.
func isQrelsHeader(b []byte) bool {
	var fields [4][]byte
	f, n := splitFields(b, fields[:0:3])
	if n != 3 {
		return false
	}
	switch strings.ToLower(string(f[2])) {
	case "score", "relevance", "rel", "label", "grade":
		return true
	}
	return false
}

// ReadQrels reads TREC or BEIR qrels from r, detecting the format (see
// QrelsAuto). name is used in error messages.
func ReadQrels(r io.Reader, name string) (Qrels, error) {
	return ReadQrelsFormat(r, name, QrelsAuto)
}

// ReadQrelsFormat reads qrels in the given format. A UTF-8 byte order mark
// at the start, CRLF line ends and blank lines are accepted. A malformed
// line, a non-integer relevance, a duplicate (query, document) pair, a
// missing BEIR header under QrelsBEIR, a change of form within the file or
// an input without judgments is an error naming the file and line.
func ReadQrelsFormat(r io.Reader, name string, format QrelsFormat) (Qrels, error) {
	if format < QrelsAuto || format > QrelsBEIR {
		return nil, fmt.Errorf("%s: unknown qrels format %d", name, int(format))
	}
	s := newLineScanner(r, name)
	q := Qrels{}
	var fields [5][]byte
	n := 0 // judgments read
	first := true
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
		if first {
			first = false
			isHeader := isQrelsHeader(b)
			switch {
			case isHeader && format != QrelsTREC:
				format = QrelsBEIR
				continue
			case isHeader:
				return nil, parseErrorf(name, s.line, "found the BEIR header %q in qrels read as TREC: expected \"qid iter docid rel\" (use the BEIR or auto format)", string(b))
			case format == QrelsBEIR:
				return nil, parseErrorf(name, s.line, "BEIR qrels must start with the header \"query-id<TAB>corpus-id<TAB>score\"; got %s (the auto format accepts BEIR qrels without it)", quote(b))
			case format == QrelsAuto:
				if format = detectQrels(b); format == QrelsAuto {
					_, nf := splitFields(b, fields[:0:4])
					return nil, parseErrorf(name, s.line, "%d fields: expected 4 (TREC qrels \"qid iter docid rel\") or 3 tab-separated ones (BEIR qrels \"query-id<TAB>corpus-id<TAB>score\")", nf)
				}
			}
		}
		var qid, doc, rel []byte
		if format == QrelsBEIR {
			f, nf := splitTabs(b, fields[:0:3])
			if nf != 3 {
				return nil, parseErrorf(name, s.line, "%d tab-separated fields: expected 3 (query-id, corpus-id, score) like the lines before", nf)
			}
			qid, doc, rel = bytes.TrimSpace(f[0]), bytes.TrimSpace(f[1]), bytes.TrimSpace(f[2])
			if len(qid) == 0 || len(doc) == 0 {
				return nil, parseErrorf(name, s.line, "empty query-id or corpus-id: expected \"query-id<TAB>corpus-id<TAB>score\"")
			}
		} else {
			f, nf := splitFields(b, fields[:0:4])
			if nf != 4 {
				return nil, parseErrorf(name, s.line, "%d fields: expected 4 (qid iter docid rel) like the lines before", nf)
			}
			qid, doc, rel = f[0], f[2], f[3]
		}
		v, err := strconv.Atoi(string(rel))
		if err != nil {
			return nil, parseErrorf(name, s.line, "relevance %s: expected an integer", quote(rel))
		}
		docs := q[string(qid)]
		if docs == nil {
			docs = map[string]int{}
			q[string(qid)] = docs
		}
		if _, dup := docs[string(doc)]; dup {
			return nil, parseErrorf(name, s.line, "duplicate judgment for query %s, document %s: expected each (query, document) pair once", quote(qid), quote(doc))
		}
		docs[string(doc)] = v
		n++
	}
	if n == 0 {
		what := "no judgments"
		if first {
			what = "empty file"
		}
		return nil, parseErrorf(name, 0, "%s: expected TREC qrels lines \"qid iter docid rel\" or BEIR lines \"query-id<TAB>corpus-id<TAB>score\" (after their header)", what)
	}
	return q, nil
}

// detectQrels returns the form of the first judgment line b of a file
// without a header: QrelsBEIR for three tab-separated fields, QrelsTREC
// for four whitespace-separated ones, else QrelsAuto (neither).
func detectQrels(b []byte) QrelsFormat {
	var fields [5][]byte
	if _, nt := splitTabs(b, fields[:0:3]); nt == 3 {
		return QrelsBEIR
	}
	if _, nf := splitFields(b, fields[:0:4]); nf == 4 {
		return QrelsTREC
	}
	return QrelsAuto
}

// QueryIDs returns the query ids of q, sorted byte-wise.
func (q Qrels) QueryIDs() []string {
	ids := make([]string, 0, len(q))
	for id := range q {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// NumRelevant returns how many documents judged for qid have relevance
// >= level.
func (q Qrels) NumRelevant(qid string, level int) int {
	n := 0
	for _, r := range q[qid] {
		if r >= level {
			n++
		}
	}
	return n
}
