// Package onnx reads and writes BERT encoders in the ONNX format.
//
// ReadWeights checks that an .onnx file holds a BERT encoder graph dreval
// supports (inputs input_ids, attention_mask and optionally token_type_ids,
// int64 [batch, sequence]; output last_hidden_state, float [batch,
// sequence, hidden]; only the operators of a plain BERT export) and returns
// its weights as a tensor.Set under Hugging Face names, in Hugging Face
// layout, so that package bert builds the same model from an ONNX file as
// from safetensors. It reads dreval's own exports and the usual Hugging
// Face (torch.onnx, optimum) naming: weights named directly, or MatMul
// operands named after the bias added to their product.
//
// Export writes the standard graph from a tensor.Set and a bert.Config:
// opset 14 or newer, dynamic batch and sequence, float32 initializers. ONNX
// Runtime runs it (see package ort).
//
// The protobuf encoding is done by a small codec on top of encoding/binary
// instead of generated protobuf types: the reader runs in the browser too,
// and only a dozen fields of onnx.proto matter here.
package onnx
