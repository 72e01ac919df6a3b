#!/usr/bin/env bash
# test.sh is "make test": vet, formatting, the unit tests and a short run of
# every fuzz target.
set -euo pipefail
cd "$(dirname "$0")/.."
echo "test: go vet" >&2
go vet ./...
echo "test: gofmt" >&2
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))
if [ -n "$unformatted" ]; then
  echo "gofmt would change:" >&2; echo "$unformatted" >&2; exit 1
fi
echo "test: go test" >&2
go test -count=1 -timeout 45m -skip '^TestFault' ./...
# The fault-injection suite (issue 29), on loopback, bounded (about half a
# minute): damaged cache vectors and metadata under "dreval eval", kill -9
# of a cache writer, clients leaving an encode (the CPU idle within 2 s),
# slow request bodies, a shutdown's grace running out, SIGTERM to "dreval
# serve" during an encode, symlinked model files under "dreval serve" and
# "dreval site", an unusable -out. One package at a time (-p 1): the
# CPU test measures this process's CPU.
echo "test: fault injection" >&2
go test -count=1 -p 1 -timeout 10m -run '^TestFault' ./experiment/ ./serve/ ./cmd/dreval/
# The Beam pipeline is its own module (beam/go.mod), which the main
# module's ./... does not reach: vet and test it on its own.
echo "test: the Beam module (beam/): go vet, go test" >&2
(cd beam && go vet ./... && go test -count=1 -timeout 20m ./...)
echo "test: the browser's packages under js/wasm (node)" >&2
scripts/test-wasm.sh
echo "test: fuzz" >&2
scripts/fuzz.sh
