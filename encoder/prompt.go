package encoder

// promptTokens returns how many leading ids of a prompt's encoding the
// pooling leaves out when a head excludes the prompt: the prompt's ids
// without a special token at the end, as sentence-transformers counts
// them.
func promptTokens(ids []int32, isSpecial func(int32) bool) int {
	n := len(ids)
	if n > 0 && isSpecial(ids[n-1]) {
		n--
	}
	return n
}
