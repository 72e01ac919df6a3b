#!/usr/bin/env bash
# fuzz.sh runs every Go fuzz target in the module for a short time each
# (FUZZTIME, default 3s), so "make test" exercises the parsers with inputs
# nobody wrote by hand.
set -euo pipefail
cd "$(dirname "$0")/.."
fuzztime="${FUZZTIME:-3s}"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
n=0
while IFS= read -r pkg; do
  dir=$(go list -f '{{.Dir}}' "$pkg")
  targets=$(grep -ho '^func Fuzz[A-Za-z0-9_]*' "$dir"/*_test.go 2>/dev/null | sed 's/^func //' | sort -u || true)
  for t in $targets; do
    echo "fuzz: $pkg $t ($fuzztime)"
    # Go's fuzzer can end a run with "context deadline exceeded" when its
    # time is up while a worker is still busy (on a loaded machine); that is
    # not a finding (a race in Go 1.26's fuzz coordinator, go.dev/issue/75804,
    # fixed in Go 1.27), so such a run is tried again, up to twice. A real
    # finding writes its failing input ("Failing input written to ...").
    for try in 1 2 3; do
      if go test -run='^$' -fuzz="^${t}\$" -fuzztime="$fuzztime" "$pkg" >"$log" 2>&1; then
        break
      fi
      if [ "$try" = 3 ] || ! grep -q 'context deadline exceeded' "$log" || grep -q 'Failing input written' "$log"; then
        cat "$log"; exit 1
      fi
      echo "fuzz: $t ended on the fuzzer's own deadline, not on a finding; again" >&2
    done
    n=$((n+1))
  done
done < <(go list ./...)
echo "fuzz: $n targets passed"
