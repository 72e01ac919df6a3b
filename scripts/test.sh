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
go test -count=1 -timeout 45m ./...
# The Beam pipeline is its own module (beam/go.mod), which the main
# module's ./... does not reach: vet and test it on its own.
echo "test: the Beam module (beam/): go vet, go test" >&2
(cd beam && go vet ./... && go test -count=1 -timeout 20m ./...)
echo "test: the browser's packages under js/wasm (node)" >&2
scripts/test-wasm.sh
echo "test: fuzz" >&2
scripts/fuzz.sh
