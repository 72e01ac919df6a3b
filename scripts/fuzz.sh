#!/usr/bin/env bash
# fuzz.sh runs every Go fuzz target in the module for a short time each
# (FUZZTIME, default 3s), so "make test" exercises the parsers with inputs
# nobody wrote by hand.
set -euo pipefail
cd "$(dirname "$0")/.."
fuzztime="${FUZZTIME:-3s}"
n=0
while IFS= read -r pkg; do
  dir=$(go list -f '{{.Dir}}' "$pkg")
  targets=$(grep -ho '^func Fuzz[A-Za-z0-9_]*' "$dir"/*_test.go 2>/dev/null | sed 's/^func //' | sort -u || true)
  for t in $targets; do
    echo "fuzz: $pkg $t ($fuzztime)"
    go test -run='^$' -fuzz="^${t}\$" -fuzztime="$fuzztime" "$pkg" >/tmp/dreval-fuzz.log 2>&1 || { cat /tmp/dreval-fuzz.log; exit 1; }
    n=$((n+1))
  done
done < <(go list ./...)
echo "fuzz: $n targets passed"
