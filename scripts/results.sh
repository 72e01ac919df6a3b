#!/usr/bin/env bash
# results.sh regenerates docs/results.md: every figure in it is produced
# here, by the commands it records. "make results" runs it (not part of
# make test); it needs "make setup" (minilm, static, ONNX Runtime) and
# ../shared/data. Intermediate output (results.json, runs, reports) goes to
# out/results/.
#
# SECTIONS (default "demo beir answers dureader reproduce") picks the sections to rerun; each writes
# docs/results/<section>.md, and docs/results.md is assembled from all of
# them that exist.
set -euo pipefail
cd "$(dirname "$0")/.."
shared="${DREVAL_SHARED:-../shared}"
data="$shared/data"
out=out/results
mkdir -p "$out" docs/results
# DREVAL_BIN runs another build (a fresh one while build/dreval is busy).
dreval="${DREVAL_BIN:-build/dreval}"
[ -n "${DREVAL_BIN:-}" ] || go build -o build/dreval ./cmd/dreval
machine="$(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')), $(free -g | awk '/Mem:/ {print $2}') GiB, $(uname -sm)"

# section_demo: the built-in demo collection (dataset/demo), written so
# that the lesson shows: both dense models' clean NDCG@10 between 0.45 and
# 0.85, and a significant drop at 10% and 20% idshift.
section_demo() {
  local cmd=("$dreval" eval -quiet -data demo -models minilm,static,bm25 -rates 0,0.1,0.2 -seeds 5 -k 100 -out "$out/demo")
  local start=$SECONDS
  "${cmd[@]}" >/dev/null
  {
    echo "## Robustness to idshift on the built-in demo collection"
    echo
    echo "Command (\`scripts/results.sh\`, section demo):"
    echo
    echo "    dreval eval -data demo -models minilm,static,bm25 -rates 0,0.1,0.2 -seeds 5 -k 100"
    echo
    echo "Machine: $machine; $($dreval version); this run took $((SECONDS - start)) s (corpus embeddings are cached between runs)."
    echo "The demo (1,084 passages on 22 topics, 212 queries with graded judgments) is generated from the fact tables in dataset/demo/gen; see the README. Full output: \`$out/demo\`."
    echo
    sed -e '1{/^# /d}' "$out/demo/tables.md"
  } >docs/results/demo.md
}

section_beir() {
  local cmd=("$dreval" eval -quiet -data "$data/cranfield,$data/vaswani-npl,$data/cacm"
    -models minilm,static,bm25 -rates 0,0.05,0.2 -seeds 5 -k 100 -out "$out/beir")
  local start=$SECONDS
  "${cmd[@]}" >/dev/null
  {
    echo "## Robustness to idshift on Cranfield, Vaswani (NPL) and CACM"
    echo
    echo "Command (\`scripts/results.sh\`, section beir):"
    echo
    echo "    dreval eval -data ../shared/data/cranfield,../shared/data/vaswani-npl,../shared/data/cacm \\"
    echo "      -models minilm,static,bm25 -rates 0,0.05,0.2 -seeds 5 -k 100"
    echo
    echo "Machine: $machine; $($dreval version); this run took $((SECONDS - start)) s (corpus embeddings are cached between runs; a cold run also encodes the corpora)."
    echo "The full output (results.json with per-query values, runs/*.trec readable by trec_eval, report.html) is in \`$out/beir\`."
    echo
    sed -e '1{/^# /d}' -e 's/^### /### /' "$out/beir/tables.md"
  } >docs/results/beir.md
}

# section_answers: DPR's answer-span accuracy next to the qrels measures,
# clean and at 20% idshift, on SQuAD v1.1 dev (one seed: 10,570 questions)
# and HotpotQA dev-100 (five seeds).
section_answers() {
  local start=$SECONDS
  local squad=("$dreval" eval -quiet -task dpr -data "$data/squad-v1.1-dev" -models minilm,static,bm25
    -rates 0,0.2 -seeds 1 -k 100 -out "$out/answers-squad")
  local hotpot=("$dreval" eval -quiet -task dpr -data "$data/hotpotqa-dev-100" -models minilm,static,bm25
    -rates 0,0.2 -seeds 5 -k 100 -out "$out/answers-hotpotqa")
  "${squad[@]}" >/dev/null
  local t1=$((SECONDS - start))
  "${hotpot[@]}" >/dev/null
  {
    echo "## Answer-span accuracy (DPR) on SQuAD v1.1 dev and HotpotQA"
    echo
    echo "Commands (\`scripts/results.sh\`, section answers):"
    echo
    echo "    dreval eval -task dpr -data ../shared/data/squad-v1.1-dev -models minilm,static,bm25 -rates 0,0.2 -seeds 1 -k 100"
    echo "    dreval eval -task dpr -data ../shared/data/hotpotqa-dev-100 -models minilm,static,bm25 -rates 0,0.2 -seeds 5 -k 100"
    echo
    echo "Machine: $machine; $($dreval version); SQuAD took $t1 s, HotpotQA $((SECONDS - start - t1)) s (corpus embeddings are cached between runs)."
    echo "Answers match as DPR's string match (tokens, NFD, lower-cased); dense models encode each passage as \"title [SEP] text\" (-task dpr's default)."
    echo "SQuAD runs one seed to keep \`make results\` within its time budget, so its perturbed rows have no sd."
    echo "Full output: \`$out/answers-squad\`, \`$out/answers-hotpotqa\`."
    echo
    sed -e '1{/^# /d}' "$out/answers-squad/tables.md"
    echo
    sed -e '1{/^# /d}' "$out/answers-hotpotqa/tables.md"
  } >docs/results/answers.md
}

