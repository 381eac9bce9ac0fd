#!/usr/bin/env bash
# node-line.sh <22|24> — print the path of a pinned Node binary of that line, installing it on
# first use the way ../shared/conformance/run-tasks.sh installs its Node: .ci/node<line>/'s
# package.json + package-lock.json (the npm package `node`, whose preinstall fetches the platform
# binary) are copied into a cache dir and `npm ci`'d there; a sha256 stamp of the two files
# decides whether the cached install is current. Progress goes to stderr; exit 2 on failure.
set -uo pipefail

line=${1:-}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
spec="$here/node$line"
die() { echo "node-line: $*" >&2; exit 2; }
[[ "$line" =~ ^[0-9]+$ ]] && [ -f "$spec/package.json" ] && [ -f "$spec/package-lock.json" ] \
  || die "usage: node-line.sh <line>, with .ci/node<line>/package.json and package-lock.json (have: $(cd "$here" && ls -d node[0-9]* 2>/dev/null | tr '\n' ' '))"

cache=${MCP_TASKS_CI_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/mcp-tasks-ci}/node$line
node="$cache/node_modules/.bin/node"
stamp=$(cat "$spec/package.json" "$spec/package-lock.json" | sha256sum | cut -d' ' -f1)
node_ok() { [ "$("$node" -p 'process.versions.node.split(".")[0]' 2>/dev/null)" = "$line" ]; }
ready() { [ "$(cat "$cache/.installed" 2>/dev/null)" = "$stamp" ] && node_ok; }

mkdir -p "$cache" || die "cannot create $cache"
if ! ready; then
  exec 9>"$cache/.lock" || die "cannot write $cache/.lock"
  flock 9 2>/dev/null || true # serialise concurrent installs
  if ! ready; then
    echo "node-line: installing Node $line into $cache (npm ci)..." >&2
    rm -f "$cache/.installed"
    cp "$spec/package.json" "$spec/package-lock.json" "$cache/" && chmod u+w "$cache"/package*.json || die "cannot copy package files into $cache"
    if ! (cd "$cache" && npm ci --no-audit --no-fund) >"$cache/npm-ci.log" 2>&1; then
      tail -n 20 "$cache/npm-ci.log" >&2
      die "npm ci failed (full log: $cache/npm-ci.log)"
    fi
    node_ok || die "no working Node $line at $node after npm ci; see $cache/npm-ci.log"
    echo "$stamp" >"$cache/.installed"
  fi
  exec 9>&-
fi
# The real binary (not the .bin symlink): what process.execPath will be in the suite.
"$node" -p 'process.execPath'
