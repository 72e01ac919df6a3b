package serve

import (
	"context"
	"encoding/binary"
	"errors"
	"math"
	"mime"
	"net/http"
	"strconv"
	"strings"
)

// encodeRequest is the body of POST /api/encode: texts, or token ids
// (special tokens included, as the model reads them), not both. Side is
// the side of retrieval the texts are ("query" or "document", the
// default): a retriever's query and document encoders may differ (two
// towers, prompts). Engine, when given, is the engine the vectors must
// come from ("go", "ort", "static"): a client that compares them with
// vectors it computed itself asks for its own engine, and gets 409 from a
// server that encodes with another.
type encodeRequest struct {
	Model  string    `json:"model"`
	Side   string    `json:"side"`
	Engine string    `json:"engine"`
	Texts  []string  `json:"texts"`
	IDs    [][]int32 `json:"ids"`
}

const encodeWhat = `{"model": "minilm", "texts": [...]} or {"model": "minilm", "ids": [[...], ...]}, optionally with "side": "query" or "document" (the default) and "engine": "go"`

// encodeResponse is the JSON reply of POST /api/encode.
type encodeResponse struct {
	Model       string      `json:"model"`
	Dim         int         `json:"dim"`
	Engine      string      `json:"engine,omitempty"`
	Fingerprint string      `json:"fingerprint,omitempty"`
	Truncated   int         `json:"truncated"`
	Embeddings  [][]float32 `json:"embeddings"`
}

// Binary replies of /api/encode (Accept: application/octet-stream) are
// the vectors as little-endian float32, row after row, with these headers
// giving the shape.
const (
	HeaderRows = "X-Dreval-Rows"
	HeaderDim  = "X-Dreval-Dim"
)

func (s *server) encode(ctx context.Context, req *request) (*reply, error) {
	if s.opts.Encoder == nil {
		return nil, errorf(http.StatusNotImplemented, "this server does not encode (no native engine here); run \"dreval serve\" with the model installed, or encode in the browser")
	}
	var er encodeRequest
	if err := decodeJSON(req.body, &er, encodeWhat); err != nil {
		return nil, err
	}
	switch {
	case er.Model == "":
		return nil, errorf(http.StatusBadRequest, `"model" is missing (expected %s)`, encodeWhat)
	case !validName(er.Model):
		return nil, errorf(http.StatusBadRequest, "model %q: not a model name (letters, digits, '.', '_' and '-')", er.Model)
	case er.Texts != nil && er.IDs != nil:
		return nil, errorf(http.StatusBadRequest, `give "texts" or "ids", not both`)
	case er.Texts == nil && er.IDs == nil:
		return nil, errorf(http.StatusBadRequest, `"texts" or "ids" is required (expected %s)`, encodeWhat)
	case er.Engine != "" && !validName(er.Engine):
		return nil, errorf(http.StatusBadRequest, "engine %q: not an engine name (letters, digits, '.', '_' and '-')", er.Engine)
	case er.Side != "" && er.Side != SideQuery && er.Side != SideDocument:
		return nil, errorf(http.StatusBadRequest, "side %q: expected %q or %q", er.Side, SideQuery, SideDocument)
	}
	if er.Side == "" {
		er.Side = SideDocument
	}
	n := max(len(er.Texts), len(er.IDs))
	if n > s.limits.MaxTexts {
		return nil, errorf(http.StatusBadRequest, "%d sequences: the limit is %d per request", n, s.limits.MaxTexts)
	}
	binaryOut := acceptsBinary(req.accept)
	enc, err := s.opts.Encoder(ctx, er.Model, er.Side)
	if err != nil {
		if errors.Is(err, ErrUnknownModel) {
			return nil, errorf(http.StatusNotFound, "%s", scrubPaths(err.Error()))
		}
		return nil, err
	}
	have, fingerprint := "", ""
	if en, ok := enc.(EngineNamer); ok {
		have = en.Engine()
	}
	if fp, ok := enc.(Fingerprinter); ok {
		fingerprint = fp.Fingerprint()
	}
	if er.Engine != "" {
		if have != er.Engine {
			if have == "" {
				have = "an engine it does not name"
			} else {
				have = "engine " + strconv.Quote(have)
			}
			return nil, errorf(http.StatusConflict, "model %s is encoded here with %s, not engine %q (\"dreval serve -engine go\" encodes with the pure-Go engine)", er.Model, have, er.Engine)
		}
	}
	ids, truncated := er.IDs, 0
	if er.Texts != nil {
		ids, truncated = enc.Tokenize(er.Texts)
	} else if err := checkIDs(ids, enc.VocabSize(), enc.MaxLength()); err != nil {
		return nil, err
	}
	var vecs [][]float32
	if len(ids) > 0 {
		if err := s.waitSem(ctx, s.sem, "encode"); err != nil {
			return nil, err
		}
		vecs, err = func() ([][]float32, error) {
			defer func() { <-s.sem }()
			return embedBatches(ctx, enc, ids)
		}()
		if err != nil {
			return nil, err
		}
	}
	if len(vecs) != len(ids) {
		return nil, errorf(http.StatusInternalServerError, "the model returned %d vectors for %d sequences", len(vecs), len(ids))
	}
	dim := enc.Dim()
	for i, v := range vecs {
		if len(v) != dim {
			return nil, errorf(http.StatusInternalServerError, "the model returned a vector of %d values for sequence %d, want %d", len(v), i, dim)
		}
	}
	if binaryOut {
		b := make([]byte, 0, 4*dim*len(vecs))
		for _, v := range vecs {
			for _, x := range v {
				b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
			}
		}
		h := http.Header{}
		h.Set(HeaderRows, strconv.Itoa(len(vecs)))
		h.Set(HeaderDim, strconv.Itoa(dim))
		h.Set("X-Dreval-Truncated", strconv.Itoa(truncated))
		if have != "" {
			h.Set("X-Dreval-Engine", have)
		}
		return &reply{contentType: "application/octet-stream", header: h, body: b}, nil
	}
	if vecs == nil {
		vecs = [][]float32{}
	}
	return jsonReply(encodeResponse{Model: er.Model, Dim: dim, Engine: have, Fingerprint: fingerprint, Truncated: truncated, Embeddings: vecs})
}

// checkIDs checks id sequences a client sent: not empty, no longer than
// maxLen (0: no limit), every id in the vocabulary.
func checkIDs(ids [][]int32, vocab, maxLen int) error {
	for i, seq := range ids {
		if len(seq) == 0 {
			return errorf(http.StatusBadRequest, "ids[%d] is empty: a sequence needs at least one id ([CLS] [SEP] for an empty text)", i)
		}
		if maxLen > 0 && len(seq) > maxLen {
			return errorf(http.StatusBadRequest, "ids[%d] has %d ids; the model takes at most %d", i, len(seq), maxLen)
		}
		for j, id := range seq {
			if id < 0 || int(id) >= vocab {
				return errorf(http.StatusBadRequest, "ids[%d][%d] = %d is outside the vocabulary [0, %d)", i, j, id, vocab)
			}
		}
	}
	return nil
}

// acceptsBinary reports whether an Accept header asks for
// application/octet-stream (with a non-zero q).
func acceptsBinary(accept string) bool {
	for _, part := range strings.Split(accept, ",") {
		mt, params, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil || mt != "application/octet-stream" {
			continue
		}
		if q, ok := params["q"]; ok {
			if v, err := strconv.ParseFloat(q, 64); err == nil && v == 0 {
				continue
			}
		}
		return true
	}
	return false
}
