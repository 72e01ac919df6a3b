package browser

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sync"

	"github.com/dreval/dreval/encoder"
	"github.com/dreval/dreval/encoder/engine"
	"github.com/dreval/dreval/experiment"
)

// peer is a helper worker and what this worker sent it.
type peer struct {
	Peer
	// corpus is the id of the last search corpus sent to this helper
	// (search.go; guarded by App.mu), 0 for none.
	corpus int
}

// peerList returns the helper workers the page gave this worker.
func (a *App) peerList() []*peer {
	if a.ports.Peers == nil {
		return nil
	}
	ps := a.ports.Peers()
	a.mu.Lock()
	defer a.mu.Unlock()
	for i := len(a.peers); i < len(ps); i++ {
		a.peers = append(a.peers, &peer{Peer: ps[i]})
	}
	return a.peers
}

// PortPeer is a Peer reached through a MessagePort: it numbers each
// call's request (its "id") and hands each reply, which carries its
// request's id, to its call. The adapter posts its requests (post) and
// gives it the replies (Receive).
type PortPeer struct {
	post    func(tree map[string]any)
	mu      sync.Mutex
	next    int
	waiting map[int]chan Message
}

// NewPortPeer returns the Peer that posts its requests, encoded
// (Encode), with post.
func NewPortPeer(post func(tree map[string]any)) *PortPeer {
	return &PortPeer{post: post, waiting: map[int]chan Message{}}
}

// Call implements Peer.
func (p *PortPeer) Call(req Message) <-chan Message {
	ch := make(chan Message, 1)
	p.mu.Lock()
	p.next++
	id := p.next
	p.waiting[id] = ch
	p.mu.Unlock()
	t := Encode(req)
	t["id"] = id
	p.post(t)
	return ch
}

// Post implements Peer.
func (p *PortPeer) Post(req Message) { p.post(Encode(req)) }

// Receive hands reply tree t to the call whose id it carries, without
// blocking (the call's channel has room for it): a reply to no call is
// dropped, one that does not decode is an ErrorReply.
func (p *PortPeer) Receive(t map[string]any) {
	id, ok := number(t["id"])
	p.mu.Lock()
	ch, waiting := p.waiting[int(id)]
	delete(p.waiting, int(id))
	p.mu.Unlock()
	if !ok || !waiting {
		return
	}
	m, err := DecodeReply(t)
	if err != nil {
		m = &ErrorReply{Message: err.Error()}
	}
	ch <- m
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
		answer <-chan Message
		lo, hi int
	}
	var pending []sent
	for i := 1; i < parts; i++ {
		lo, hi := i*size, min((i+1)*size, len(ids))
		if lo >= hi {
			break
		}
		data, lens := packIDs(ids[lo:hi])
		answer := h.peers[i-1].Call(&EmbedRequest{Model: h.model, Engine: h.engine, Side: h.side, Data: data, Lens: lens})
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
		var r *EmbedReply
		switch m := (<-s.answer).(type) {
		case *ErrorReply:
			return nil, fmt.Errorf("helper worker: %s", m.Message)
		case *EmbedReply:
			r = m
		default:
			return nil, fmt.Errorf("helper worker: a %s reply to embed", m.MessageType())
		}
		n := s.hi - s.lo
		if r.Dim != dim || len(r.Data) != n*dim*4 {
			return nil, errors.New("helper worker returned vectors of the wrong size")
		}
		for j := 0; j < n; j++ {
			v := make([]float32, dim)
			for c := range v {
				v[c] = math.Float32frombits(binary.LittleEndian.Uint32(r.Data[4*(j*dim+c):]))
			}
			out[s.lo+j] = v
		}
	}
	return out, nil
}

// prepareHelpers has every helper worker open model name for engine
// setting e now (a PrepareRequest, answered by nothing: a failure shows
// at the first EmbedRequest), so that they load it while this worker
// does; uploads (sent to the helpers with the run) and BM25 need nothing,
// nor the static model, which this worker embeds alone (embedsAlone).
// Where the server may encode the model (engine auto, and the server
// answers its encode probe), it is not opened ahead: a transformer opens
// in seconds, for nothing when the server encodes it.
func (a *App) prepareHelpers(name, e string) {
	if name == "" || name == "bm25" || name == "static" || isUpload(name) {
		return // nothing to open, or embedded here alone (embedsAlone)
	}
	if e == engineAuto && a.serverMayEncode(name) {
		return
	}
	for _, p := range a.peerList() {
		p.Post(&PrepareRequest{Model: name, Engine: e})
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
func (a *App) prepare(name, e string) {
	a.prefetchORT(name, e)
	if m, err := a.openLocal(context.Background(), name, e); err == nil && m.Kind == experiment.Dense {
		m.Document.Embedder.EmbedIDs(nil)
	}
}

// serverMayEncode reports whether the server answers an encode probe for
// model name (status 200), asked once: where it does not, the page
// encodes the model, and the helpers can open it at once.
func (a *App) serverMayEncode(name string) bool {
	a.mu.Lock()
	ok, asked := a.probes[name]
	a.mu.Unlock()
	if asked {
		return ok
	}
	if a.ports.Server != nil {
		if body, err := json.Marshal(encodeBody{Model: name, Side: engine.Query, IDs: [][]int32{}}); err == nil {
			resp, err := a.ports.Server.Post(body, "application/json")
			ok = err == nil && resp.Status == 200
		}
	}
	a.mu.Lock()
	a.probes[name] = ok
	a.mu.Unlock()
	return ok
}
