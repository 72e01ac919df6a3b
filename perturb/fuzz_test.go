package perturb

import (
	"encoding/binary"
	"math"
	"testing"
	"unicode/utf8"
)

// FuzzIDs feeds arbitrary ids, vocabulary sizes, rates, seeds, modes and
// policies to IDs: it must not panic, must return an error for invalid
// input, keep ids in the vocabulary, count changes truly, and repeat itself.
func FuzzIDs(f *testing.F) {
	f.Add([]byte{101, 0, 0, 0, 0x10, 0x27, 0, 0}, uint32(30522), 0.1, uint64(1), uint8(0), uint8(0), "q1")
	f.Add([]byte{0xff, 0xff, 0xff, 0x7f}, uint32(10), 1.0, uint64(0), uint8(1), uint8(3), "")
	f.Add([]byte{9, 0, 0, 0, 8, 0, 0, 0}, uint32(10), 1.0, uint64(5), uint8(0), uint8(1), "x")
	f.Add([]byte{}, uint32(0), math.NaN(), uint64(5), uint8(7), uint8(9), "x")
	f.Fuzz(func(t *testing.T, raw []byte, vocab uint32, rate float64, seed uint64, modeSel, opt uint8, qid string) {
		ids := make([]int32, len(raw)/4)
		for i := range ids {
			ids[i] = int32(binary.LittleEndian.Uint32(raw[4*i:]))
		}
		size := int(vocab % (1 << 20))
		c := Config{
			Mode:           []Mode{IDShift, IDRandom, "bogus"}[int(modeSel)%3],
			Rate:           rate,
			Seed:           seed,
			OOV:            []OOVPolicy{"", Redraw, Clamp, Wrap, Fail, "bogus"}[int(opt)%6],
			ProtectSpecial: opt&0x80 != 0,
		}
		v := fakeVocab{size: size}
		res, err := IDs(c, qid, ids, v)
		if err != nil {
			return
		}
		if c.Validate() != nil || size == 0 {
			t.Fatalf("%v accepted with vocabulary %d", c, size)
		}
		if len(res.PerturbedIDs) != len(ids) {
			t.Fatalf("length %d -> %d", len(ids), len(res.PerturbedIDs))
		}
		changed := 0
		for i, id := range res.PerturbedIDs {
			if ids[i] == 0 && id != 0 {
				t.Fatalf("padding at %d perturbed", i)
			}
			if id < 0 || int(id) >= size {
				t.Fatalf("id %d at %d outside the vocabulary of %d (policy %q)", id, i, size, c.OOV)
			}
			if c.ProtectSpecial && v.IsSpecial(ids[i]) && id != ids[i] {
				t.Fatalf("protected special id %d changed to %d", ids[i], id)
			}
			if id != ids[i] {
				changed++
			}
		}
		if changed != res.Changed || res.Changed > res.Considered {
			t.Fatalf("changed %d, counted %d, considered %d", res.Changed, changed, res.Considered)
		}
		if c.Rate == 0 && changed != 0 {
			t.Fatalf("rate 0 changed %d ids", changed)
		}
		again, err := IDs(c, qid, ids, v)
		if err != nil || !equalIDs(again.PerturbedIDs, res.PerturbedIDs) {
			t.Fatalf("second run differs: %v, %v", again.PerturbedIDs, err)
		}
	})
}

// FuzzText feeds arbitrary text to every text mode: no panic, valid UTF-8
// stays valid, rate 0 changes nothing, and a second run agrees.
func FuzzText(f *testing.F) {
	f.Add("What is Theraderm used for?", 0.1, uint64(1), uint8(0), "q")
	f.Add("naïve 東京  \xff\xfe x", 1.0, uint64(2), uint8(2), "")
	f.Add("", 0.5, uint64(3), uint8(4), "7")
	f.Fuzz(func(t *testing.T, text string, rate float64, seed uint64, modeSel uint8, qid string) {
		c := Config{Mode: []Mode{Typo, CharSwap, CharInsert, CharDelete, WordDrop, IDShift}[int(modeSel)%6], Rate: rate, Seed: seed}
		out, st, err := Text(c, qid, text)
		if err != nil {
			if c.Validate() == nil && c.Mode.IsText() {
				t.Fatalf("%v rejected %q: %v", c, text, err)
			}
			return
		}
		if st.Changed > st.Considered || st.Changed < 0 {
			t.Fatalf("stats %+v", st)
		}
		if utf8.ValidString(text) && !utf8.ValidString(out) {
			t.Fatalf("%s made invalid UTF-8 from %q: %q", c.Mode, text, out)
		}
		if (c.Rate == 0 || st.Changed == 0) && out != text {
			t.Fatalf("no edit, but %q became %q", text, out)
		}
		again, st2, _ := Text(c, qid, text)
		if again != out || st2 != st {
			t.Fatalf("second run differs: %q vs %q", again, out)
		}
	})
}
