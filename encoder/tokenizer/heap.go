package tokenizer

// pushHeap adds x to the binary heap h, in which before(a, b) reports
// whether a leaves the heap before b, and returns the grown heap.
// BPE's merge queue and SentencePiece's pair queue share it.
func pushHeap[T any](h []T, x T, before func(a, b T) bool) []T {
	h = append(h, x)
	for i := len(h) - 1; i > 0; {
		p := (i - 1) / 2
		if !before(h[i], h[p]) {
			break
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
	return h
}

// popHeap removes the item of h that leaves first and returns it with the
// shrunk heap; h must not be empty.
func popHeap[T any](h []T, before func(a, b T) bool) (T, []T) {
	top := h[0]
	n := len(h) - 1
	h[0] = h[n]
	h = h[:n]
	for i := 0; ; {
		l, r, first := 2*i+1, 2*i+2, i
		if l < n && before(h[l], h[first]) {
			first = l
		}
		if r < n && before(h[r], h[first]) {
			first = r
		}
		if first == i {
			break
		}
		h[i], h[first] = h[first], h[i]
		i = first
	}
	return top, h
}
