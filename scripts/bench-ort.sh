#!/usr/bin/env bash
# bench-ort.sh measures the ONNX Runtime engine: sentences per second on
# all-MiniLM-L6-v2 (exported to ONNX by dreval), batches of 32 sentences of
# 32 and 128 tokens, with 1 and 2 intra-op threads; then, on 1 thread, its
# float32 graph against the int8 and float16 graphs "dreval model
# quantize" writes (BenchmarkEmbedPrecision). It needs the model
# ("make setup") and the library (scripts/setup-ort.sh, run here if absent).
#
# Then the peak memory (max RSS) of "dreval encode -engine ort" on one
# sentence. BENCHTIME (default 5x) and COUNT (default 3) are passed to go test.
# sentences/s is wall-clock throughput; sentences/cpu-s divides by the
# process's CPU time instead, which other load on a shared machine disturbs
# much less. Report the command and the load average printed first.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup-ort.sh
echo "bench-ort: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)" >&2
CGO_ENABLED=1 go test -run='^$' -bench='^BenchmarkEmbed(Precision)?$' \
  -benchtime="${BENCHTIME:-5x}" -count="${COUNT:-3}" ./encoder/ort/ |
  awk '/^Benchmark/ {
         s = c = ""
         for (i = 2; i <= NF; i++) { if ($i == "sentences/s") s = $(i-1); if ($i == "sentences/cpu-s") c = $(i-1) }
         printf "%-40s %8s sentences/s  %8s sentences/cpu-s\n", $1, s, c; next }
       { print }'

echo "== peak memory: load MiniLM with the ort engine and encode one sentence"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
CGO_ENABLED=1 go build -o "$tmp/dreval" ./cmd/dreval
echo "This is an example sentence" >"$tmp/one.txt"
/usr/bin/time -v "$tmp/dreval" encode -engine ort -q -in "$tmp/one.txt" -out "$tmp/one.npy" 2>"$tmp/time.txt" || { cat "$tmp/time.txt"; exit 1; }
grep -E 'engine:|Maximum resident set size' "$tmp/time.txt"
