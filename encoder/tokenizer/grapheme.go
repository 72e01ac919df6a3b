package tokenizer

import (
	"sort"
	"unicode/utf8"
)

// Grapheme_Cluster_Break values (UAX #29), with Extended_Pictographic.
const (
	gbOther uint8 = iota
	gbCR
	gbLF
	gbControl
	gbExtend
	gbZWJ
	gbRI
	gbPrepend
	gbSpacingMark
	gbL
	gbV
	gbT
	gbLV
	gbLVT
	gbExtPict
)

// gcbOf returns the Grapheme_Cluster_Break class of r (gbExtPict for an
// Extended_Pictographic character, which has no other class).
func gcbOf(r rune) uint8 {
	if r < 0x7F {
		switch {
		case r == '\r':
			return gbCR
		case r == '\n':
			return gbLF
		case r < 0x20:
			return gbControl
		}
		return gbOther
	}
	if r >= 0xAC00 && r <= 0xD7A3 { // Hangul syllables: LV when it has no final
		if (r-0xAC00)%28 == 0 {
			return gbLV
		}
		return gbLVT
	}
	i := sort.Search(len(graphemeRanges), func(i int) bool { return graphemeRanges[i].hi >= r })
	if i < len(graphemeRanges) && graphemeRanges[i].lo <= r {
		return graphemeRanges[i].class
	}
	return gbOther
}

// graphemeLen returns the length in bytes of the extended grapheme cluster
// at the start of b (UAX #29, Unicode 15.0: rules GB3 to GB13), as the
// reference's unicode-segmentation crate splits text.
func graphemeLen(b []byte) int {
	if len(b) == 0 {
		return 0
	}
	r, n := utf8.DecodeRune(b)
	prev := gcbOf(r)
	riCount := 0
	if prev == gbRI {
		riCount = 1
	}
	// emoji: the cluster so far is ExtPict Extend* (ZWJ awaiting ExtPict).
	emoji := prev == gbExtPict
	for n < len(b) {
		r, size := utf8.DecodeRune(b[n:])
		cur := gcbOf(r)
		join := false
		switch {
		case prev == gbCR && cur == gbLF: // GB3
			join = true
		case prev == gbCR || prev == gbLF || prev == gbControl: // GB4
		case cur == gbCR || cur == gbLF || cur == gbControl: // GB5
		case prev == gbL && (cur == gbL || cur == gbV || cur == gbLV || cur == gbLVT): // GB6
			join = true
		case (prev == gbLV || prev == gbV) && (cur == gbV || cur == gbT): // GB7
			join = true
		case (prev == gbLVT || prev == gbT) && cur == gbT: // GB8
			join = true
		case cur == gbExtend || cur == gbZWJ: // GB9
			join = true
		case cur == gbSpacingMark: // GB9a
			join = true
		case prev == gbPrepend: // GB9b
			join = true
		case prev == gbZWJ && cur == gbExtPict && emoji: // GB11
			join = true
		case prev == gbRI && cur == gbRI && riCount%2 == 1: // GB12, GB13
			join = true
		}
		if !join {
			break
		}
		// Track GB11's state: ExtPict Extend* ZWJ.
		switch {
		case cur == gbExtPict:
			emoji = true
		case cur == gbExtend && emoji:
		case cur == gbZWJ && emoji:
		default:
			emoji = false
		}
		if cur == gbRI {
			riCount++
		} else {
			riCount = 0
		}
		if prev == gbZWJ && cur != gbExtPict {
			emoji = false
		}
		prev = cur
		n += size
	}
	return n
}

// graphemeRange is a run of code points with one class.
type graphemeRange struct {
	lo, hi rune
	class  uint8
}
