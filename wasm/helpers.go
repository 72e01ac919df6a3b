//go:build js && wasm

package main

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sync"
	"syscall/js"

	"github.com/dreval/dreval/encoder"
	"github.com/dreval/dreval/encoder/engine"
	"github.com/dreval/dreval/experiment"
)

// peer is a helper worker, reached through a MessagePort.
type peer struct {
	port  js.Value
	onMsg js.Func
	mu    sync.Mutex
	// waiting holds, by request id, where each answer awaited goes
	// (call). An answer to no request awaited is dropped.
	waiting map[int]chan js.Value
	// corpus is the id of the last search corpus sent to this helper
	// (search.go; guarded by app.mu), 0 for none.
	corpus int
}

// peerList returns the helper workers the page gave this worker (the
// MessagePorts in the global drevalPeers), set up on first use.
func (a *app) peerList() []*peer {
	a.mu.Lock()
	defer a.mu.Unlock()
	ports := js.Global().Get("drevalPeers")
	if ports.IsUndefined() || ports.IsNull() {
		return nil
	}
	for i := len(a.peers); i < ports.Length(); i++ {
		p := &peer{port: ports.Index(i), waiting: map[int]chan js.Value{}}
		p.onMsg = js.FuncOf(func(this js.Value, args []js.Value) any {
			// Never blocks the event loop: each answer goes to its
			// request's channel, which has room for it.
			data := args[0].Get("data")
			id := data.Get("id")
			if id.Type() != js.TypeNumber {
				return nil
			}
			p.mu.Lock()
			ch, ok := p.waiting[id.Int()]
			delete(p.waiting, id.Int())
			p.mu.Unlock()
			if ok {
				ch <- data
			}
			return nil
		})
		p.port.Set("onmessage", p.onMsg)
		a.peers = append(a.peers, p)
	}
	return a.peers
}

// requestID numbers a request to a helper.
func (a *app) requestID() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.nextID++
	return a.nextID
}

// call posts msg, request id, to the helper and returns where its answer
// will come. Requests to one helper may be in flight together (a search
// and the tests' draws); the answers find their own requests.
func (p *peer) call(id int, msg map[string]any) <-chan js.Value {
	ch := make(chan js.Value, 1)
	p.mu.Lock()
	p.waiting[id] = ch
	p.mu.Unlock()
	msg["id"] = id
	p.port.Call("postMessage", js.ValueOf(msg))
	return ch
}

// helperEmbedder splits every batch between this worker and its helpers:
// the helpers get their chunks first, this worker embeds its own while
// they work, then collects theirs. Each sequence's vector does not depend
// on the chunk it is in.
type helperEmbedder struct {
	local  encoder.Embedder
	model  string
	engine string // the engine setting the helpers open the model with
	side   string // the model's side the helpers embed with
	peers  []*peer
	a      *app
}

func (h *helperEmbedder) Dim() int { return h.local.Dim() }

func (h *helperEmbedder) EmbedIDs(ids [][]int32) ([][]float32, error) {
	parts := len(h.peers) + 1
	if len(ids) < parts {
		parts = len(ids)
	}
	if parts <= 1 {
		return h.local.EmbedIDs(ids)
	}
	size := (len(ids) + parts - 1) / parts
	type sent struct {
		answer <-chan js.Value
		lo, hi int
	}
	var pending []sent
	for i := 1; i < parts; i++ {
		lo, hi := i*size, min((i+1)*size, len(ids))
		if lo >= hi {
			break
		}
		data, lens := packIDs(ids[lo:hi])
		answer := h.peers[i-1].call(h.a.requestID(), map[string]any{
			"type": "embed", "model": h.model, "engine": h.engine, "side": h.side, "data": jsBytes(data), "lens": jsBytes(lens),
		})
		pending = append(pending, sent{answer, lo, hi})
	}
	out := make([][]float32, len(ids))
	mine, err := h.local.EmbedIDs(ids[:min(size, len(ids))])
	if err != nil {
		return nil, err
	}
	copy(out, mine)
	dim := h.local.Dim()
	for _, s := range pending {
		r := <-s.answer
		if r.Get("type").String() == "error" {
			return nil, fmt.Errorf("helper worker: %s", r.Get("message").String())
		}
		b := bytesOf(r.Get("data"))
		n := s.hi - s.lo
		if r.Get("dim").Int() != dim || len(b) != n*dim*4 {
			return nil, errors.New("helper worker returned vectors of the wrong size")
		}
		for j := 0; j < n; j++ {
			v := make([]float32, dim)
			for c := range v {
				v[c] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*(j*dim+c):]))
			}
			out[s.lo+j] = v
		}
	}
	return out, nil
}

// prepareHelpers has every helper worker open model name for engine
// setting e now ("prepare", answered by nothing: a failure shows at the
// first "embed"), so that they load it while this worker does; uploads
// (sent to the helpers with the run) and BM25 need nothing, nor the
// static model, which this worker embeds alone (embedsAlone). Where the
// server may encode the model (engine auto, and the server answers its
// encode probe), it is not opened ahead: a transformer opens in seconds,
// for nothing when the server encodes it.
func (a *app) prepareHelpers(name, e string) {
	if name == "" || name == "bm25" || name == "static" || isUpload(name) {
		return // nothing to open, or embedded here alone (embedsAlone)
	}
	if e == engineAuto && serverMayEncode(name) {
		return
	}
	for _, p := range a.peerList() {
		p.port.Call("postMessage", js.ValueOf(map[string]any{"type": "prepare", "model": name, "engine": e}))
	}
	// This worker too (prepare starts the downloads first): its session
	// then opens while the run reads the demo's vectors, not when its
	// first batch comes.
	go a.prepare(name, e)
}

// prepare opens model name for engine setting e now (a failure comes
// again with its first use): a dense model's document tower embeds no
// sequences, which on onnxruntime-web loads the runtime, the graph and
// the session too. What onnxruntime-web needs beyond the model's files
// downloads meanwhile (prefetchORT).
func (a *app) prepare(name, e string) {
	a.prefetchORT(name, e)
	if m, err := a.openLocal(context.Background(), name, e); err == nil && m.Kind == experiment.Dense {
		m.Document.Embedder.EmbedIDs(nil)
	}
}

// encodeProbes holds, by model name, whether the server answers an encode
// probe (serverMayEncode).
var encodeProbes struct {
	sync.Mutex
	m map[string]bool
}

// serverMayEncode reports whether the server answers an encode probe for
// model name (status 200), asked once: where it does not, the page
// encodes the model, and the helpers can open it at once.
func serverMayEncode(name string) bool {
	encodeProbes.Lock()
	ok, asked := encodeProbes.m[name]
	encodeProbes.Unlock()
	if asked {
		return ok
	}
	if u, err := encodeURL(); err == nil {
		if body, err := json.Marshal(encodeBody{Model: name, Side: engine.Query, IDs: [][]int32{}}); err == nil {
			resp, err := postJSON(u, body, "application/json")
			ok = err == nil && resp.status == 200
		}
	}
	encodeProbes.Lock()
	if encodeProbes.m == nil {
		encodeProbes.m = map[string]bool{}
	}
	encodeProbes.m[name] = ok
	encodeProbes.Unlock()
	return ok
}
