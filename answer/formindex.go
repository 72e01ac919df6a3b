//go:build !js

package answer

import "index/suffixarray"

// formIndex finds answer forms in the passages' forms, joined: natively
// by a suffix array, for collections of millions of passages (the browser
// app scans instead, formindex_js.go).
type formIndex struct{ sa *suffixarray.Index }

func newFormIndex(joined []byte) *formIndex { return &formIndex{suffixarray.New(joined)} }

// has reports whether form occurs in the joined forms.
func (x *formIndex) has(form []byte) bool { return len(x.sa.Lookup(form, 1)) > 0 }
