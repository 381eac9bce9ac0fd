#!/usr/bin/env bash
# Client-conformance adapter: the official suite runs `client.sh <server-url>` once per client
# scenario (MCP_CONFORMANCE_SCENARIO names it, MCP_CONFORMANCE_CONTEXT may hand over data).
# It maps each scenario onto mcp-tasks' own documented commands, as a person at a shell would
# type them, in a throw-away home. Only this adapter knows scenario names; the CLI never does.
#   ../shared/conformance/run-client.sh --command "bash test/conformance/client.sh" [scenario...]
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
url=${!#}
scenario=${MCP_CONFORMANCE_SCENARIO:-}

case "$scenario" in
  auth/*)
    [ -f "$here/client-auth.sh" ] || { echo "client.sh: $scenario needs test/conformance/client-auth.sh (the sign-in adapter), which is missing" >&2; exit 1; }
    exec bash "$here/client-auth.sh" "$@"
    ;;
esac

repo=$(cd "$here/../.." && pwd)
MCP_TASKS_HOME=$(mktemp -d "${TMPDIR:-/tmp}/mcp-tasks-conformance.XXXXXX")
export MCP_TASKS_HOME
trap 'rm -rf "$MCP_TASKS_HOME"' EXIT
export NO_COLOR=1

mcp_tasks() { node "$repo/bin/mcp-tasks.js" "$@"; }
# Reads JSON on stdin and prints what the JavaScript expression $1 makes of it (`v` is the value).
json() { node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const v=JSON.parse(s);const r=('"$1"');if(r!==undefined)process.stdout.write(typeof r==="string"?r:JSON.stringify(r))})'; }

mcp_tasks server add s --url "$url" >&2 || exit 1

# The calls a scenario hands over: {"toolCalls":[{"name","arguments"}...]}, one `call` each.
context_calls() {
  local n i name args rc=0
  n=$(printf '%s' "${MCP_CONFORMANCE_CONTEXT:-{\}}" | json 'String((v.toolCalls??[]).length)')
  for ((i = 0; i < n; i++)); do
    name=$(printf '%s' "$MCP_CONFORMANCE_CONTEXT" | json "v.toolCalls[$i].name")
    # A null argument is one the person leaves out: `call` checks arguments against the tool's
    # schema, which does not admit null, and an absent value sends no Mcp-Param header either way.
    args=$(printf '%s' "$MCP_CONFORMANCE_CONTEXT" | json "Object.fromEntries(Object.entries(v.toolCalls[$i].arguments??{}).filter(([,x])=>x!==null))")
    mcp_tasks call s "$name" --args-json "$args" || rc=$?
  done
  return $rc
}

# Answers a pre-task input request the way a person would after reading it: accept every form,
# ticking each boolean the form asks for. Prints the answers JSON for `--answers`.
accept_all_forms() {
  json 'Object.fromEntries(Object.entries(v.inputRequests??{}).map(([k,r])=>[k,{action:"accept",content:Object.fromEntries(Object.entries(r.params?.requestedSchema?.properties??{}).filter(([,p])=>p.type==="boolean").map(([f])=>[f,true]))}]))'
}

# Call a tool that may ask for input before it starts: first look at what it asks (exit 5, the
# requests on stdout with --json), then call again with the answers.
call_answering() {
  local tool=$1 first rc answers
  first=$(mcp_tasks --json call s "$tool"); rc=$?
  [ "$rc" -eq 5 ] || { printf '%s\n' "$first"; return "$rc"; }
  answers="$MCP_TASKS_HOME/answers-$tool.json"
  printf '%s' "$first" | accept_all_forms >"$answers"
  mcp_tasks call s "$tool" --answers "$answers"
}

case "$scenario" in
  tools_call)
    tool=$(mcp_tasks --json tools s | json 'v[0]?.name') || exit 1
    [ -n "$tool" ] || { echo "client.sh: the server lists no tools" >&2; exit 1; }
    mcp_tasks call s "$tool" a:=2 b:=3
    ;;
  request-metadata | json-schema-ref-no-deref)
    mcp_tasks tools s
    ;;
  initialize)
    # The handshake a person's first look at a server makes: which generation, what it offers.
    mcp_tasks server check s
    ;;
  sse-retry)
    # The server closes the call's stream before answering; the call must still get its result.
    mcp_tasks call s test_reconnection
    ;;
  elicitation-sep1034-client-defaults)
    # The tool's form has a default for every field; a CI job accepts it as offered, without
    # having seen the question first (on this wire a command that ends without an answer
    # dismisses the open request, which this tool records as a refusal): --accept-defaults alone.
    mcp_tasks call s test_client_elicitation_defaults --accept-defaults
    ;;
  http-standard-headers)
    mcp_tasks tools s || exit 1
    rc=0
    for tool in $(mcp_tasks --json tools s | json 'v.map(t=>t.name).join(" ")'); do
      mcp_tasks call s "$tool" || rc=$?
    done
    exit $rc
    ;;
  http-custom-headers)
    context_calls
    ;;
  http-invalid-tool-headers)
    # Every listed tool, with a string for each required argument: mcp-tasks must call the valid
    # one and refuse the others before sending (exit 1 naming the rule each breaks).
    rc=0
    for tool in $(mcp_tasks --json tools s | json 'v.map(t=>t.name).join(" ")'); do
      mcp_tasks call s "$tool" region=us-west1 || rc=$?
    done
    for tool in invalid_empty_header invalid_number_header invalid_duplicate_same_case invalid_space_in_name; do
      if mcp_tasks call s "$tool" value=x field1=x field2=x score:=1; then echo "client.sh: $tool was called" >&2; rc=1; fi
    done
    exit $rc
    ;;
  sep-2322-client-request-state)
    mcp_tasks tools s || exit 1
    call_answering test_mrtr_echo_state || exit $?
    mcp_tasks call s test_mrtr_unrelated || exit $?
    call_answering test_mrtr_no_state || exit $?
    mcp_tasks call s test_mrtr_no_result_type
    ;;
  *)
    echo "client.sh: no mapping for scenario \"$scenario\"" >&2
    exit 1
    ;;
esac
