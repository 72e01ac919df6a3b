#!/bin/sh
# wasm-gcflags.sh prints the -gcflags arguments the browser app is built
# with (scripts/wasm-build.sh, and the e2e tests' own build of it), one per
# line: the compiler's inlining off (-l) in every package but those whose
# loops the page's runs spend their time in.
#
# Inlining copies a function's body into each caller, and with it the
# caller's pc-value tables grow inline trees and line tables for the copied
# code: in the js/wasm app that is code and data that compress badly. With
# inlining off everywhere app.wasm.gz is 394 KB (13%) smaller, but the
# opening lesson's run takes 30% longer under node
# (BenchmarkRunLessonStatic built for js/wasm: 1.34-1.45 s -> 1.82-1.88 s).
# Keeping it in the packages below keeps the run's speed (1.15-1.47 s
# against 1.31-1.52 s, alternating) and most of the saving (297 KB at
# c371de8): the runtime and its internal packages (malloc, maps, hashing:
# 20% slower without), the tokenizer (20% slower to load without) and its
# regular expressions, the static encoder, tensors, safetensors,
# perturbation, top-k, metrics, random numbers and hashing. The BERT
# encoder's matrix products run as fast without (BenchmarkGemm under node).
# A package that grows a hot loop belongs in this list.
set -eu
echo "-gcflags=all=-l"
m=github.com/dreval/dreval
for p in runtime 'internal/...' math math/bits sync sync/atomic unicode/utf8 \
  math/rand/v2 crypto/sha256 'crypto/internal/...' \
  $m/metrics $m/retrieval $m/perturb $m/encoder/tensor \
  $m/encoder/static $m/encoder/safetensors $m/encoder/tokenizer $m/internal/regex; do
  echo "-gcflags=$p="
done
