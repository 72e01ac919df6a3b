package dataset

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/dreval/dreval/metrics"
)

// Topic is a TREC topic. Title is what retrieval experiments usually use
// as the query text.
type Topic struct {
	ID          string
	Title       string
	Description string
	Narrative   string
}

// MaxTopicsBytes bounds the size of a topics file ReadTopics accepts.
const MaxTopicsBytes = 256 << 20

// ReadTopics reads TREC topics in either of two forms, decided by the
// first non-blank character: the classic SGML form
//
//	<top>
//	<num> Number: 301
//	<title> International Organized Crime
//	<desc> Description:
//	...
//	<narr> Narrative:
//	...
//	</top>
//
// (closing tags such as </title> are optional, the "Number:", "Topic:",
// "Description:" and "Narrative:" labels are removed, white space inside
// a field is collapsed), or "qid<TAB>text" lines, where the text becomes
// the Title. Duplicate ids are errors. name is used in error messages.
func ReadTopics(r io.Reader, name string) ([]Topic, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxTopicsBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(data) > MaxTopicsBytes {
		return nil, fmt.Errorf("%s: larger than %d bytes", name, MaxTopicsBytes)
	}
	data = bytes.TrimPrefix(data, utf8BOM)
	if t := bytes.TrimSpace(data); len(t) > 0 && t[0] == '<' {
		return readSGMLTopics(data, name)
	}
	return readTSVTopics(bytes.NewReader(data), name)
}

// TopicQueries returns the topics as queries whose text is the title.
func TopicQueries(topics []Topic) []Query {
	out := make([]Query, len(topics))
	for i, t := range topics {
		out[i] = Query{ID: t.ID, Text: t.Title}
	}
	return out
}

func readTSVTopics(r io.Reader, name string) ([]Topic, error) {
	lr := newLineReader(r, name)
	var out []Topic
	seen := map[string]int{}
	for {
		line, err := lr.next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		if blank(line) {
			continue
		}
		id, text, ok := bytes.Cut(line, []byte{'\t'})
		if !ok {
			return nil, lr.errorf("no tab; want qid<TAB>text")
		}
		t := Topic{ID: string(bytes.TrimSpace(id)), Title: string(bytes.TrimSpace(text))}
		if t.ID == "" {
			return nil, lr.errorf("empty query id")
		}
		if first, dup := seen[t.ID]; dup {
			return nil, lr.errorf("duplicate query id %q (first on line %d)", t.ID, first)
		}
		seen[t.ID] = lr.Line()
		out = append(out, t)
	}
}

// sgmlTags returns the tags of an SGML topics file in order, as the
// leftmost matches of <(/?)([A-Za-z]+)[^<>]*> would give them: each as
// its start and end, the "/"'s and the name's (start, end).
func sgmlTags(data []byte) [][6]int {
	var out [][6]int
	for i := 0; i < len(data); i++ {
		if data[i] != '<' {
			continue
		}
		j := i + 1
		slash := j
		if j < len(data) && data[j] == '/' {
			j++
		}
		name := j
		for j < len(data) && isASCIILetter(data[j]) {
			j++
		}
		if j == name {
			continue
		}
		k := j
		for k < len(data) && data[k] != '<' && data[k] != '>' {
			k++
		}
		if k == len(data) || data[k] != '>' {
			continue
		}
		out = append(out, [6]int{i, k + 1, slash, name, name, j})
		i = k
	}
	return out
}

func isASCIILetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// readSGMLTopics parses <top> blocks.
func readSGMLTopics(data []byte, name string) ([]Topic, error) {
	lineAt := func(off int) int { return 1 + bytes.Count(data[:off], []byte{'\n'}) }
	var out []Topic
	seen := map[string]int{}
	tags := sgmlTags(data)
	var cur *Topic
	curLine := 0
	fields := map[string]bool{}
	for i, m := range tags {
		closing := m[3] > m[2]
		tag := strings.ToLower(string(data[m[4]:m[5]]))
		end := len(data)
		if i+1 < len(tags) {
			end = tags[i+1][0]
		}
		if tag == "top" {
			if closing {
				if cur == nil {
					return nil, fmt.Errorf("%s:%d: </top> without <top>", name, lineAt(m[0]))
				}
				if err := finishTopic(cur, fields, name, curLine, seen); err != nil {
					return nil, err
				}
				out = append(out, *cur)
				cur = nil
				continue
			}
			if cur != nil {
				return nil, fmt.Errorf("%s:%d: <top> inside the <top> of line %d", name, lineAt(m[0]), curLine)
			}
			cur, curLine, fields = &Topic{}, lineAt(m[0]), map[string]bool{}
			continue
		}
		if closing {
			continue
		}
		if cur == nil {
			return nil, fmt.Errorf("%s:%d: <%s> outside <top>", name, lineAt(m[0]), tag)
		}
		text := strings.Join(strings.Fields(string(data[m[1]:end])), " ")
		var dst *string
		label := ""
		switch tag {
		case "num":
			dst, label = &cur.ID, "number:"
		case "title":
			dst, label = &cur.Title, "topic:"
		case "desc":
			dst, label = &cur.Description, "description:"
		case "narr":
			dst, label = &cur.Narrative, "narrative:"
		default:
			continue // other fields (dom, con, fac, def, smry, head) are not kept
		}
		if fields[tag] {
			return nil, fmt.Errorf("%s:%d: second <%s> in the <top> of line %d", name, lineAt(m[0]), tag, curLine)
		}
		fields[tag] = true
		if len(text) >= len(label) && strings.EqualFold(text[:len(label)], label) {
			text = strings.TrimSpace(text[len(label):])
		}
		*dst = text
	}
	if cur != nil {
		return nil, fmt.Errorf("%s:%d: <top> without </top>", name, curLine)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no <top> topics", name)
	}
	return out, nil
}

func finishTopic(t *Topic, fields map[string]bool, name string, line int, seen map[string]int) error {
	if t.ID == "" {
		return fmt.Errorf("%s:%d: topic without a <num>", name, line)
	}
	if t.Title == "" && t.Description == "" {
		return fmt.Errorf("%s:%d: topic %s has neither <title> nor <desc>", name, line, t.ID)
	}
	if first, dup := seen[t.ID]; dup {
		return fmt.Errorf("%s:%d: duplicate topic number %q (first at line %d)", name, line, t.ID, first)
	}
	seen[t.ID] = line
	return nil
}

// LoadTREC loads a TREC topics file and a qrels file (TREC or BEIR form)
// as a collection without a corpus; the queries are the topics' titles.
func LoadTREC(topicsPath, qrelsPath string) (*Collection, error) {
	tf, err := os.Open(topicsPath)
	if err != nil {
		return nil, err
	}
	defer tf.Close()
	topics, err := ReadTopics(tf, topicsPath)
	if err != nil {
		return nil, err
	}
	qf, err := os.Open(qrelsPath)
	if err != nil {
		return nil, err
	}
	defer qf.Close()
	qrels, err := metrics.ReadQrels(qf, qrelsPath)
	if err != nil {
		return nil, err
	}
	c := &Collection{Name: filepath.Base(topicsPath), Queries: TopicQueries(topics), Qrels: qrels}
	c.warn()
	return c, nil
}
