package answer

import "bytes"

// formIndex finds answer forms in the passages' forms, joined: in the
// browser app by a scan, as the collections a page holds are small, and
// index/suffixarray (66 KB of code) stays out of app.wasm.gz (formindex.go
// is the native suffix array).
type formIndex struct{ joined []byte }

func newFormIndex(joined []byte) *formIndex { return &formIndex{joined} }

// has reports whether form occurs in the joined forms.
func (x *formIndex) has(form []byte) bool { return bytes.Contains(x.joined, form) }
