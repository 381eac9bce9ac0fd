// Two never-lose rules of submitOperation (src/app/submit.ts), each against a real server:
// - once a 2025-11-25 call is open on the server (its tool asked for input mid-call), no later
//   failure removes its record: a JSON-RPC error on the open call, or on our answer to the
//   tool's question, proves nothing about what the tool did before it asked (in doubt);
// - a refusal made before anything is sent (a tool that requires a task on a server that
//   advertises none; an interrupt before the request leaves) leaves no in-doubt record.
// Servers: @modelcontextprotocol/server-everything (npm, SDK 1.x, 2025-11-25) behind a real
// proxy that rewrites chosen answers, and the demo server (2026-07-28). The CLI runs in process.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseJsonDoc, startDemo, tempHome } from '../helpers/cli.js';
import { interruptingPrompter, runInProcess } from '../helpers/in-process.js';
import { startProxy, type ProxiedRequest } from '../helpers/proxy.js';
import { startEverythingServer, type RunningServer } from '../helpers/third-party-http.js';
import { vaultAt } from '../../src/app/open-vault.js';

const ELICITING_TOOL = 'trigger-elicitation-request';
const TASK_ONLY_TOOL = 'simulate-research-query';

const records = (home: string) => vaultAt(home, { MCP_TASKS_HOME: home, CI: '1', MCP_TASKS_NO_KEYCHAIN: '1' }, () => {}).list();

function jsonOf(req: ProxiedRequest): Record<string, unknown> | undefined {
  try {
    return JSON.parse(req.body.toString('utf8')) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

/** Our JSON-RPC response to the tool's question (an elicitation's `action`; roots/list is answered too, by itself). */
const isAnswerToQuestion = (m: Record<string, unknown> | undefined) => m !== undefined && m.method === undefined && m.id !== undefined && typeof (m.result as { action?: unknown } | undefined)?.action === 'string';

/** The key of the form server-everything's eliciting tool asks, learned on a home of its own. */
async function elicitationKey(url: string): Promise<string> {
  const home = tempHome();
  assert.equal((await runInProcess(['server', 'add', 'ev', '--url', url], { home })).code, 0);
  const asked = await runInProcess(['--json', 'call', 'ev', ELICITING_TOOL], { home });
  assert.equal(asked.code, 10, asked.stderr);
  const keys = Object.keys(parseJsonDoc(asked.stdout).inputRequests ?? {});
  assert.equal(keys.length, 1, asked.stdout);
  return keys[0]!;
}

async function answeredCall(t: { after(fn: () => unknown): void }, server: RunningServer, hooks: Parameters<typeof startProxy>[1]) {
  const key = await elicitationKey(server.url);
  const proxy = await startProxy(server.url, hooks);
  t.after(() => proxy.close());
  const home = tempHome();
  assert.equal((await runInProcess(['server', 'add', 'ev', '--url', proxy.url], { home })).code, 0);
  const answers = join(home, 'answers.json');
  writeFileSync(answers, JSON.stringify({ [key]: { action: 'accept', content: { name: 'Ada Lovelace' } } }));
  const r = await runInProcess(['--json', 'call', 'ev', ELICITING_TOOL, '--answers', answers], { home });
  return { home, r };
}

test('2025-11-25: the open call (its tool asked, we answered) answers with a JSON-RPC error: the record stays in doubt', async (t) => {
  const server = await startEverythingServer(t);
  let answered = false;
  let rewritten = 0;
  const { home, r } = await answeredCall(t, server, {
    answer: (req) => {
      if (isAnswerToQuestion(jsonOf(req))) answered = true;
      return undefined;
    },
    // The call's own event stream: the question passes, the final answer becomes an error.
    rewriteEvents: (req) => {
      const call = jsonOf(req);
      if (call?.method !== 'tools/call') return undefined;
      return (data) => {
        if (!data) return data; // a priming event
        const m = JSON.parse(data) as Record<string, unknown>;
        if (m.id !== call.id || !('result' in m)) return data;
        rewritten++;
        return JSON.stringify({ jsonrpc: '2.0', id: m.id, error: { code: -32603, message: 'the tool failed after it was answered' } });
      };
    },
  });
  assert.ok(answered, 'our answer reached the server');
  assert.equal(rewritten, 1, `the call's answer was rewritten into an error\n${r.stderr}`);
  assert.notEqual(r.code, 0);
  const kept = records(home);
  assert.deepEqual(kept.map((x) => [x.phase, x.operation.name]), [['in-doubt', ELICITING_TOOL]], `the record stays, in doubt\n${r.stdout}\n${r.stderr}`);
});

test('2025-11-25: our answer to the tool\'s question is refused with a JSON-RPC error: the record stays in doubt', async (t) => {
  const server = await startEverythingServer(t);
  const refused: string[] = [];
  const { home, r } = await answeredCall(t, server, {
    answer: (req) => {
      const m = jsonOf(req);
      if (!isAnswerToQuestion(m)) return undefined;
      refused.push((m!.result as { action: string }).action);
      return { status: 400, body: JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'this answer is refused' } }) };
    },
  });
  // Our answer, then (the command ending with the question unanswered) its dismissal.
  assert.equal(refused[0], 'accept', `${JSON.stringify(refused)}\n${r.stderr}`);
  assert.notEqual(r.code, 0);
  const kept = records(home);
  assert.deepEqual(kept.map((x) => [x.phase, x.operation.name]), [['in-doubt', ELICITING_TOOL]], `the record stays, in doubt\n${r.stdout}\n${r.stderr}`);
});

