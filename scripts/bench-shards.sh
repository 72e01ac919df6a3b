#!/usr/bin/env bash
# bench-shards.sh: peak memory of "dreval search" over one corpus file vs
# the same corpus in shards (issue 17).
#
# Workload: the 100,000 x 384 L2-normalised random corpus and 1,000 queries
# of scripts/bench-search.sh (numpy PCG64, seed 1), top 100 by cosine,
# searched once as one .npy and once as SHARDS (default 10) contiguous
# .npy shards with their ids files, as "dreval encode -shard I/N" writes
# them. Prints each process's peak RSS (GNU time's %M), wall and CPU
# seconds, and checks the two TREC runs are byte-identical.
#
# Environment: BENCH_DIR (default /tmp/dreval-bench-shards), SHARDS.
set -euo pipefail
cd "$(dirname "$0")/.."
dir="${BENCH_DIR:-/tmp/dreval-bench-shards}"
shards="${SHARDS:-10}"
py=/usr/bin/python3 # Debian's python3 with python3-numpy (make setup)
mkdir -p "$dir"

if [ ! -f "$dir/.done-$shards" ]; then
  echo "bench-shards: generating the 100000 x 384 corpus, 1000 queries and $shards shards in $dir" >&2
  "$py" scripts/bench-search.py gen "$dir" 100000 1000 384 1
  "$py" - "$dir" "$shards" <<'PY'
import sys
import numpy as np
d, n = sys.argv[1], int(sys.argv[2])
c = np.load(d + "/corpus.npy")
rows = c.shape[0]
with open(d + "/corpus.ids", "w") as f:
    f.write("".join("doc%d\n" % i for i in range(rows)))
for i in range(n):
    lo, hi = i * rows // n, (i + 1) * rows // n  # experiment.ShardRange's cut
    np.save("%s/shard-%d.npy" % (d, i), c[lo:hi])
    with open("%s/shard-%d.ids" % (d, i), "w") as f:
        f.write("".join("doc%d\n" % j for j in range(lo, hi)))
PY
  touch "$dir/.done-$shards"
fi

go build -o "$dir/dreval" ./cmd/dreval
npys=$(for i in $(seq 0 $((shards - 1))); do printf '%s/shard-%d.npy,' "$dir" "$i"; done)
ids=$(for i in $(seq 0 $((shards - 1))); do printf '%s/shard-%d.ids,' "$dir" "$i"; done)

measure() { # measure NAME CORPUS IDS
  /usr/bin/time -f '%M %e %U %S' -o "$dir/$1.time" \
    "$dir/dreval" search -corpus "$2" -corpus-ids "$3" -queries "$dir/queries.npy" -k 100 -threads 1 -out "$dir/$1.trec"
  read -r rss wall user sys < "$dir/$1.time"
  printf 'bench-shards: %-10s peak RSS %4d MB, %5.2f s wall, %5.2f s CPU\n' "$1" $((rss / 1024)) "$wall" "$(echo "$user + $sys" | bc)"
}
export GOMAXPROCS=1
measure "1-file" "$dir/corpus.npy" "$dir/corpus.ids"
measure "$shards-shards" "${npys%,}" "${ids%,}"
if cmp -s "$dir/1-file.trec" "$dir/$shards-shards.trec"; then
  echo "bench-shards: the runs are byte-identical ($(wc -l < "$dir/1-file.trec") lines)"
else
  echo "bench-shards: FAIL: the sharded run differs from the one-file run" >&2; exit 1
fi
