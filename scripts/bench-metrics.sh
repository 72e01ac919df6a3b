#!/usr/bin/env bash
# bench-metrics.sh times "dreval metrics" end to end (files read, qrels
# parsed, run streamed, measures printed) on a synthetic run of 2,000
# queries x 1,000 documents (2M lines) against 100,000 qrels lines, with
# the measures map ndcg_cut.10 P.10 recall.100 recip_rank: natively and
# compiled to js/wasm under node. It checks that both print the same
# numbers. trec_eval 9.0.8 needs about 2.0 s for this on a 2-core machine.
#
# Environment: RUNS (default 3) native repetitions; WASM_RUNS (default 1);
# PKG (default ./cmd/dreval) the command package to build.
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${RUNS:-3}"
wasm_runs="${WASM_RUNS:-1}"
pkg="${PKG:-./cmd/dreval}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

mkdir -p build
echo "bench-metrics: building build/dreval and build/dreval.wasm" >&2
go build -o build/dreval "$pkg"
GOOS=js GOARCH=wasm go build -o build/dreval.wasm "$pkg"
echo "bench-metrics: writing the synthetic run and qrels (seed 1) to $tmp" >&2
go run ./scripts/bench-metrics-gen "$tmp"
cat "$tmp"/synthetic.run "$tmp"/synthetic.qrels >/dev/null # warm the page cache
echo "bench-metrics: $(wc -l <"$tmp"/synthetic.run) run lines, $(wc -l <"$tmp"/synthetic.qrels) qrels lines" >&2

args=(metrics -qrels "$tmp/synthetic.qrels" -run "$tmp/synthetic.run" -m map,ndcg_cut.10,P.10,recall.100,recip_rank -format json)
wasm_exec="$(go env GOROOT)/lib/wasm/wasm_exec_node.js"

# timeit LABEL OUT CMD...: runs CMD with stdout to OUT and prints
# wall, user and sys seconds and the peak resident memory.
timeit() {
  local label=$1 out=$2; shift 2
  /usr/bin/time -f "$label: %e s wall, %U s user, %S s sys, %M KB max RSS" "$@" >"$out"
}

for i in $(seq "$runs"); do
  timeit "native run $i" "$tmp/native.json" build/dreval "${args[@]}"
done
for i in $(seq "$wasm_runs"); do
  timeit "js/wasm (node $(node --version)) run $i" "$tmp/wasm.json" node "$wasm_exec" build/dreval.wasm "${args[@]}"
done
if cmp -s "$tmp/native.json" "$tmp/wasm.json"; then
  echo "bench-metrics: native and js/wasm outputs are identical (full precision JSON)"
else
  echo "bench-metrics: native and js/wasm outputs DIFFER" >&2
  diff "$tmp/native.json" "$tmp/wasm.json" >&2 || true
  exit 1
fi
echo "bench-metrics: load average at the end: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
