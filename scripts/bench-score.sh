#!/usr/bin/env bash
# bench-score.sh: CPU time of scoring the page's opening lesson (the 31
# runs of the static model's sweep on the demo, every measure of the st
# and trec conventions; experiment's BenchmarkScoreLessonStatic), natively
# and under node (js/wasm). CPU seconds (user + sys, GC threads included)
# are less moved than wall time by other programs on a shared machine:
# each figure is the difference between a run of N+1 iterations and one
# of 1 (which holds the set-up: opening the model, ranking the 31 runs),
# divided by N. Needs the static model ("make setup").
# Environment: N (default 20 native, 10 under node), REPS (default 3).
set -euo pipefail
cd "$(dirname "$0")/.."
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
go test -c -o "$tmp/native.test" ./experiment
GOOS=js GOARCH=wasm go test -c -o "$tmp/wasm.test" ./experiment
exec_wasm="$(go env GOROOT)/lib/wasm/go_js_wasm_exec"
cpu() { # cpu ITERATIONS [EXEC] BIN: CPU seconds of one benchmark run
  local n=$1; shift
  local TIMEFORMAT='%U %S'
  { time (cd experiment && "$@" -test.run '^$' -test.bench 'ScoreLessonStatic$' -test.benchtime "${n}x" >/dev/null); } 2>&1 | awk '{print $1 + $2}'
}
per_op() { # per_op N [EXEC] BIN
  local n=$1; shift
  local a b
  a="$(cpu 1 "$@")"
  b="$(cpu $((n + 1)) "$@")"
  awk -v a="$a" -v b="$b" -v n="$n" 'BEGIN { printf "%.1f ms CPU per scoring of the 31 runs\n", (b - a) / n * 1000 }'
}
for r in $(seq "${REPS:-3}"); do
  echo "bench-score: load average $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "bench-score: native: $(per_op "${N:-20}" "$tmp/native.test")"
  echo "bench-score: js/wasm (node): $(per_op "${N:-10}" "$exec_wasm" "$tmp/wasm.test")"
done
