#!/usr/bin/env bash
# run-auth.sh — every auth scenario the sign-in issue is judged by: the 25 auth/* client scenarios
# of the 2026-07-28 requirement set (through ../shared/conformance/run-client.sh) and the two
# auth/client-credentials-* extension scenarios, which run-client.sh cannot run (it always passes
# --spec-version, and the suite skips extension scenarios then), so they run through the same
# pinned suite without it. Exit 0 only when no check failed.
set -uo pipefail
HERE=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)
# The pinned runner beside the project (../shared, as CI lays it out); run through bash, since a
# read-only copy may have lost its exec bits.
RUNNER=${RUN_CLIENT:-$HERE/../../../shared/conformance/run-client.sh}
[ -f "$RUNNER" ] || { echo "run-auth: no conformance runner at $RUNNER" >&2; exit 2; }
ADAPTER="bash $HERE/client-auth.sh"
rc=0
bash "$RUNNER" --command "$ADAPTER" \
  auth/metadata-default auth/metadata-var1 auth/metadata-var2 auth/metadata-var3 auth/basic-cimd \
  auth/scope-from-www-authenticate auth/scope-from-scopes-supported auth/scope-omitted-when-undefined \
  auth/scope-step-up auth/scope-retry-limit auth/token-endpoint-auth-basic auth/token-endpoint-auth-post \
  auth/token-endpoint-auth-none auth/pre-registration auth/resource-mismatch auth/offline-access-scope \
  auth/offline-access-not-supported auth/authorization-server-migration auth/iss-supported \
  auth/iss-not-advertised auth/iss-supported-missing auth/iss-wrong-issuer auth/iss-unexpected \
  auth/iss-normalized auth/metadata-issuer-mismatch || rc=1

CACHE=${RUN_TASKS_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/mcp-conformance-tasks}
NODE="$CACHE/node_modules/.bin/node"
CLI="$CACHE/node_modules/@modelcontextprotocol/conformance/dist/index.js"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/run-auth.XXXXXX") || exit 2
trap 'rm -rf "$WORK"' EXIT
for s in auth/client-credentials-basic auth/client-credentials-jwt; do
  out="$WORK/${s//\//_}"
  (cd "$WORK" && timeout --kill-after=10 60 "$NODE" "$CLI" client --command "$ADAPTER" --scenario "$s" --timeout 30000 -o "$out") >"$out.log" 2>&1
  line=$(grep -a '^Passed:' "$out.log" | tail -n 1)
  echo "$s: ${line:-no result (see the suite output below)}"
  case "$line" in "Passed: "*", 0 failed"*) ;; *) rc=1; tail -n 20 "$out.log" ;; esac
done
exit $rc
