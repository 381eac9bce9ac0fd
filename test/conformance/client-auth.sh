#!/usr/bin/env bash
# client-auth.sh — the conformance adapter for the auth/* client scenarios: maps a scenario onto
# mcp-tasks' own commands (server add, server login, tools, call) in a fresh home. Run by the
# suite as `<command> <server-url>` (client.sh execs it for auth/* names), or directly as the
# --command of ../shared/conformance/run-client.sh. BROWSER plays the browser (play-browser.mjs);
# scenario data such as pre-registered clients comes in MCP_CONFORMANCE_CONTEXT and reaches the
# CLI through environment variables, never argv (client ids excepted: they are not secrets).
set -uo pipefail

[ $# -ge 1 ] || { echo "usage: client-auth.sh <server-url>" >&2; exit 2; }
URL=${!#}
SCENARIO=${MCP_CONFORMANCE_SCENARIO:-}
HERE=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
BIN="$ROOT/bin/mcp-tasks.js"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/client-auth.XXXXXX") || exit 2
trap 'rm -rf "$WORK"' EXIT
export MCP_TASKS_HOME="$WORK/home" MCP_TASKS_NO_KEYCHAIN=1
export BROWSER="$HERE/play-browser.mjs"
# The suite's fixed client ID metadata document URL (it does not need to resolve).
CIMD_URL=https://conformance-test.local/client-metadata.json

cli() { node "$BIN" "$@"; }
# One field of MCP_CONFORMANCE_CONTEXT (empty when absent).
ctx() { node -e 'const c = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT || "{}"); process.stdout.write(String(c[process.argv[1]] ?? ""))' "$1"; }

cli server add conf --url "$URL" || exit $?

case "$SCENARIO" in
  auth/client-credentials-basic)
    CONFORMANCE_CLIENT_SECRET=$(ctx client_secret); export CONFORMANCE_CLIENT_SECRET
    cli server login conf --client-credentials --client-id "$(ctx client_id)" --client-secret-env CONFORMANCE_CLIENT_SECRET || exit $?
    ;;
  auth/client-credentials-jwt)
    CONFORMANCE_CLIENT_KEY=$(ctx private_key_pem); export CONFORMANCE_CLIENT_KEY
    alg=$(ctx signing_algorithm)
    cli server login conf --client-credentials --client-id "$(ctx client_id)" --client-key-env CONFORMANCE_CLIENT_KEY ${alg:+--client-key-alg "$alg"} || exit $?
    ;;
  auth/pre-registration)
    CONFORMANCE_CLIENT_SECRET=$(ctx client_secret); export CONFORMANCE_CLIENT_SECRET
    cli server login conf --client-id "$(ctx client_id)" --client-secret-env CONFORMANCE_CLIENT_SECRET || exit $?
    ;;
  *)
    cli server login conf --client-metadata-url "$CIMD_URL" || exit $?
    ;;
esac

cli tools conf || exit $?
case "$SCENARIO" in
  auth/client-credentials-*|auth/pre-registration) ;;
  *) cli call conf test-tool || exit $? ;;
esac
