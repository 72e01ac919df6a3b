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
// seeded from SHA-256 over (mode, rate, seed, query id); the generator is
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
// # Dependencies
//
// perturb imports only the standard library. It does not know the
// tokenizer type: it reads a vocabulary through the small Vocabulary
// interface (satisfied by *tokenizer.Tokenizer) and tokenizes through
// functions the caller supplies (Perturber.Encode).
package perturb
