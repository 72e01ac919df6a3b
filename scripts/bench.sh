#!/usr/bin/env bash
# bench.sh runs dreval's benchmarks; each section prints its figures.
set -euo pipefail
cd "$(dirname "$0")/.."
go test -run='^$' -bench=. -benchmem ./...
