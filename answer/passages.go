package answer

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/dreval/dreval/dataset"
)

// PassageText returns the text a DPR-style passage encoder reads: the
// title, the literal "[SEP]" and the text. A BERT tokenizer matches the
// literal "[SEP]" as its special token, so encoding the result gives
// [CLS] title [SEP] text [SEP], the ids DPR gets from
// tokenizer.encode(title, text_pair=text) (DPR uses segment ids of zero for
// both parts). An empty title still yields the separator, as in DPR.
func PassageText(title, text string) string {
	return title + " [SEP] " + text
}

// ReadPassages reads passages in either of two layouts, decided by the
// first non-blank line: a BEIR corpus.jsonl (a line starting with "{"), or
// DPR's tab-separated layout (see ReadDPRPassages). name is used in error
// messages.
func ReadPassages(r io.Reader, name string) ([]dataset.Doc, error) {
	br := bufio.NewReaderSize(r, 64*1024)
	first, err := peekFirstLine(br)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if !bytes.HasPrefix(first, []byte("{")) {
		return ReadDPRPassages(br, name)
	}
	cr := dataset.NewCorpusReader(br, name)
	var docs []dataset.Doc
	for {
		d, err := cr.Next()
		if err == io.EOF {
			return docs, nil
		}
		if err != nil {
			return nil, err
		}
		docs = append(docs, d)
	}
}

// dprHeader is the first line of DPR's passage files.
var dprHeader = []string{"id", "text", "title"}

// ReadDPRPassages reads DPR's passage layout (psgs_w100.tsv): tab-separated
// id, text and title, quoted as Python's csv module writes them (a field
// may be enclosed in double quotes, "" standing for a quote, and may then
// hold tabs and newlines). The header line "id<TAB>text<TAB>title" is
// optional. Every record must have three fields and a non-empty id; ids are
// not checked for uniqueness here (NewPassages does).
func ReadDPRPassages(r io.Reader, name string) ([]dataset.Doc, error) {
	cr := csv.NewReader(r)
	cr.Comma = '\t'
	cr.LazyQuotes = true
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true
	var docs []dataset.Doc
	first := true
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			if len(docs) == 0 {
				return nil, fmt.Errorf("%s: no passages", name)
			}
			return docs, nil
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				return nil, fmt.Errorf("%s:%d: %v", name, pe.Line, pe.Err)
			}
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		line, _ := cr.FieldPos(0)
		if first {
			first = false
			if len(rec) == 3 && strings.TrimPrefix(rec[0], "\ufeff") == "id" && rec[1] == "text" && rec[2] == "title" {
				continue
			}
		}
		if len(rec) != 3 {
			return nil, fmt.Errorf("%s:%d: %d tab-separated fields, want 3 (id, text, title)", name, line, len(rec))
		}
		if rec[0] == "" {
			return nil, fmt.Errorf("%s:%d: empty passage id", name, line)
		}
		docs = append(docs, dataset.Doc{ID: rec[0], Text: rec[1], Title: rec[2]})
	}
}

// WriteDPRPassages writes docs in DPR's layout with its header line,
// quoting fields as Python's csv reader expects.
func WriteDPRPassages(w io.Writer, docs []dataset.Doc) error {
	cw := csv.NewWriter(w)
	cw.Comma = '\t'
	if err := cw.Write(dprHeader); err != nil {
		return err
	}
	for _, d := range docs {
		if d.ID == "" {
			return fmt.Errorf("passage with an empty id (text %.40q)", d.Text)
		}
		if err := cw.Write([]string{d.ID, d.Text, d.Title}); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// IDStyle is how Split names passages.
type IDStyle int

const (
	// DocIDs names the passages of document d "d-0", "d-1", ...
	DocIDs IDStyle = iota
	// Sequential numbers passages 1, 2, ... across all documents, as
	// DPR's psgs_w100.tsv does; the Splitter keeps the count.
	Sequential
)

// Splitter cuts documents into passages of at most Words words, as DPR
// cut Wikipedia: the text is split at white space (strings.Fields), the
// words of each passage are joined by single spaces, and every passage
// keeps the document's title. A document without words gives one passage
// with empty text, so that no document disappears.
type Splitter struct {
	Words int
	IDs   IDStyle
	next  int // last sequential id given
}

// Split returns the passages of d.
func (s *Splitter) Split(d dataset.Doc) ([]dataset.Doc, error) {
	if s.Words < 1 {
		return nil, fmt.Errorf("passage length %d words: want at least 1", s.Words)
	}
	words := strings.Fields(d.Text)
	n := max(1, (len(words)+s.Words-1)/s.Words)
	out := make([]dataset.Doc, n)
	for i := range out {
		lo, hi := i*s.Words, min(len(words), (i+1)*s.Words)
		text := ""
		if lo < hi {
			text = strings.Join(words[lo:hi], " ")
		}
		var id string
		if s.IDs == Sequential {
			s.next++
			id = strconv.Itoa(s.next)
		} else {
			id = d.ID + "-" + strconv.Itoa(i)
		}
		out[i] = dataset.Doc{ID: id, Title: d.Title, Text: text}
	}
	return out, nil
}
