// Package onnx reads and writes the encoders of package bert (BERT,
// RoBERTa/XLM-RoBERTa, DistilBERT, MPNet) in the ONNX format.
//
// ReadWeights checks that an .onnx file holds an encoder graph dreval
// supports (inputs input_ids, attention_mask and optionally
// token_type_ids, int64 [batch, sequence]; output last_hidden_state,
// float [batch, sequence, hidden]; only the operators of a plain export)
// and returns its weights as a tensor.Set under Hugging Face names, in
// Hugging Face layout, so that package bert builds the same model from an
// ONNX file as from safetensors. Info tells the family (from the weights'
// names and how the graph computes position ids), the sizes, the
// activation and the padding index. It reads dreval's own exports of
// every family and the usual Hugging Face (torch.onnx, optimum) naming of
// BERT: weights named directly, or MatMul operands named after the bias
// added to their product.
//
// Export writes the standard graph of a family from a tensor.Set (the
// backbone found under its prefix; heads left out) and a modelfiles.Config:
// opset 14 or newer, dynamic batch and sequence, float32 initializers.
// ONNX Runtime runs it (see package ort).
//
// The protobuf encoding is done by a small codec on top of encoding/binary
// instead of generated protobuf types: the reader runs in the browser too,
// and only a dozen fields of onnx.proto matter here.
package onnx
