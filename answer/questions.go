package answer

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/dreval/dreval/dataset"
)

// ReadQuestions reads questions and their answers from r in one of three
// forms, decided by its first non-blank line:
//
//   - answers.jsonl, as in the shared SQuAD, HotpotQA and DuReader
//     conversions: one JSON object per line with a non-empty string
//     "query-id" and a list of strings under field ("answers" when field is
//     empty; DuReader's extractive answers are "fake_answers"). Other keys
//     are ignored. A query id may appear once.
//   - DPR's JSON-lines question files (CuratedTREC): {"question", "answer"};
//   - DPR's tab-separated question files: question<TAB>['answer', ...].
//
// A first line with answers under field but neither "query-id" nor
// "question" is taken for an answers.jsonl line missing its "query-id",
// and said so; one with neither key of either form is an error naming
// both.
//
// DPR's files carry no ids: a question's id is its 0-based position, as
// dataset.ReadDPRQuestions numbers it. field must be empty or "answers"
// for them. name is used in error messages.
func ReadQuestions(r io.Reader, name, field string) ([]Question, error) {
	if field == "" {
		field = "answers"
	}
	br := bufio.NewReaderSize(r, 64*1024)
	first, err := peekFirstLine(br)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	// An object with answers but no "question" is an answers.jsonl line
	// missing its "query-id" (which readAnswersJSONL reports), not a DPR
	// question file missing its question.
	if hasTopKey(first, "query-id") || (hasTopKey(first, field) && !hasTopKey(first, "question")) {
		return readAnswersJSONL(br, name, field)
	}
	if isJSONObject(first) && !hasTopKey(first, "question") && !hasTopKey(first, "answer") {
		return nil, fmt.Errorf(`%s:1: neither "query-id" (an answers.jsonl line: {"query-id": "...", %q: [...]}) nor "question" (a DPR question file: {"question": "...", "answer": [...]})`, name, field)
	}
	if field != "answers" {
		return nil, fmt.Errorf("%s: a DPR question file has no field %q (only its answer list)", name, field)
	}
	qs, err := dataset.ReadDPRQuestions(br, name)
	if err != nil {
		return nil, err
	}
	out := make([]Question, len(qs))
	for i, q := range qs {
		out[i] = Question{ID: q.ID, Answers: q.Answers}
	}
	return out, nil
}

// peekFirstLine returns the first non-blank line of br (at most its first
// 64 KiB) without consuming it, with a UTF-8 byte order mark removed. An
// empty input is an error.
func peekFirstLine(br *bufio.Reader) ([]byte, error) {
	b, err := br.Peek(br.Size())
	if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
		return nil, err
	}
	b = bytes.TrimLeft(bytes.TrimPrefix(b, []byte("\xef\xbb\xbf")), " \t\r\n")
	if len(b) == 0 {
		return nil, fmt.Errorf("no questions: the file is empty")
	}
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		b = b[:i]
	}
	return bytes.TrimSpace(b), nil
}

// hasTopKey reports whether the JSON object starting line (possibly cut
// short) has the top-level key key before its first syntax problem.
func hasTopKey(line []byte, key string) bool {
	dec := json.NewDecoder(bytes.NewReader(line))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return false
	}
	for {
		t, err := dec.Token()
		if err != nil {
			return false
		}
		k, ok := t.(string)
		if !ok {
			return false
		}
		if k == key {
			return true
		}
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return false
		}
	}
}

// isJSONObject reports whether line is a whole JSON object.
func isJSONObject(line []byte) bool {
	var obj map[string]json.RawMessage
	return json.Unmarshal(line, &obj) == nil
}

// readAnswersJSONL reads the answers.jsonl form.
func readAnswersJSONL(br *bufio.Reader, name, field string) ([]Question, error) {
	var out []Question
	seen := map[string]int{}
	line := 0
	for {
		b, err := br.ReadBytes('\n')
		if len(b) == 0 && err == io.EOF {
			break
		}
		if err != nil && err != io.EOF {
			return nil, fmt.Errorf("%s:%d: %w", name, line+1, err)
		}
		line++
		if line == 1 {
			b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
		}
		b = bytes.TrimSpace(b)
		if len(b) == 0 {
			continue
		}
		q, err := parseAnswerLine(b, field)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %v", name, line, err)
		}
		if first, dup := seen[q.ID]; dup {
			return nil, fmt.Errorf("%s:%d: query-id %q appears twice (first at line %d)", name, line, q.ID, first)
		}
		seen[q.ID] = line
		out = append(out, q)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no questions", name)
	}
	return out, nil
}

func parseAnswerLine(b []byte, field string) (Question, error) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(b, &obj); err != nil {
		return Question{}, fmt.Errorf("not a JSON object: %v", err)
	}
	rawID, ok := obj["query-id"]
	if !ok {
		return Question{}, fmt.Errorf(`missing "query-id"`)
	}
	var id string
	if err := json.Unmarshal(rawID, &id); err != nil {
		return Question{}, fmt.Errorf(`"query-id" is %s, want a string`, kind(rawID))
	}
	if id == "" {
		return Question{}, fmt.Errorf(`empty "query-id"`)
	}
	rawAns, ok := obj[field]
	if !ok {
		return Question{}, fmt.Errorf("query-id %q: missing %q", id, field)
	}
	var answers []string
	if err := json.Unmarshal(rawAns, &answers); err != nil || answers == nil {
		return Question{}, fmt.Errorf("query-id %q: %q is %s, want a list of strings", id, field, kind(rawAns))
	}
	return Question{ID: id, Answers: answers}, nil
}

// kind describes a JSON value for an error message.
func kind(v json.RawMessage) string {
	v = bytes.TrimSpace(v)
	if len(v) == 0 {
		return "empty"
	}
	switch v[0] {
	case '"':
		return "a string"
	case '[':
		return "a list holding something other than strings"
	case '{':
		return "an object"
	case 'n':
		return "null"
	case 't', 'f':
		return "a boolean"
	}
	if _, err := strconv.ParseFloat(string(v), 64); err == nil {
		return "a number"
	}
	return "not valid JSON"
}

// QuestionsFrom turns an id -> answers map, such as dataset.Collection's
// Answers or ExtractiveAnswers, into questions sorted by id.
func QuestionsFrom(answers map[string][]string) []Question {
	out := make([]Question, 0, len(answers))
	for id, a := range answers {
		out = append(out, Question{ID: id, Answers: a})
	}
	slices.SortFunc(out, func(a, b Question) int { return strings.Compare(a.ID, b.ID) })
	return out
}

// QuestionsFor returns the questions of queries, in their order, with
// their answers from answers (such as dataset.Collection's Answers for the
// queries of one split), and lists the queries that have no entry in
// answers: they are not questions, and the caller decides whether that is
// an error.
func QuestionsFor(queries []dataset.Query, answers map[string][]string) (qs []Question, without []string) {
	for _, q := range queries {
		a, ok := answers[q.ID]
		if !ok {
			without = append(without, q.ID)
			continue
		}
		qs = append(qs, Question{ID: q.ID, Answers: a})
	}
	return qs, without
}
