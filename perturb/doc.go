// Package perturb implements the query perturbations of dreval's robustness
// study (PERTURBATION.md in the project's specification): the paper's
// token-id shift ("idshift", its Algorithm 1), a random-id baseline
// ("idrandom"), text-level noise applied before tokenization (keyboard typos,
// character swaps, insertions and deletions, word drops) and tokenizer
// poisoning by vocabulary swaps ("vocabswap"), with the fingerprint check
// that detects a poisoned tokenizer.
//
// IDs perturbs token ids, Text perturbs text, Pairs and Poison build a
// tampered tokenizer, and a Perturber applies any mode to a query end to
// end. Every perturbation reports the realised fraction of changed tokens
// (Result.Changed out of Result.Considered), so rates are comparable across
// modes, and the clean and perturbed ids decoded side by side, special
// tokens shown (the paper's Table 1).
//
// # Determinism
//
// Every perturbation of a query is a pure function of its Config (mode,
// rate, seed and options), the query id, and the query's clean token ids or
// text (so of the tokenizer). Each query gets its own random generator,
// seeded from SHA-256 over (mode, seed, query id); the generator is
// xoshiro256** written in this package, so the output does not depend on
// batch size, order or goroutines, nor on the Go version or platform: the
// browser (js/wasm) and the CLI produce the same ids. testdata/golden.json
// (fake vocabulary) and testdata/golden_minilm.json (the MiniLM tokenizer,
// end to end) pin the outputs; regenerate them natively with
//
//	go test ./perturb/ -run TestGolden -update
//
// and check them under node with scripts/test-wasm.sh, which runs
//
//	GOOS=js GOARCH=wasm go test ./perturb/ -exec "$(go env GOROOT)/lib/wasm/go_js_wasm_exec"
//
// The options ProtectSpecial and OOV do not enter the seed, and the random
// draws are made for every non-padding position whatever they say, so the
// faithful and the protect-special variants of one (seed, rate, query) hit
// the same positions with the same shifts and differ only where a special
// token was hit. Padding draws nothing, so padded and unpadded sequences
// agree.
//
// # Nested rates
//
// The rate does not enter the seed either: the perturbations of one (mode,
// seed, query) at different rates use common random numbers. In the terms
// of PERTURBATION.md, idshift makes, at every non-padding position in
// order, the draws r ~ Uniform(0, 1) and d ~ UniformInteger(0, 9) — both of
// them, at every position and at every rate — and the position becomes t+d
// iff r < eps. At each rate eps this is Algorithm 1 exactly (r and d are
// independent, and d is used only when r < eps), but the draws are shared
// across rates: a position perturbed at rate a is perturbed at every rate
// b > a with the same d, so the ids changed at 5% are among those changed
// at 10% and 20%, with the same new ids, for every seed. A rate sweep is
// then paired and monotone per seed: raising the rate only adds changes.
// idrandom does the same with its replacement id in place of d.
//
// Out-of-vocabulary shifts (t+d >= VocabSize) keep this property. Clamp
// and Wrap are functions of t+d. Redraw takes its new shift from a
// generator of its own for each (mode, seed, query, non-padding position),
// seeded like the query's, so a position that overflows at one rate
// overflows at every higher rate (its d is the same) and is redrawn to the
// same id; Fail fails at the lowest rate that perturbs the position and at
// every higher one.
//
// The text modes draw in the same way per candidate character (per word for
// worddrop): r, and the replacement where the mode has one (typo's
// neighbouring key, charinsert's letter), at every candidate whatever the
// rate; the candidate is edited iff r < eps. So typo, charinsert,
// chardelete and worddrop edit, at a higher rate, every position they edit
// at a lower one, in the same way. charswap draws r for every pair of
// adjacent word characters, but a character swapped with its left
// neighbour is not swapped again, so its own pair is then not considered:
// a swap made at rate a is made at rate b > a too unless the pair on its
// left is swapped at b (and so took its first character). The changed
// fraction of a text mode counts tokens after re-tokenizing, which need
// not be nested even where the text edits are.
//
// vocabswap draws its pairs by a partial shuffle from a stream that the
// rate does not enter either, so the pairs swapped at a smaller rate (or
// SwapPairs) are the first pairs swapped at a larger one.
//
// # Dependencies
//
// perturb imports only the standard library. It does not know the
// tokenizer type: it reads a vocabulary through the small Vocabulary
// interface (satisfied by *tokenizer.Tokenizer) and tokenizes through
// functions the caller supplies (Perturber.Encode).
package perturb
