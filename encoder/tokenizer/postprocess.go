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

func (p *postProcessor) count() {
	p.nSpecial = 0
	for _, x := range p.single {
		p.nSpecial += len(x.ids)
	}
}
