#!/usr/bin/env bash
# setup-worker.sh installs the local Cloudflare Workers runtime (npm
# workerd, which ships the workerd binary) into build/node, git-ignored, for
# the Worker tests (cloudflare). Idempotent: nothing is fetched when the
# pinned version is already there.
#
# With WRANGLER=1 it also installs wrangler (for "wrangler deploy"; it runs
# on Node 20, wrangler 4 needs Node >= 22.12).
set -euo pipefail
cd "$(dirname "$0")/.."

workerd_version=1.20261117.1
wrangler_version=3.114.17
prefix=build/node

installed() { # installed PACKAGE VERSION
  local pj="$prefix/node_modules/$1/package.json"
  [ -f "$pj" ] && node -e 'process.exit(require(process.argv[1]).version === process.argv[2] ? 0 : 1)' "$PWD/$pj" "$2"
}

mkdir -p "$prefix"
pkgs=()
installed workerd "$workerd_version" || pkgs+=("workerd@$workerd_version")
if [ "${WRANGLER:-}" = 1 ]; then
  installed wrangler "$wrangler_version" || pkgs+=("wrangler@$wrangler_version")
fi
if [ ${#pkgs[@]} -gt 0 ]; then
  echo "setup-worker: npm install ${pkgs[*]} into $prefix" >&2
  npm install --prefix "$prefix" --save-exact --no-audit --no-fund "${pkgs[@]}" >&2
fi
bin="$prefix/node_modules/.bin/workerd"
"$bin" --version >/dev/null 2>&1 || { echo "setup-worker: $bin does not run" >&2; exit 1; }
echo "setup-worker: $("$bin" --version) at $bin" >&2