# section_dureader: the Chinese collection: BM25 over character bigrams
# (queries perturbed and decoded with bert-base-chinese's tokenizer) and
# MiniLM, the dureader convention next to st, the answer accuracy of the
# extractive answers in string and substring modes, and how much of the
# text each tokenizer maps to [UNK].
section_dureader() {
  local start=$SECONDS
  local zh="$shared/tokenizers/bert-base-chinese/tokenizer.json"
  local minilm_tok="${DREVAL_MODELS:-$HOME/.cache/dreval/models}/minilm/tokenizer.json"
  local cmd=("$dreval" eval -quiet -task dureader -data "$data/dureader-demo-zh" -models bm25,minilm
    -analyzer bigram -bm25-tokenizer "$zh" -rates 0,0.05,0.2 -seeds 5 -k 100 -out "$out/dureader")
  "${cmd[@]}" >/dev/null
  {
    echo "## DuReader (dureader-demo-zh): Chinese retrieval"
    echo
    echo "Command (\`scripts/results.sh\`, section dureader):"
    echo
    echo "    dreval eval -task dureader -data ../shared/data/dureader-demo-zh -models bm25,minilm -analyzer bigram \\"
    echo "      -bm25-tokenizer ../shared/tokenizers/bert-base-chinese/tokenizer.json -rates 0,0.05,0.2 -seeds 5 -k 100"
    echo
    echo "Machine: $machine; $($dreval version); this run took $((SECONDS - start)) s (corpus embeddings are cached between runs)."
    echo "BM25 indexes character bigrams; its queries are perturbed as bert-base-chinese token ids and decoded (spaces between Chinese characters removed) before analysis."
    echo "MiniLM's tokenizer is English: most Chinese characters are [UNK] before any perturbation (below), so its numbers measure little."
    echo "The answer accuracy uses DuReader's extractive answers (fake_answers); string mode rarely matches Chinese (a run of Chinese characters is one token), substring mode is the meaningful one."
    echo "Decoded perturbed Chinese queries for both tokenizers: \`go test ./cmd/dreval -run TestChineseIDShift -v\`; full output: \`$out/dureader\`."
    echo
    sed -e '1{/^# /d}' "$out/dureader/tables.md"
    echo
    echo "### [UNK] rates of the queries (\`dreval unk -fields text\`)"
    for tok in "$minilm_tok" "$zh"; do
      echo
      echo '```'
      "$dreval" unk -tokenizer "$tok" -in "$data/dureader-demo-zh/queries.jsonl" -fields text -top 5 | sed "s#$HOME#~#g"
      echo '```'
    done
  } >docs/results/dureader.md
}

# section_reproduce: the perturbation study's protocol (dreval reproduce);
# writes docs/reproduction.md.
section_reproduce() {
  local start=$SECONDS
  "$dreval" reproduce -data "$data/hotpotqa-dev-100,$data/cranfield" -quiet -out "$out/reproduce" -doc docs/reproduction.md -machine "$machine" >"$out/reproduce-findings.txt"
  {
    echo "## Reproduction of the study's protocol"
    echo
    echo "Command (\`scripts/results.sh\`, section reproduce): \`dreval reproduce\` (idshift at 0, 5, 10, 20%, 5 seeds, minilm, static and bm25 on HotpotQA dev-100 and Cranfield)."
    echo
    echo "Machine: $machine; $($dreval version); this run took $((SECONDS - start)) s. The tables and the point-by-point comparison are in [docs/reproduction.md](reproduction.md)."
    echo
    sed 's/^/- /' "$out/reproduce-findings.txt"
  } >docs/results/reproduce.md
}

for s in ${SECTIONS:-demo beir answers dureader reproduce}; do
  echo "results: section $s" >&2
  "section_$s"
done

{
  echo "# dreval results"
  echo
  echo "Regenerated by \`make results\` (scripts/results.sh). Each section names its command and machine."
  for f in docs/results/*.md; do echo; cat "$f"; done
} >docs/results.md
echo "results: wrote docs/results.md" >&2
