package browser

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/dreval/dreval/encoder/engine"
	"github.com/dreval/dreval/experiment"
	"github.com/dreval/dreval/results"
)

// server is a Server that answers api/encode as "dreval serve" does,
// with model m (or status alone, when not 200), counting the texts it
// encodes.
type server struct {
	status int
	m      *experiment.Model
	mu     sync.Mutex
	texts  int
}

func (s *server) Post(body []byte, accept string) (*HTTPReply, error) {
	var q encodeBody
	if err := json.Unmarshal(body, &q); err != nil {
		return nil, err
	}
	if s.status != 200 {
		return &HTTPReply{Status: s.status, StatusText: "no", Body: []byte(`{"error": "not here"}`)}, nil
	}
	t := s.m.Query
	if q.Side == engine.Document {
		t = s.m.Document
	}
	if len(q.IDs) == 0 && q.Engine == "" {
		b, _ := json.Marshal(map[string]any{"dim": t.Embedder.Dim(), "engine": s.m.Engine, "fingerprint": t.Fingerprint})
		return &HTTPReply{Status: 200, Body: b}, nil
	}
	if q.Engine != s.m.Engine {
		return &HTTPReply{Status: 409, Body: []byte(`{"error": "another engine"}`)}, nil
	}
	vecs, err := t.Embedder.EmbedIDs(q.IDs)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.texts += len(q.IDs)
	s.mu.Unlock()
	var out []byte
	for _, v := range vecs {
		for _, x := range v {
			out = binary.LittleEndian.AppendUint32(out, math.Float32bits(x))
		}
	}
	header := map[string]string{"X-Dreval-Rows": strconv.Itoa(len(vecs)), "X-Dreval-Dim": strconv.Itoa(t.Embedder.Dim())}
	return &HTTPReply{Status: 200, Body: out, Header: func(name string) string { return header[name] }}, nil
}

// TestServerEncodes: under the Engine setting auto, a server that
// encodes the same model encodes the run's texts, with the numbers of
// the page's own encoding; a server that does not (404, 501) leaves the
// page to encode, and the page says why; under the setting go the server
// is not asked.
func TestServerEncodes(t *testing.T) {
	local, _ := newApp(t, 0)
	m, err := local.openLocal(t.Context(), "static", "go")
	if err != nil {
		t.Fatal(err)
	}
	export := func(a *App) string {
		var res results.Results
		if err := json.Unmarshal([]byte(answer[*ExportReply](t, a, &ExportRequest{}).JSON), &res); err != nil {
			t.Fatal(err)
		}
		return numbers(t, res.Datasets[0].Models[0])
	}
	auto := lesson([]float64{0, 0.1}, 0.1)
	auto.Request.Engine = "auto"
	answer[*RunReply](t, local, auto)
	want := export(local)
	for _, tc := range []struct {
		status int
		engine string
		label  string // the encoding's engine
		note   string // in the encoding's note
	}{
		{200, "auto", "the server's static token table", `"dreval serve" serves static and encodes it for this page`},
		{404, "auto", "static, 1 worker", "Not on the server: this host does not encode static (no dreval serve, or it lacks the model)"},
		{501, "auto", "static, 1 worker", "Not on the server: this host does not encode (a static site or the Worker)"},
		{200, "go", "static, 1 worker", "Encoding in this browser (static)"},
	} {
		t.Run(fmt.Sprint(tc.status, tc.engine), func(t *testing.T) {
			srv := &server{status: tc.status, m: m}
			a := New(Ports{Files: &site{fsys: siteFS(t)}, Server: srv})
			q := lesson([]float64{0, 0.1}, 0.1)
			q.Request.Engine = tc.engine
			r := answer[*RunReply](t, a, q)
			if len(r.Encoding) != 1 || r.Encoding[0].Engine != tc.label || !strings.Contains(r.Encoding[0].Note, tc.note) {
				t.Errorf("encoding %+v, want %q and a note with %q", r.Encoding, tc.label, tc.note)
			}
			if got := export(a); got != want {
				t.Errorf("numbers\n%s\nwant (the page's own encoding)\n%s", got, want)
			}
			if served := srv.texts > 0; served != (tc.status == 200 && tc.engine == "auto") {
				t.Errorf("the server encoded %d texts", srv.texts)
			}
		})
	}
}
