#!/bin/sh
# bench-ortweb.sh measures the browser app on onnxruntime-web in headless
# Chromium (Debian chromium) on 127.0.0.1, the site served with COOP/COEP:
#   - MiniLM at 32 tokens: one raw onnxruntime-web session (one thread,
#     batches of 16) against one of the page's workers and all of them,
#     batches of 16 too, and the worker's time in its session's runs
#     (BenchmarkORTWebPage), and the same at 256 tokens, the length of
#     Cranfield's abstracts (DREVAL_BENCH_TOKENS=256);
#   - the MiniLM demo run with default settings from "dreval site"'s
#     output, precomputed demo vectors included (BenchmarkORTWebDemoSite);
#   - Cranfield (../shared/data/cranfield) with MiniLM, uploaded as a BEIR
#     folder, rate 10%, one seed, from a static host
#     (BenchmarkORTWebCranfield) and under "dreval serve", which encodes
#     for the page (BenchmarkORTWebCranfieldServe).
# Needs scripts/setup-ort-web.sh, the installed models and make build.
set -eu
cd "$(dirname "$0")/.."
go=${GO:-go}
site=$(mktemp -d)
trap 'rm -rf "$site"' EXIT
[ -x build/dreval ] || { echo "bench-ortweb: build/dreval is missing: make build" >&2; exit 1; }
build/dreval site -out "$site/site" >&2 # the default: static (the opening lesson) and minilm
"$go" test ./ui/e2e -run '^$' -bench ORTWebPage -benchtime "${BENCHTIME:-1x}" -timeout 30m
DREVAL_BENCH_TOKENS=256 "$go" test ./ui/e2e -run '^$' -bench ORTWebPage -benchtime 1x -timeout 30m
DREVAL_BENCH_SITE="$site/site" "$go" test ./ui/e2e -run '^$' -bench ORTWebDemoSite -benchtime "${BENCHTIME:-3x}" -timeout 30m
"$go" test ./ui/e2e -run '^$' -bench ORTWebCranfield -benchtime 1x -timeout 60m
