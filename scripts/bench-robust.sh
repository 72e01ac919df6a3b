#!/usr/bin/env bash
# bench-robust.sh is "make bench"'s robust section (issue 29): what the
# corpus cache's checks cost, and what bounds the server's memory. Each
# memory figure comes from a process of its own: a Go process does not
# hand back at once the memory a burst made it grow.
set -euo pipefail
cd "$(dirname "$0")/.."
echo "cache: DirCache.Get of a 100,000 x 384 entry (154 MB) warm in the page cache;"
echo "  checked = SHA-256 of the file while reading it and of the metadata, unchecked = the read alone"
go test -run '^$' -bench 'BenchmarkDirCacheGet/(checked|unchecked)' -benchtime 5x -count 3 ./experiment/ | grep '^Benchmark'
echo "serve: 40 concurrent 4.7 MB /api/metrics requests, peak resident memory;"
echo "  default = 4 evaluations and 32 MB of bodies at once, unbounded = as before those limits"
for c in default unbounded; do
  go test -run '^$' -bench "BenchmarkMetricsMemory/$c\$" -benchtime 1x ./serve/ | grep '^Benchmark'
done
echo "serve: 150 /api/encode requests (8 texts of 10-120 words) with MiniLM, resident memory, per engine"
for e in go ort; do
  echo "engine $e:"
  DREVAL_BENCH_ENGINE=$e go test -run '^$' -bench BenchmarkServeEncodeMemory -benchtime 1x -timeout 30m ./cmd/dreval/ | grep -E '^Benchmark|SKIP|skip' || true
done
