// Package bert runs the forward pass of BERT-family encoders in pure Go,
// in float32: embeddings (word + position, + token type where the family
// has them), then per layer self-attention with a residual LayerNorm and
// a feed-forward block (GELU, tanh-approximated GELU or ReLU, as
// configured) with a residual LayerNorm. It returns the last layer's
// hidden states, and, where the checkpoint has one, BERT's pooler.
//
// Four families share that structure (post-LayerNorm transformer
// encoders) and differ in their embeddings, attention and tensor names
// (see Family and Layout):
//   - BERT (model_type bert, and dpr for DPR's encoders): positions
//     0, 1, 2, ..., token type embeddings;
//   - RoBERTa (model_type roberta and xlm-roberta): positions counted from
//     padding_idx+1, skipping padding tokens, as Hugging Face's
//     create_position_ids_from_input_ids does; one token type;
//   - DistilBERT: its own tensor names, no token types;
//   - MPNet: positions as RoBERTa's, no token types, and a learned
//     relative-position bias (32 buckets of the distance, up to 128) added
//     to every layer's attention scores.
//
// Checkpoints hold a family's backbone under a prefix ("bert.",
// "roberta.", "question_encoder.bert_model.", ...; see DetectPrefix);
// New finds it, NewWithPrefix takes it, and tensors outside the backbone
// (task heads, projections) are left alone for the caller.
//
// The tokens of all sequences in a batch are packed into one matrix with no
// padding: the linear layers run on every token at once, and attention runs
// per sequence and head over that sequence's own tokens (what a padding
// mask computes, without the wasted work). A sequence's result does not
// depend on the rest of its batch.
//
// Matrix products run on one of two kernels, chosen by build: an AVX
// assembly kernel (4×16 tiles) on amd64, and a portable register-blocked
// 4×4 kernel in plain Go everywhere else, js/wasm included (no SIMD or
// assembly there). Both sum every element in the same order without fused
// multiply-adds, and are tested to give the same bits; every other
// operation (exp, erf, tanh, LayerNorm) is plain Go arithmetic, so a
// model gives the same bits natively and under js/wasm. Work is split
// over goroutines by rows and by (sequence, head) (Model.SetThreads).
package bert
