#!/usr/bin/env bash
# setup-peers.sh installs the Python libraries dreval is compared with (its
# "peers") into a virtual environment under the user cache, never into the
# repository:
#
#   light (always): pytrec_eval (pytrec-eval-terrier), BEIR's EvaluateRetrieval
#     (beir, without its dependencies), ranx, ir_measures, faiss-cpu;
#     PEERS_SET=ci instead installs only pytrec_eval, BEIR's evaluator and
#     ir_measures (what the conformance test needs, for CI);
#   PEERS_TORCH=1 adds PyTorch, transformers and sentence-transformers (the
#     reference embeddings and gradients; several GB, see docs/models.md).
#
# Versions: scripts/peers/requirements*.txt name the packages, and
# scripts/peers/constraints*.txt pin every package installed (written by
# "pip freeze" after an install; PEERS_FREEZE=1 rewrites them).
#
# Destination: $DREVAL_PEERS if set, else
# ${XDG_CACHE_HOME:-$HOME/.cache}/dreval/peers (its bin/python is what the
# tests run: go test ./metrics -run Conformance, ./encoder/... -run MPNet).
# Idempotent: a second run with the same files finds the stamp and the
# imports working and installs nothing.
set -euo pipefail
cd "$(dirname "$0")/.."

venv="${DREVAL_PEERS:-${XDG_CACHE_HOME:-$HOME/.cache}/dreval/peers}"
python="${PEERS_PYTHON:-python3}"
torch="${PEERS_TORCH:-0}"
set_="${PEERS_SET:-light}"
dir=scripts/peers
beir=beir==2.2.0

case "$set_" in
  light) reqs="$dir/requirements.txt"; imports="pytrec_eval, beir.retrieval.evaluation, ranx, ir_measures, faiss" ;;
  ci) reqs="$dir/requirements-ci.txt"; imports="pytrec_eval, beir.retrieval.evaluation, ir_measures" ;;
  *) echo "setup-peers: PEERS_SET=$set_: expected light or ci" >&2; exit 2 ;;
esac
files=("$reqs" "$dir/constraints.txt")
if [ "$torch" = 1 ]; then
  files+=("$dir/requirements-torch.txt" "$dir/constraints-torch.txt")
  imports="$imports, torch, sentence_transformers"
fi
want="$( (echo "$beir set=$set_ torch=$torch $("$python" -c 'import sys; print(sys.version.split()[0])')"; cat "${files[@]}" 2>/dev/null || true) | sha256sum | cut -d' ' -f1)"
stamp="$venv/.dreval-peers"

# The reference embeddings of all-mpnet-base-v2 that
# TestMPNetMatchesSentenceTransformers compares both engines with:
# computed here, once, where PyTorch and mpnet are installed (derived from
# the model's weights, so never committed).
mpnet_reference() {
  local models="${DREVAL_MODELS:-${XDG_CACHE_HOME:-$HOME/.cache}/dreval/models}"
  local ref="$venv/mpnet-reference"
  if [ "$torch" = 1 ] && [ -f "$models/mpnet/model.safetensors" ] && [ ! -f "$ref/embeddings.npy" ]; then
    echo "setup-peers: computing the sentence-transformers reference of mpnet into $ref" >&2
    "$venv/bin/python" "$dir/embeddings.py" -model "$models/mpnet" -n 200 -out "$ref"
  fi
}

if [ -x "$venv/bin/python" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$want" ] &&
  "$venv/bin/python" -c "import $imports" 2>/dev/null; then
  echo "setup-peers: $venv is up to date (set=$set_ torch=$torch)" >&2
  mpnet_reference
  exit 0
fi

start=$(date +%s)
[ -x "$venv/bin/python" ] || "$python" -m venv "$venv"
pip=("$venv/bin/python" -m pip --disable-pip-version-check -q install)
# PEERS_FREEZE=1 installs without the constraints it is about to write: the
# light set's when torch=0, the torch set's (on top of the pinned light set)
# when PEERS_TORCH=1.
constraints=(-c "$dir/constraints.txt")
[ "${PEERS_FREEZE:-0}" = 1 ] && [ "$torch" = 0 ] && [ "$set_" = light ] && constraints=()
echo "setup-peers: installing the $set_ set of peers into $venv" >&2
"${pip[@]}" "${constraints[@]}" -r "$reqs"
"${pip[@]}" --no-deps "$beir"
if [ "$torch" = 1 ]; then
  tconstraints=()
  [ "${PEERS_FREEZE:-0}" = 1 ] || tconstraints=(-c "$dir/constraints-torch.txt")
  echo "setup-peers: installing PyTorch and sentence-transformers (PyPI's torch pulls the NVIDIA libraries: about 3 GB to download)" >&2
  "${pip[@]}" "${constraints[@]}" "${tconstraints[@]}" -r "$dir/requirements-torch.txt"
fi
"$venv/bin/python" -c "import $imports"

if [ "${PEERS_FREEZE:-0}" = 1 ]; then
  # Pin what was installed: the light set, and the torch set as what it adds.
  if [ "$torch" = 1 ]; then
    "$venv/bin/python" -m pip freeze --exclude-editable | grep -v -x -F -f "$dir/constraints.txt" > "$dir/constraints-torch.txt" || true
  else
    "$venv/bin/python" -m pip freeze --exclude-editable > "$dir/constraints.txt"
  fi
  want="$( (echo "$beir set=$set_ torch=$torch $("$python" -c 'import sys; print(sys.version.split()[0])')"; cat "${files[@]}") | sha256sum | cut -d' ' -f1)"
fi
echo "$want" > "$stamp"
echo "setup-peers: installed in $(($(date +%s) - start)) s; $venv holds $(du -sh "$venv" | cut -f1)" >&2

mpnet_reference
