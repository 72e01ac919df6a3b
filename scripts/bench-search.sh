#!/usr/bin/env bash
# bench-search.sh: "dreval search" against faiss, side by side.
#
# Workload (issue 5): a 100,000 x 384 L2-normalised random corpus, 1,000
# queries, top 100 by inner product, one thread. Both sides are timed as
# whole processes (loading the .npy files and writing the TREC run
# included): dreval with -threads 1 and GOMAXPROCS=1, faiss 1.7.3
# IndexFlatIP with one OpenMP/OpenBLAS thread. Prints wall and CPU
# (user+sys) seconds, best of BENCH_REPEAT runs, and the ratios (target:
# dreval <= 3x faiss). Then checks both runs retrieve the same documents
# (ties at the cut aside), and runs the js/wasm build under node on a
# 10,000 x 100 subset, checking its run is byte-identical to native.
#
# Environment: BENCH_DIR (default /tmp/dreval-bench-search), BENCH_REPEAT
# (default 3), BENCH_WASM=0 to skip the wasm part.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
dir="${BENCH_DIR:-/tmp/dreval-bench-search}"
repeat="${BENCH_REPEAT:-3}"
py=/usr/bin/python3 # Debian's python, where python3-faiss lives
mkdir -p "$dir"

# faiss and numpy from Debian, with OpenBLAS: with the reference libblas3
# that python3-faiss pulls in alone, IndexFlatIP is ~50x slower.
if ! "$py" -c 'import faiss, numpy' 2>/dev/null || ! ls /usr/lib/x86_64-linux-gnu/openblas-pthread/libblas.so.3 >/dev/null 2>&1; then
  echo "bench-search: installing python3-faiss python3-numpy libopenblas0-pthread" >&2
  sudo=""; [ "$(id -u)" = 0 ] || sudo=sudo
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq python3-faiss python3-numpy libopenblas0-pthread >/dev/null
fi
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1

gen() { # gen SUBDIR DOCS QUERIES SEED
  mkdir -p "$dir/$1"
  if [ ! -f "$dir/$1/.done-$2-$3-$4" ]; then
    echo "bench-search: generating $2 x 384 corpus and $3 queries in $dir/$1" >&2
    "$py" scripts/bench-search.py gen "$dir/$1" "$2" "$3" 384 "$4"
    touch "$dir/$1/.done-$2-$3-$4"
  fi
}
gen full 100000 1000 42
gen small 10000 100 7

# Build dreval; while other commands are being written and the whole CLI
# does not compile, fall back to main.go + search.go alone.
bin="$dir/dreval"
if ! go build -o "$bin" ./cmd/dreval 2>"$dir/build.log"; then
  echo "bench-search: the full CLI does not build ($(head -1 "$dir/build.log")); building main.go + search.go only" >&2
  go build -o "$bin" cmd/dreval/main.go cmd/dreval/search.go
fi

# timeone NAME CMD...: runs CMD once; prints and sets wall and cpu
# (user+sys) seconds.
timeone() {
  local name=$1 t user sys; shift
  t=$( { TIMEFORMAT='%R %U %S'; time "$@" 2>"$dir/$name.err" >/dev/null; } 2>&1 ) || { cat "$dir/$name.err" >&2; exit 1; }
  read -r wall user sys <<<"$t"
  cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')
  echo "  $name: wall ${wall} s, cpu ${cpu} s"
}
# least A B: the smaller number (A when B is empty).
least() { awk -v a="$1" -v b="$2" 'BEGIN { print (b == "" || a + 0 < b + 0) ? a : b }'; }

f="$dir/full"
echo "bench-search: 100,000 x 384 corpus, 1,000 queries, k = 100, one thread (best of $repeat, interleaved)"
dw="" dc="" fw="" fc=""
for ((i = 1; i <= repeat; i++)); do
  timeone dreval env GOMAXPROCS=1 "$bin" search -corpus "$f/corpus.npy" -queries "$f/queries.npy" -k 100 -score dot -threads 1 -out "$f/dreval.trec"
  dw=$(least "$wall" "$dw") dc=$(least "$cpu" "$dc")
  timeone faiss "$py" scripts/bench-search.py faiss "$f/corpus.npy" "$f/queries.npy" 100 "$f/faiss.trec"
  fw=$(least "$wall" "$fw") fc=$(least "$cpu" "$fc")
  grep -h 'search only' "$dir/faiss.err" | sed 's/^/    /' >&2 || true
done
printf '%-28s %8s %8s\n' "" "wall s" "cpu s"
printf '%-28s %8s %8s\n' "dreval search (Go)" "$dw" "$dc"
printf '%-28s %8s %8s\n' "faiss IndexFlatIP (python)" "$fw" "$fc"
awk -v dw="$dw" -v fw="$fw" -v dc="$dc" -v fc="$fc" 'BEGIN {
  printf "%-28s %8.2f %8.2f   (target <= 3)\n", "ratio dreval/faiss", dw / fw, dc / fc }'
"$py" scripts/bench-search.py compare "$f/dreval.trec" "$f/faiss.trec"

if [ "${BENCH_WASM:-1}" != 0 ]; then
  s="$dir/small"
  wasm="$dir/dreval.wasm"
  if ! GOOS=js GOARCH=wasm go build -o "$wasm" ./cmd/dreval 2>/dev/null; then
    GOOS=js GOARCH=wasm go build -o "$wasm" cmd/dreval/main.go cmd/dreval/search.go
  fi
  echo "bench-search: js/wasm (node $(node --version)) vs native, 10,000 x 384 corpus, 100 queries, k = 100"
  timeone wasm bash -c "cd '$s' && node '$(go env GOROOT)/lib/wasm/wasm_exec_node.js' '$wasm' search -corpus corpus.npy -queries queries.npy -k 100 -score dot -out wasm.trec"
  timeone native env GOMAXPROCS=1 "$bin" search -corpus "$s/corpus.npy" -queries "$s/queries.npy" -k 100 -score dot -threads 1 -out "$s/native.trec"
  if cmp -s "$s/wasm.trec" "$s/native.trec"; then
    echo "js/wasm and native runs are byte-identical"
  else
    echo "js/wasm and native runs DIFFER" >&2; exit 1
  fi
fi