test('2025-11-25: a tool that requires a task on a server that advertises no tasks is refused before sending: no record', async (t) => {
  const server = await startEverythingServer(t);
  let toolCalls = 0;
  // A server whose initialize answer advertises no tasks capability, its tools unchanged.
  const proxy = await startProxy(server.url, {
    answer: (req) => {
      if (jsonOf(req)?.method === 'tools/call') toolCalls++;
      return undefined;
    },
    rewriteEvents: (req) => (jsonOf(req)?.method === 'initialize' ? (data) => withoutTasks(data) : undefined),
    rewrite: (req) => (jsonOf(req)?.method === 'initialize' ? (body) => withoutTasks(body) : undefined),
  });
  t.after(() => proxy.close());
  const home = tempHome();
  assert.equal((await runInProcess(['server', 'add', 'ev', '--url', proxy.url], { home })).code, 0);
  const r = await runInProcess(['--json', 'call', 'ev', TASK_ONLY_TOOL, 'topic=tides'], { home });
  assert.notEqual(r.code, 0);
  assert.notEqual(r.code, 10, `not in doubt: nothing was sent\n${r.stdout}`);
  assert.match(r.stdout + r.stderr, /task/i);
  assert.equal(toolCalls, 0, 'no tools/call was sent');
  assert.deepEqual(records(home).map((x) => x.phase), [], `no record is left behind\n${r.stdout}\n${r.stderr}`);
});

function withoutTasks(text: string): string {
  try {
    const m = JSON.parse(text) as { result?: { capabilities?: Record<string, unknown> } };
    if (!m.result?.capabilities) return text;
    delete m.result.capabilities.tasks;
    return JSON.stringify(m);
  } catch {
    return text;
  }
}

test('an interrupt after a prompt, before the retry is sent: the request is not sent and no in-doubt record is left', async (t) => {
  const demo = await startDemo({ verbose: true });
  t.after(() => demo.stop());
  const home = tempHome();
  assert.equal((await runInProcess(['server', 'add', 'web', '--url', demo.url], { home })).code, 0);
  const interrupt = new AbortController();
  // Ctrl-C arrives while the person answers the question asked before any task exists: the
  // answer comes back, but the retry carrying it must not leave.
  const prompter = interruptingPrompter(interrupt);
  const r = await runInProcess(['call', 'web', 'preflight_check'], { home, stdinIsTTY: true, env: { CI: undefined }, prompter, interrupt: interrupt.signal });
  assert.ok(interrupt.signal.aborted, `the prompt was reached\n${r.stderr}`);
  assert.notEqual(r.code, 0);
  assert.notEqual(r.code, 10, `not in doubt: the retry was not sent\n${r.stderr}`);
  assert.equal(await demo.count('tools/call'), 1, 'only the first tools/call (which created nothing) was sent');
  assert.deepEqual(records(home).map((x) => x.phase), [], `no record is left behind\n${r.stderr}`);
});
