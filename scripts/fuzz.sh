#!/usr/bin/env bash
# fuzz.sh runs every Go fuzz target in the module for a short time each
# (FUZZTIME, default 3s), so "make test" exercises the parsers with inputs
# nobody wrote by hand. It prints how many inputs each target ran and fails
# a target that runs fewer than MIN_RATE (default 1000) a second of its
# time: a fuzzer that spends its budget elsewhere (minimising large inputs,
# one slow input) tests next to nothing while seeming to pass. PKGS limits
# the run to some packages (default ./...) of the main module; FUZZ_MODULES
# names the module folders to fuzz (default ". beam": the main module and
# the Beam pipeline's, which ./... does not reach; "." when PKGS is set).
set -euo pipefail
cd "$(dirname "$0")/.."
fuzztime="${FUZZTIME:-3s}"
min_rate="${MIN_RATE:-1000}"
# Minimising an input that found new coverage runs the target again and
# again on it; by time (Go's default is 60s, and even 1s per input) it can
# eat a short run's whole budget: FuzzReadWeights ran 433 inputs in 3s so,
# 94,000 with 100 minimising runs per input. Findings are still minimised,
# by as many runs.
minimize="${FUZZMINIMIZETIME:-100x}"
log=$(mktemp)
# Each target starts from its committed seeds (testdata/fuzz) in a fresh
# corpus directory, not Go's shared fuzz cache: the corpus a longer run
# grew there is replayed first ("gathering baseline coverage"), and 838
# cached FuzzRegex inputs took a whole 3s budget before one new input ran.
# FUZZCACHE=go keeps Go's cache (for long runs that should build on it).
cachedir=$(mktemp -d)
trap 'rm -rf "$log" "$cachedir"' EXIT

# seconds converts a Go duration such as 3s, 1m30s or 500ms to seconds;
# it prints nothing for a count such as 1000x.
seconds() {
  awk -v d="$1" 'BEGIN {
    if (d ~ /x$/) exit
    t = 0; s = d
    while (match(s, /^[0-9.]+(h|ms|m|s|us|ns)/)) {
      v = substr(s, RSTART, RLENGTH); u = v; gsub(/[0-9.]/, "", u); n = v + 0
      if (u == "h") t += n * 3600; else if (u == "m") t += n * 60; else if (u == "s") t += n
      else if (u == "ms") t += n / 1000; else if (u == "us") t += n / 1e6; else t += n / 1e9
      s = substr(s, RLENGTH + 1)
    }
    if (s != "") { print "bad" > "/dev/stderr"; exit 1 }
    print t
  }'
}
budget=$(seconds "$fuzztime") || { echo "fuzz: FUZZTIME=$fuzztime is not a duration (3s, 1m) or a count (1000x)" >&2; exit 2; }

n=0
summary=()
modules="${FUZZ_MODULES:-. beam}"
if [ -n "${PKGS:-}" ]; then modules="${FUZZ_MODULES:-.}"; fi
for mod in $modules; do
while IFS= read -r pkg; do
  dir=$(cd "$mod" && go list -f '{{.Dir}}' "$pkg")
  targets=$(grep -ho '^func Fuzz[A-Za-z0-9_]*' "$dir"/*_test.go 2>/dev/null | sed 's/^func //' | sort -u || true)
  for t in $targets; do
    echo "fuzz: $pkg $t ($fuzztime)"
    # Go's fuzzer can end a run with "context deadline exceeded" when its
    # time is up while a worker is still busy (on a loaded machine); that is
    # not a finding (a race in Go 1.26's fuzz coordinator, go.dev/issue/75804,
    # fixed in Go 1.27), so such a run is tried again, up to twice. A real
    # finding writes its failing input ("Failing input written to ...").
    cacheargs=()
    if [ "${FUZZCACHE:-fresh}" != go ]; then
      cacheargs=(-args -test.fuzzcachedir="$cachedir/$pkg")
    fi
    for try in 1 2 3; do
      if (cd "$mod" && go test -run='^$' -fuzz="^${t}\$" -fuzztime="$fuzztime" -fuzzminimizetime="$minimize" "$pkg" "${cacheargs[@]}") >"$log" 2>&1; then
        break
      fi
      if [ "$try" = 3 ] || ! grep -q 'context deadline exceeded' "$log" || grep -q 'Failing input written' "$log"; then
        cat "$log"; exit 1
      fi
      echo "fuzz: $t ended on the fuzzer's own deadline, not on a finding; again" >&2
    done
    # The fuzzer's last status line holds the total: "fuzz: elapsed: 3s,
    # execs: 123456 (41152/sec), new interesting: 3 (total: 12)".
    execs=$( (grep -o 'execs: [0-9]*' "$log" || true) | tail -n 1 | awk '{print $2}')
    if [ -z "$execs" ] && [ -z "$budget" ]; then
      execs=${fuzztime%x} # a count ran too briefly for a status line
    fi
    if [ -z "$execs" ]; then
      cat "$log"; echo "fuzz: $pkg $t: no \"execs: N\" line in the fuzzer's output" >&2; exit 1
    fi
    line="$pkg $t: $execs inputs in $fuzztime"
    if [ -n "$budget" ]; then
      need=$(awk -v b="$budget" -v r="$min_rate" 'BEGIN { printf "%d", b * r }')
      line="$line ($(awk -v e="$execs" -v b="$budget" 'BEGIN { printf "%d", e / b }')/s)"
      if [ "$execs" -lt "$need" ]; then
        cat "$log"
        echo "fuzz: FAIL $line: fewer than $min_rate inputs a second ($need in $fuzztime)" >&2
        exit 1
      fi
    fi
    echo "fuzz: $line"
    summary+=("$line")
    n=$((n+1))
  done
done < <(cd "$mod" && go list ${PKGS:-./...})
done
printf 'fuzz: %s\n' "${summary[@]}"
echo "fuzz: $n targets passed"
