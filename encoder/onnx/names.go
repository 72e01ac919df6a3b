package onnx

import "sort"

// Input and output names of a standard encoder graph, as written by
// Hugging Face exports.
const (
	InputIDs        = "input_ids"
	AttentionMask   = "attention_mask"
	TokenTypeIDs    = "token_type_ids"
	LastHiddenState = "last_hidden_state"
	PoolerOutput    = "pooler_output"
)

// sortedNames returns the keys of m in order.
func sortedNames[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
