package dataset

import (
	"bytes"
	"io"
	"strconv"
	"strings"
)

// ReadQrels reads relevance judgments in either of the two common forms:
// BEIR ("query-id<TAB>corpus-id<TAB>score", with or without the header
// line) or TREC ("qid iter docid rel", whitespace separated, the iter
// column ignored). The form is decided by the first judgment line and
// must not change within the file. Grades are integers and may be
// negative. A (query, doc) pair judged twice is an error, as in trec_eval.
// name is used in error messages.
func ReadQrels(r io.Reader, name string) (Qrels, error) {
	return readQrelsTSV(r, name)
}

// readQrelsTSV is the package's one qrels parser (see ReadQrels). It is
// kept in one place so it can be replaced by the metrics package's parser.
func readQrelsTSV(r io.Reader, name string) (Qrels, error) {
	lr := newLineReader(r, name)
	qrels := Qrels{}
	columns := 0 // 3 (BEIR) or 4 (TREC) once known
	for {
		line, err := lr.next()
		if err == io.EOF {
			return qrels, nil
		}
		if err != nil {
			return nil, err
		}
		if blank(line) {
			continue
		}
		var f [][]byte
		if bytes.IndexByte(line, '\t') >= 0 {
			f = bytes.Split(line, []byte{'\t'})
			for i := range f {
				f[i] = bytes.TrimSpace(f[i])
			}
		} else {
			f = bytes.Fields(line)
		}
		if columns == 0 {
			if len(f) == 3 && isHeader(f) {
				continue
			}
			if len(f) != 3 && len(f) != 4 {
				return nil, lr.errorf("got %d fields, want 3 (query-id corpus-id score) or 4 (qid 0 docid rel)", len(f))
			}
			columns = len(f)
		}
		if len(f) != columns {
			if columns == 3 {
				return nil, lr.errorf("got %d fields, want 3 (query-id corpus-id score) like the lines before", len(f))
			}
			return nil, lr.errorf("got %d fields, want 4 (qid 0 docid rel) like the lines before", len(f))
		}
		qid, did, grade := f[0], f[1], f[2]
		field := "score"
		if columns == 4 {
			did, grade = f[2], f[3]
			field = "rel"
		}
		if len(qid) == 0 {
			return nil, lr.errorf("empty query id")
		}
		if len(did) == 0 {
			return nil, lr.errorf("empty doc id")
		}
		g, err := strconv.Atoi(string(grade))
		if err != nil {
			return nil, lr.errorf("%s %q is not an integer", field, grade)
		}
		judged := qrels[string(qid)]
		if judged == nil {
			judged = map[string]int{}
			qrels[string(qid)] = judged
		}
		if _, dup := judged[string(did)]; dup {
			return nil, lr.errorf("query %q doc %q is judged twice", qid, did)
		}
		judged[string(did)] = g
	}
}

// isHeader reports whether f, the first line of a file, is a BEIR header
// line such as "query-id corpus-id score": its last field is a column name
// (score, relevance, rel, label or grade), never a grade.
func isHeader(f [][]byte) bool {
	switch strings.ToLower(string(f[2])) {
	case "score", "relevance", "rel", "label", "grade":
		return true
	}
	return false
}
