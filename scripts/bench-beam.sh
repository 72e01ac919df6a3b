#!/usr/bin/env bash
# bench-beam.sh: documents/s of the Beam pipeline on prism with 1 and 2
# workers (issue 17's cost model).
#
# Workload: build/dreval-beam -runner prism on Cranfield (1,400 documents,
# 225 queries) with minilm (engine auto: ONNX Runtime where installed),
# the clean run only (-rates 0 -seeds 1), the corpus in 8 shards, one
# encoder thread per bundle (-threads 1, the default). "Workers"
# are CPU cores: prism runs the shards' bundles in parallel in its one
# process; taskset gives it 1 or 2 cores (Go's GOMAXPROCS and ONNX
# Runtime's threads follow the affinity). Prints, per worker count, the
# pipeline's documents/s end to end, its CPU seconds (user+sys) and the
# documents per CPU second, which stays the steadier figure on a shared
# machine. Also checks the two runs wrote the same TREC run.
#
# prism runs up to 8 bundles at once in its process (it splits a slow
# bundle in two, and the halves again); dreval-beam encodes at most
# -encoders shards at once per process (default: its cores), so 1 worker
# encodes one shard at a time and 2 workers two. ENCODERS=8 runs as many
# at once as prism starts (the behaviour before -encoders existed).
#
# Environment: BENCH_DIR (default /tmp/dreval-bench-beam), MODEL (minilm),
# DATA (../shared/data/cranfield), WORKERS (default "1 2"), ENCODERS
# (default 0: automatic).
set -euo pipefail
cd "$(dirname "$0")/.."
dir="${BENCH_DIR:-/tmp/dreval-bench-beam}"
model="${MODEL:-minilm}"
data="${DATA:-../shared/data/cranfield}"
workers="${WORKERS:-1 2}"
mkdir -p "$dir"
make -s beam
docs=$(wc -l < "$data/corpus.jsonl")
echo "bench-beam: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg); $docs documents of $data, model $model, -encoders ${ENCODERS:-0}"
first=
for w in $workers; do
  cpus=$(seq -s, 0 $((w - 1)))
  out="$dir/out-$w"
  rm -rf "$out"
  /usr/bin/time -f '%e %U %S %M' -o "$dir/$w.time" taskset -c "$cpus" \
    build/dreval-beam -runner prism -data "$data" -model "$model" -rates 0 -seeds 1 -shards 8 -encoders "${ENCODERS:-0}" -out "$out" 2> "$dir/$w.log" ||
    { tail -n 20 "$dir/$w.log" >&2; exit 1; }
  read -r wall user sys rss < "$dir/$w.time"
  cpu=$(echo "$user + $sys" | bc)
  awk -v w="$w" -v d="$docs" -v wall="$wall" -v cpu="$cpu" -v rss="$rss" 'BEGIN {
    printf "bench-beam: %d worker(s): %.1f s wall, %.1f documents/s end to end; %.1f CPU s, %.1f documents per CPU second; peak RSS %d MB\n", w, wall, d / wall, cpu, d / cpu, rss / 1024 }'
  grep -h 'encoded .* documents' "$dir/$w.log" | tail -n 1 || true
  echo "bench-beam: $w worker(s): load average after $(cut -d' ' -f1-3 /proc/loadavg); most shards encoding at once: $(grep -o '[0-9]* busy' "$dir/$w.log" | sort -n | tail -n 1)"
  run="$out/runs/${model}__clean.trec"
  if [ -z "$first" ]; then first=$run; elif ! cmp -s "$first" "$run"; then
    echo "bench-beam: FAIL: $run differs from $first" >&2; exit 1
  fi
done
