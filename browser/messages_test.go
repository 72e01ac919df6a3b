package browser

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// TestMessagesJSUpToDate fails while webapp/static/messages.js is not
// what the message types make: run "go generate ./webapp".
func TestMessagesJSUpToDate(t *testing.T) {
	p := filepath.Join("..", filepath.FromSlash(MessagesJSFile))
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != string(MessagesJS()) {
		t.Errorf("%s is out of date with browser/messages.go: run \"go generate ./webapp\"", p)
	}
}

// TestMessageTypes: every request's type differs from the other
// requests', every reply's from the other replies' (a reply is decoded by
// its type alone), every worker script's message from every other
// message's; every message and value has fields with json names.
func TestMessageTypes(t *testing.T) {
	for name, group := range map[string][]Message{"request": requests, "reply": replies} {
		seen := map[string]string{}
		for _, m := range group {
			typ, goName := m.MessageType(), reflect.TypeOf(m).Elem().Name()
			if other, ok := seen[typ]; ok {
				t.Errorf("%s %s and %s share the type %q", name, goName, other, typ)
			}
			seen[typ] = goName
			if suffix := map[string]string{"request": "Request", "reply": "Reply"}[name]; !strings.HasSuffix(goName, suffix) && goName != "Progress" {
				t.Errorf("%s %s: its name does not end in %s", name, goName, suffix)
			}
		}
	}
	all := map[string]bool{}
	for _, m := range append(append([]Message{}, requests...), replies...) {
		all[m.MessageType()] = true
	}
	for _, m := range workerMessages {
		if all[m.Type] {
			t.Errorf("worker.js's message %s has the type %q of a Go message", m.Name, m.Type)
		}
		all[m.Type] = true
	}
	for _, v := range append([]any{requests[0], replies[0]}, values...) {
		typ := reflect.TypeOf(v).Elem()
		for i := 0; i < typ.NumField(); i++ {
			if f := typ.Field(i); !f.Anonymous && f.Tag.Get("json") == "" {
				t.Errorf("%s.%s has no json name", typ.Name(), f.Name)
			}
		}
	}
}

// TestScriptsUseGeneratedTypes: the page's scripts spell no message type
// by hand (type: "run", type === "error", case "wasm"): they use
// messages.js's MSG and WORKER_MSG.
func TestScriptsUseGeneratedTypes(t *testing.T) {
	types := map[string]bool{}
	for _, m := range append(append([]Message{}, requests...), replies...) {
		types[m.MessageType()] = true
	}
	for _, m := range workerMessages {
		types[m.Type] = true
	}
	spelled := regexp.MustCompile(`(?:type\s*:\s*|type\s*===?\s*|case\s+)"([A-Za-z]+)"`)
	dir := filepath.Join("..", "webapp", "static")
	for _, script := range []string{"app.js", "worker.js", "loader.js", "model-upload.js", "reproduce.js", "ortweb.js"} {
		b, err := os.ReadFile(filepath.Join(dir, script))
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range spelled.FindAllStringSubmatch(string(b), -1) {
			if types[m[1]] {
				t.Errorf("%s spells the message type %q by hand: use messages.js's constant", script, m[1])
			}
		}
	}
}

// TestEncodeDecode: a message encoded as the adapter hands it to
// JavaScript decodes to itself, from Go's tree and from JavaScript's
// (numbers as float64); a reply decodes by its type; malformed trees are
// refused with the field they concern.
func TestEncodeDecode(t *testing.T) {
	msgs := []Message{
		&RunRequest{Request: RunSettings{Model: "static", Data: "demo", Split: "test", Mode: "idshift", Rates: []float64{0, 0.1}, Seeds: 5, FirstSeed: 1 << 40, Show: 0.1, TREC: true, Engine: "go", Lesson: true}},
		&VectorsRequest{Corpus: &BinaryFile{Name: "c.npy", Data: []byte{1, 2, 3}}, CorpusIDs: &TextFile{Name: "ids", Text: "a\nb\n"}, Qrels: TextFile{Name: "q", Text: "q1 0 d1 1\n"}, Scoring: &Scoring{Measures: []string{"map"}, Complete: true}},
		&FilesRequest{Root: "upload/x", Files: []File{{Path: "corpus.jsonl", Data: []byte("{}")}}},
		&SearchRequest{Dim: 8, K: 10, CorpusID: 3, Queries: []byte{0, 0, 128, 63}, DocIDs: []string{"d1"}},
	}
	repls := []Message{
		&RunReply{Views: Views{Table: "<table>", Rates: []float64{0.1}}, Encoding: []Encoding{{Model: "static", Texts: 3, PerSecond: 2}}, Notes: []string{"n"}, Warnings: []string{"w"}},
		&PickReply{Send: map[string]string{"a/corpus.jsonl": "corpus.jsonl"}},
		&ErrorReply{Message: "bad"},
		&EmbedReply{Dim: 2, Data: []byte{1, 2, 3, 4, 5, 6, 7, 8}},
	}
	for i, m := range append(append([]Message{}, msgs...), repls...) {
		tree := Encode(m)
		if tree["type"] != m.MessageType() {
			t.Errorf("%T: type %v", m, tree["type"])
		}
		decode := DecodeRequest
		if i >= len(msgs) {
			decode = DecodeReply
		}
		got, err := decode(tree)
		if err != nil {
			t.Errorf("%T: %v", m, err)
			continue
		}
		if !reflect.DeepEqual(got, m) {
			t.Errorf("%T: decoded %+v, want %+v", m, got, m)
		}
		if got, err := decode(asJS(tree).(map[string]any)); err != nil || !reflect.DeepEqual(got, m) {
			t.Errorf("%T from JavaScript's tree: %+v, %v", m, got, err)
		}
	}
	if tree := Encode(&RunReply{Skipped: "static: not served"}); tree["skipped"] != "static: not served" || tree["table"] != "" {
		t.Errorf("RunReply's embedded views: %v", tree)
	}
	if tree := Encode(&ModelReply{Model: "m"}); len(tree) != 5 {
		t.Errorf("a ModelReply without a document tower: %v (omitempty fields kept)", tree)
	}
	for _, bad := range []struct {
		tree map[string]any
		want string
	}{
		{map[string]any{"type": "nonsense"}, `unknown message type "nonsense"`},
		{map[string]any{}, `unknown message type ""`},
		{map[string]any{"type": "run", "request": map[string]any{"seeds": "five"}}, "message run: field request.seeds: string is not a int"},
		{map[string]any{"type": "run", "request": map[string]any{"seeds": 2.5}}, "field request.seeds"},
		{map[string]any{"type": "files", "files": []any{map[string]any{"path": 3.0}}}, "field files[0].path"},
		{map[string]any{"type": "view", "show": "0.1"}, "field show"},
	} {
		if _, err := DecodeRequest(bad.tree); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%v: error %v, want %q", bad.tree, err, bad.want)
		}
	}
}

// asJS returns tree as JavaScript gives it back: every number a
// float64.
func asJS(x any) any {
	switch v := x.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, e := range v {
			out[k] = asJS(e)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = asJS(e)
		}
		return out
	case int:
		return float64(v)
	case uint64:
		return float64(v)
	}
	return x
}
