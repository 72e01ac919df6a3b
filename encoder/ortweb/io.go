package ortweb

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/dreval/dreval/internal/float16"
)

// This file is the one place that knows which graphs the engine runs: the
// inputs it can feed and the outputs it reads, by the names and element
// types onnxruntime-web reports for a session (inputMetadata and
// outputMetadata). Today that is the plain encoder graph "dreval model
// export-onnx" writes and Hugging Face exports share: int64 (or int32)
// input_ids, attention_mask and optionally token_type_ids and
// position_ids, [batch, sequence]; the token vectors as last_hidden_state
// (or token_embeddings), float32 or float16 [batch, sequence, hidden].
// Graphs that pool inside (sentence_embedding) are refused: the Head
// pools here, as in every engine.

// Value is one input or output of a session, as onnxruntime-web describes
// it: its name, its element type ("int64", "float32", "float16", ...),
// whether it is a tensor, and its rank (-1 when not stated).
type Value struct {
	Name   string
	Type   string
	Tensor bool
	Rank   int
}

// Feed is what an input is fed with.
type Feed int

// The feeds.
const (
	// FeedIDs is the token ids, padded with the model's padding id.
	FeedIDs Feed = iota
	// FeedMask is 1 for a token, 0 for padding.
	FeedMask
	// FeedTokenTypes is 0 everywhere (one segment).
	FeedTokenTypes
	// FeedPositions is each token's position (from the family's offset).
	FeedPositions
)

// Input names of the graphs the engine runs, and their feeds.
var inputFeeds = map[string]Feed{
	"input_ids":      FeedIDs,
	"attention_mask": FeedMask,
	"token_type_ids": FeedTokenTypes,
	"position_ids":   FeedPositions,
}

// outputNames are the token-vector outputs the engine reads, in order of
// preference.
var outputNames = []string{"last_hidden_state", "token_embeddings"}

// Input is one input of a Plan.
type Input struct {
	Name string
	Feed Feed
	// Int32 is set when the graph takes int32 ids (else int64).
	Int32 bool
}

// Plan says how a session is fed and read.
type Plan struct {
	Inputs []Input
	// Output is the token-vector output read; Float16 is set when its
	// elements are float16 (else float32).
	Output  string
	Float16 bool
}

// NewPlan returns how to run a session with these inputs and outputs,
// or an error naming what the engine cannot feed or read.
func NewPlan(inputs, outputs []Value) (*Plan, error) {
	p := &Plan{}
	var names []string
	for _, in := range inputs {
		names = append(names, in.Name)
	}
	for _, in := range inputs {
		feed, ok := inputFeeds[in.Name]
		if !ok {
			return nil, fmt.Errorf("the graph has an input %q (inputs: %s); the ort-web engine feeds only input_ids, attention_mask, token_type_ids and position_ids", in.Name, strings.Join(names, ", "))
		}
		if in.Type != "int64" && in.Type != "int32" {
			return nil, fmt.Errorf("the graph's input %s is %s; the ort-web engine feeds int64 or int32", in.Name, in.Type)
		}
		if in.Rank >= 0 && in.Rank != 2 {
			return nil, fmt.Errorf("the graph's input %s has %d dimensions; the ort-web engine feeds [batch, sequence]", in.Name, in.Rank)
		}
		p.Inputs = append(p.Inputs, Input{Name: in.Name, Feed: feed, Int32: in.Type == "int32"})
	}
	if !slices.Contains(names, "input_ids") {
		return nil, fmt.Errorf("the graph's inputs are %s, without input_ids", strings.Join(names, ", "))
	}
	var outs []string
	for _, o := range outputs {
		outs = append(outs, o.Name+" ("+o.Type+")")
	}
	for _, want := range outputNames {
		for _, o := range outputs {
			if o.Name != want {
				continue
			}
			if !o.Tensor || (o.Type != "float32" && o.Type != "float16") || (o.Rank >= 0 && o.Rank != 3) {
				return nil, fmt.Errorf("the graph's output %s is a %s of rank %d; the ort-web engine reads token vectors, float32 or float16 [batch, sequence, hidden]", o.Name, o.Type, o.Rank)
			}
			p.Output, p.Float16 = o.Name, o.Type == "float16"
			return p, nil
		}
	}
	return nil, fmt.Errorf("the graph's outputs are %s; the ort-web engine reads the token vectors as %s (float [batch, sequence, hidden]) and pools them itself", strings.Join(outs, ", "), strings.Join(outputNames, " or "))
}

// Padding says how a batch is padded: ids are padded with PadID (masked
// out); positions count from PositionOffset (RoBERTa's and MPNet's start
// after their padding index).
type Padding struct {
	PadID          int64
	PositionOffset int64
}

// Feeds returns the batch's width (its longest sequence) and, for each
// of p's inputs in order, its [len(seqs), width] values as little-endian
// bytes (int64 or int32), ready for an onnxruntime-web tensor.
func (p *Plan) Feeds(seqs [][]int32, pad Padding) (width int, data [][]byte) {
	for _, s := range seqs {
		width = max(width, len(s))
	}
	n := len(seqs)
	for _, in := range p.Inputs {
		size := 8
		if in.Int32 {
			size = 4
		}
		b := make([]byte, n*width*size)
		put := func(k int, v int64) {
			if in.Int32 {
				binary.LittleEndian.PutUint32(b[4*k:], uint32(int32(v)))
			} else {
				binary.LittleEndian.PutUint64(b[8*k:], uint64(v))
			}
		}
		for i, s := range seqs {
			for j := 0; j < width; j++ {
				k := i*width + j
				real := j < len(s)
				switch in.Feed {
				case FeedIDs:
					if real {
						put(k, int64(s[j]))
					} else {
						put(k, pad.PadID)
					}
				case FeedMask:
					if real {
						put(k, 1)
					}
				case FeedPositions:
					if real {
						put(k, pad.PositionOffset+int64(j))
					} else {
						put(k, max(pad.PositionOffset-1, 0))
					}
				}
				// FeedTokenTypes: zeros.
			}
		}
		data = append(data, b)
	}
	return width, data
}

// Hidden unpads the output's bytes (float32 or float16, [n, width, dim]
// row-major, little-endian) into each sequence's token vectors:
// lens[i] rows of dim values for sequence i.
func (p *Plan) Hidden(raw []byte, lens []int, width, dim int) ([][]float32, error) {
	size := 4
	if p.Float16 {
		size = 2
	}
	if want := len(lens) * width * dim * size; len(raw) != want {
		return nil, fmt.Errorf("%s has %d bytes, want %d (%d x %d x %d values)", p.Output, len(raw), want, len(lens), width, dim)
	}
	out := make([][]float32, len(lens))
	for i, n := range lens {
		v := make([]float32, n*dim)
		base := i * width * dim
		for k := range v {
			off := (base + k) * size
			if p.Float16 {
				v[k] = float16.ToFloat32(binary.LittleEndian.Uint16(raw[off:]))
			} else {
				v[k] = math.Float32frombits(binary.LittleEndian.Uint32(raw[off:]))
			}
		}
		out[i] = v
	}
	return out, nil
}
