//go:build js && wasm

package main

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"syscall/js"

	"github.com/dreval/dreval/encoder/engine"
	"github.com/dreval/dreval/experiment"
)

// Under the Engine setting auto, the app encodes with the server when it
// is "dreval serve" with the same model, whatever engine it runs: POST
// /api/encode (package serve) with no ids answers the model's
// dimension, engine and fingerprint, which must be the page's model's
// with that engine (experiment.Model.WithEngine): the same files, the
// same settings. The requests then name the server's engine, so a server
// restarted with another is refused (409) rather than mixed in. Static
// hosts answer 404, the Worker and servers without the model 501 or 404:
// the app then encodes in the browser.

// encodeURL returns the URL of api/encode beside the worker's script.
func encodeURL() (string, error) {
	loc := js.Global().Get("location")
	if loc.IsUndefined() || loc.IsNull() {
		return "", errors.New("no location")
	}
	if p := loc.Get("protocol").String(); p != "http:" && p != "https:" {
		return "", fmt.Errorf("served over %s, not HTTP", p)
	}
	return js.Global().Get("URL").New("api/encode", loc.Get("href")).Call("toString").String(), nil
}

// await waits for promise p to settle: its value, or its rejection as an
// error. The calling goroutine blocks; the JS event loop keeps running.
func await(p js.Value) (js.Value, error) {
	type result struct {
		v   js.Value
		err error
	}
	ch := make(chan result, 1)
	then := js.FuncOf(func(_ js.Value, args []js.Value) any {
		ch <- result{v: args[0]}
		return nil
	})
	catch := js.FuncOf(func(_ js.Value, args []js.Value) any {
		ch <- result{err: errors.New(args[0].Call("toString").String())}
		return nil
	})
	defer then.Release()
	defer catch.Release()
	p.Call("then", then, catch)
	r := <-ch
	return r.v, r.err
}

// fetchReply is what postJSON returns of a response.
type fetchReply struct {
	status     int
	statusText string
	headers    js.Value
	body       []byte
}

func (r *fetchReply) header(name string) string {
	v := r.headers.Call("get", name)
	if v.IsNull() {
		return ""
	}
	return v.String()
}

// postJSON posts body to url with the browser's fetch (the Go standard
// library's client would add a megabyte to the app) and reads the whole
// reply.
func postJSON(url string, body []byte, accept string) (*fetchReply, error) {
	resp, err := await(js.Global().Call("fetch", url, js.ValueOf(map[string]any{
		"method":  "POST",
		"headers": map[string]any{"Content-Type": "application/json", "Accept": accept},
		"body":    string(body),
	})))
	if err != nil {
		return nil, err
	}
	ab, err := await(resp.Call("arrayBuffer"))
	if err != nil {
		return nil, fmt.Errorf("reading the reply: %v", err)
	}
	return &fetchReply{
		status:     resp.Get("status").Int(),
		statusText: resp.Get("statusText").String(),
		headers:    resp.Get("headers"),
		body:       bytesOf(js.Global().Get("Uint8Array").New(ab)),
	}, nil
}

// encodeBody is the JSON body of an /api/encode request.
type encodeBody struct {
	Model  string    `json:"model"`
	Side   string    `json:"side"`
	Engine string    `json:"engine,omitempty"`
	IDs    [][]int32 `json:"ids"`
}

// serverEmbedder embeds side of a model through the server's
// /api/encode, with the server's engine.
type serverEmbedder struct {
	url, model, side, engine string
	dim                      int
}

// probeServer returns an embedder of side of model name through the
// server when the server encodes the same model as m (the local model)
// with the same dimension; else nil and why not, in words.
func probeServer(name, side string, m *experiment.Model) (*serverEmbedder, string) {
	u, err := encodeURL()
	if err != nil {
		return nil, err.Error()
	}
	body, err := json.Marshal(encodeBody{Model: name, Side: side, IDs: [][]int32{}})
	if err != nil {
		return nil, err.Error()
	}
	resp, err := postJSON(u, body, "application/json")
	if err != nil {
		return nil, "the server could not be reached: " + err.Error()
	}
	switch resp.status {
	case 200:
	case 404:
		return nil, "this host does not encode " + name + " (no dreval serve, or it lacks the model)"
	case 501:
		return nil, "this host does not encode (a static site or the Worker)"
	default:
		return nil, fmt.Sprintf("the server could not encode %s (%s)", name, serverError(resp))
	}
	var r struct {
		Dim         *int   `json:"dim"`
		Engine      string `json:"engine"`
		Fingerprint string `json:"fingerprint"`
	}
	if err := json.Unmarshal(resp.body, &r); err != nil || r.Dim == nil {
		return nil, "the server's api/encode did not answer an encode reply"
	}
	t := m.Query
	if side == engine.Document {
		t = m.Document
	}
	if *r.Dim != t.Embedder.Dim() {
		return nil, fmt.Sprintf("the server's %s has %d dimensions, this one %d", name, *r.Dim, t.Embedder.Dim())
	}
	if r.Engine != "" && r.Fingerprint != "" {
		same, err := m.WithEngine(r.Engine)
		if err != nil {
			return nil, err.Error()
		}
		want := same.Query.Fingerprint
		if side == engine.Document {
			want = same.Document.Fingerprint
		}
		if r.Fingerprint != want {
			return nil, fmt.Sprintf("the server's %s is another model than the one it serves to this page (fingerprint %s, the page's %s)", name, r.Fingerprint, want)
		}
	}
	return &serverEmbedder{url: u, model: name, side: side, engine: r.Engine, dim: *r.Dim}, ""
}

// serverError is the error message of a reply, or its status.
func serverError(resp *fetchReply) string {
	var e struct {
		Error string `json:"error"`
	}
	if json.Unmarshal(resp.body, &e) == nil && e.Error != "" {
		return e.Error
	}
	return fmt.Sprintf("HTTP %d %s", resp.status, resp.statusText)
}

func (s *serverEmbedder) Dim() int { return s.dim }

// EmbedIDs posts ids to /api/encode and reads the binary reply.
func (s *serverEmbedder) EmbedIDs(ids [][]int32) ([][]float32, error) {
	body, err := json.Marshal(encodeBody{Model: s.model, Side: s.side, Engine: s.engine, IDs: ids})
	if err != nil {
		return nil, err
	}
	resp, err := postJSON(s.url, body, "application/octet-stream")
	if err != nil {
		return nil, fmt.Errorf("encoding on the server: %w", err)
	}
	b := resp.body
	if resp.status != 200 {
		return nil, fmt.Errorf("encoding on the server: %s", serverError(resp))
	}
	rows, err1 := strconv.Atoi(resp.header("X-Dreval-Rows"))
	dim, err2 := strconv.Atoi(resp.header("X-Dreval-Dim"))
	switch {
	case err1 != nil || err2 != nil:
		return nil, errors.New("encoding on the server: the reply lacks its X-Dreval-Rows and X-Dreval-Dim headers")
	case rows != len(ids) || dim != s.dim:
		return nil, fmt.Errorf("encoding on the server: got %d vectors of %d values, want %d of %d", rows, dim, len(ids), s.dim)
	case len(b) != 4*rows*dim:
		return nil, fmt.Errorf("encoding on the server: the reply has %d bytes, want %d", len(b), 4*rows*dim)
	}
	out := make([][]float32, rows)
	for i := range out {
		v := make([]float32, dim)
		for j := range v {
			v[j] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*(i*dim+j):]))
		}
		out[i] = v
	}
	return out, nil
}
