package dataset

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"

	"github.com/dreval/dreval/internal/pylit"
)

// Question is a question with its answers, as in DPR's question files. For
// CuratedTREC the answers are regular expressions.
type Question struct {
	// ID is the question's 0-based position in its file, as a decimal
	// string (the files carry no ids).
	ID      string
	Text    string
	Answers []string
}

// ReadDPRQuestions reads a DPR question file in either of its two forms,
// decided by the first non-blank line:
//
//   - tab-separated "question<TAB>answers" lines, where answers is a Python
//     list literal such as ['Elvis', "O'Brien"] and either field may be
//     quoted as Python's csv module writes it ("..." with "" for a quote);
//   - JSON lines {"question": "...", "answer": ["...", ...]}.
//
// name is used in error messages.
func ReadDPRQuestions(r io.Reader, name string) ([]Question, error) {
	lr := newLineReader(r, name)
	var out []Question
	jsonForm := false
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
		if len(out) == 0 {
			jsonForm = bytes.HasPrefix(bytes.TrimSpace(line), []byte("{"))
		}
		var q Question
		if jsonForm {
			q, err = dprJSON(lr, line)
		} else {
			q, err = dprTSV(lr, line)
		}
		if err != nil {
			return nil, err
		}
		q.ID = strconv.Itoa(len(out))
		out = append(out, q)
	}
}

// LoadDPRQuestions reads the DPR question file at path.
func LoadDPRQuestions(path string) ([]Question, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadDPRQuestions(f, filepath.Base(path))
}

func dprJSON(lr *lineReader, line []byte) (Question, error) {
	var raw struct {
		Question *string   `json:"question"`
		Answer   *[]string `json:"answer"`
	}
	if err := json.Unmarshal(line, &raw); err != nil {
		return Question{}, jsonError(lr, err)
	}
	if err := need(lr, "question", raw.Question, true); err != nil {
		return Question{}, err
	}
	if raw.Answer == nil {
		return Question{}, lr.errorf("missing %q", "answer")
	}
	return Question{Text: *raw.Question, Answers: nonNil(*raw.Answer)}, nil
}

func dprTSV(lr *lineReader, line []byte) (Question, error) {
	f, err := splitCSVTab(line)
	if err != nil {
		return Question{}, lr.errorf("%v", err)
	}
	if len(f) != 2 {
		return Question{}, lr.errorf("got %d tab-separated fields, want 2 (question, answer list)", len(f))
	}
	if f[0] == "" {
		return Question{}, lr.errorf("empty question")
	}
	answers, err := pylit.StringList(f[1])
	if err != nil {
		return Question{}, lr.errorf("answers field: python list at %v", err)
	}
	return Question{Text: f[0], Answers: answers}, nil
}

// splitCSVTab splits one line into tab-separated fields the way Python's
// csv reader (excel dialect, tab delimiter) does: a field that starts with
// a double quote runs to the matching closing quote, "" standing for one
// quote; any other field runs to the next tab and keeps its quotes.
func splitCSVTab(line []byte) ([]string, error) {
	var out []string
	i := 0
	for {
		if i < len(line) && line[i] == '"' {
			var b []byte
			j := i + 1
			for {
				if j >= len(line) {
					return nil, fmt.Errorf("field %d: quoted field without its closing quote", len(out)+1)
				}
				if line[j] == '"' {
					if j+1 < len(line) && line[j+1] == '"' {
						b = append(b, '"')
						j += 2
						continue
					}
					j++
					break
				}
				b = append(b, line[j])
				j++
			}
			if j < len(line) && line[j] != '\t' {
				return nil, fmt.Errorf("field %d: text after the closing quote", len(out)+1)
			}
			out = append(out, string(b))
			i = j
		} else {
			j := bytes.IndexByte(line[i:], '\t')
			if j < 0 {
				j = len(line) - i
			}
			out = append(out, string(line[i:i+j]))
			i += j
		}
		if i >= len(line) {
			return out, nil
		}
		i++ // the tab
	}
}
