#!/usr/bin/env bash
# quality-static.sh prints NDCG@10 and Recall@100 on Cranfield
# (/work/shared/data/cranfield, beir convention, -l 1) for the teacher
# (minilm), the distilled static model and BM25, through the real packages
# (encoder/engine -> retrieval.TopK -> metrics.Evaluate): see
# TestQualityCranfield in encoder/static.
#
# STATIC (default: static under the models directory) is the static model;
# it is distilled first when missing. TEACHER (default: the installed
# minilm) is the teacher; it runs on ONNX Runtime when it has model.onnx.
set -euo pipefail
cd "$(dirname "$0")/.."
models="${DREVAL_MODELS:-${XDG_CACHE_HOME:-$HOME/.cache}/dreval/models}"
static="${STATIC:-$models/static}"
teacher="${TEACHER:-$models/minilm}"
if [ ! -f "$static/config.json" ]; then
  go run ./cmd/dreval model distill -model "$teacher" -dims 256 -out "$static"
fi
echo "quality-static: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)" >&2
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
status=0
DREVAL_QUALITY_STATIC="$static" DREVAL_QUALITY_TEACHER="$teacher" \
  go test -v -count=1 -run '^TestQualityCranfield$' -timeout 60m ./encoder/static/ >"$log" 2>&1 || status=$?
if [ "$status" != 0 ]; then cat "$log" >&2; exit "$status"; fi
grep -E '^(Cranfield|\|)' "$log"
