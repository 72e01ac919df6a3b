package retrieval

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode"
)

// ParseIDs reads the ids of a matrix's rows from the text of an ids file:
// one id per line, in row order. name names the file in errors; rows and
// matrix say which matrix the ids must cover. Ids must be unique, non-empty
// and free of white space (any Unicode space: a TREC run's columns are
// split on it), and there must be exactly one per row.
func ParseIDs(text, name string, rows int, matrix string) ([]string, error) {
	var ids []string
	if len(text) > 0 {
		ids = strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	}
	line := make(map[string]int, len(ids))
	for i, id := range ids {
		id = strings.TrimSuffix(id, "\r")
		if id == "" || strings.IndexFunc(id, unicode.IsSpace) >= 0 {
			return nil, fmt.Errorf("%s:%d: id %q is empty or contains white space, which a TREC run cannot hold", name, i+1, id)
		}
		if prev, dup := line[id]; dup {
			return nil, fmt.Errorf("%s:%d: id %q repeats line %d: ids must be unique", name, i+1, id, prev)
		}
		line[id] = i + 1
		ids[i] = id
	}
	if len(ids) != rows {
		return nil, fmt.Errorf("%s has %d ids but %s has %d rows: want one id per line for every row", name, len(ids), matrix, rows)
	}
	return ids, nil
}

// WriteRun writes hits as a TREC run, "qid Q0 docid rank score tag" per
// line, with float32 scores in the shortest form that reads back exactly.
// qIDs and docIDs name the rows; a nil slice means row numbers from 0.
func WriteRun(w io.Writer, hits [][]Hit, qIDs, docIDs []string, tag string) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	line := make([]byte, 0, 256)
	var q, d []byte
	for qi, hs := range hits {
		q = appendID(q[:0], qi, qIDs)
		for r, h := range hs {
			d = appendID(d[:0], h.Doc, docIDs)
			line = append(line[:0], q...)
			line = append(line, " Q0 "...)
			line = append(line, d...)
			line = append(line, ' ')
			line = strconv.AppendInt(line, int64(r+1), 10)
			line = append(line, ' ')
			line = strconv.AppendFloat(line, float64(h.Score), 'g', -1, 32)
			line = append(line, ' ')
			line = append(line, tag...)
			line = append(line, '\n')
			if _, err := bw.Write(line); err != nil {
				return err
			}
		}
	}
	return bw.Flush()
}

// appendID appends ids[i], or i in decimal when ids is nil.
func appendID(b []byte, i int, ids []string) []byte {
	if ids != nil {
		return append(b, ids[i]...)
	}
	return strconv.AppendInt(b, int64(i), 10)
}
