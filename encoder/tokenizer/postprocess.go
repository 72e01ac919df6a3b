package tokenizer

// templatePiece is one element of a single-sequence template: a special
// token's ids, or the input sequence (ids == nil).
type templatePiece struct {
	special string  // name of the special token; "" for the sequence
	ids     []int32 // the special token's ids
	typeID  int32
}

// postProcessor adds special tokens around a single sequence. Every
// post-processor of the reference (TemplateProcessing, BertProcessing,
// RobertaProcessing, ByteLevel, and a Sequence of them) comes down to one
// template for a single sequence: single.
type postProcessor struct {
	kind     string // the outermost processor's type, "" for none
	single   []templatePiece
	nSpecial int    // number of ids the template adds
	raw      []byte // the post_processor JSON as loaded, for Save; nil when built
}

// sequenceTemplate is the template that puts nothing around the sequence.
func sequenceTemplate() []templatePiece { return []templatePiece{{}} }

// nest returns outer applied after inner: the reference runs the
// processors of a Sequence one after the other, each around the previous
// one's output, giving all of it the type id of its own sequence slot.
func nest(outer, inner []templatePiece) []templatePiece {
	var out []templatePiece
	for _, p := range outer {
		if p.ids != nil {
			out = append(out, p)
			continue
		}
		for _, q := range inner {
			q.typeID = p.typeID
			out = append(out, q)
		}
	}
	return out
}

func (p *postProcessor) count() {
	p.nSpecial = 0
	for _, x := range p.single {
		p.nSpecial += len(x.ids)
	}
}
