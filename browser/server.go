package browser

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"

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
	server              Server
	model, side, engine string
	dim                 int
}

// probeServer returns an embedder of side of model name through the
// server when the server encodes the same model as m (the local model)
// with the same dimension; else nil and why not, in words.
func (a *App) probeServer(name, side string, m *experiment.Model) (*serverEmbedder, string) {
	if a.ports.Server == nil {
		return nil, "no server beside the page"
	}
	body, err := json.Marshal(encodeBody{Model: name, Side: side, IDs: [][]int32{}})
	if err != nil {
		return nil, err.Error()
	}
	resp, err := a.ports.Server.Post(body, "application/json")
	if err != nil {
		return nil, "the server could not be reached: " + err.Error()
	}
	switch resp.Status {
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
	if err := json.Unmarshal(resp.Body, &r); err != nil || r.Dim == nil {
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
	return &serverEmbedder{server: a.ports.Server, model: name, side: side, engine: r.Engine, dim: *r.Dim}, ""
}

// serverError is the error message of a reply, or its status.
func serverError(resp *HTTPReply) string {
	var e struct {
		Error string `json:"error"`
	}
	if json.Unmarshal(resp.Body, &e) == nil && e.Error != "" {
		return e.Error
	}
	return fmt.Sprintf("HTTP %d %s", resp.Status, resp.StatusText)
}

func (s *serverEmbedder) Dim() int { return s.dim }

// EmbedIDs posts ids to /api/encode and reads the binary reply.
func (s *serverEmbedder) EmbedIDs(ids [][]int32) ([][]float32, error) {
	body, err := json.Marshal(encodeBody{Model: s.model, Side: s.side, Engine: s.engine, IDs: ids})
	if err != nil {
		return nil, err
	}
	resp, err := s.server.Post(body, "application/octet-stream")
	if err != nil {
		return nil, fmt.Errorf("encoding on the server: %w", err)
	}
	b := resp.Body
	if resp.Status != 200 {
		return nil, fmt.Errorf("encoding on the server: %s", serverError(resp))
	}
	rows, err1 := strconv.Atoi(resp.Header("X-Dreval-Rows"))
	dim, err2 := strconv.Atoi(resp.Header("X-Dreval-Dim"))
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
