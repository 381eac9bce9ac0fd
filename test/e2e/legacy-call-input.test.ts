// Input a tool asks for during a plain tools/call on a 2025-11-25 server: the real
// @modelcontextprotocol/server-everything (npm) over Streamable HTTP on 127.0.0.1, tool
// `trigger-elicitation-request` (synchronous; its form has defaults for most fields, and the tool
// echoes the raw answer it got). The built CLI answers from --answers with the form's defaults
// filled in for the fields the answer leaves out (SEP-1034); without an answer it dismisses the
// server's request (`cancel`) instead of leaving the server waiting, and keeps the call in doubt
// (exit 10): the request reached the server, which may have done work before it asked.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { homeWithServer, parseJsonDoc } from '../helpers/cli.js';
import { answersFile, accept } from '../helpers/answers.js';
import { startEverythingServer } from '../helpers/third-party-http.js';
import { startProxy } from '../helpers/proxy.js';
import { openLegacySession } from '../../src/session/legacy/legacy-session.js';
import type { ServerEntry } from '../../src/servers/server-entry.js';

const TOOL = 'trigger-elicitation-request';
const resultText = (doc: { result?: { content?: Array<{ text?: string }> } }) => (doc.result?.content ?? []).map((c) => c.text ?? '').join('\n');

/** The answer the tool reports it received ("Raw result: {…}"). */
function rawAnswer(text: string): { action: string; content?: Record<string, unknown> } {
  const at = text.indexOf('Raw result:');
  assert.ok(at >= 0, `no raw result in:\n${text}`);
  return JSON.parse(text.slice(at + 'Raw result:'.length));
}

test('2025-11-25 plain call: the form asked during the call is listed with its key, the call kept in doubt (exit 10), then answered from --answers with the defaults filled in', async (t) => {
  const server = await startEverythingServer(t);
  // Every message the client sends goes through a proxy that keeps the bodies.
  const sent: Array<Record<string, unknown>> = [];
  const proxy = await startProxy(server.url, {
    answer: (req) => {
      if (req.body.length) {
        try {
          sent.push(JSON.parse(req.body.toString('utf8')));
        } catch { /* not JSON: not ours to judge */ }
      }
      return undefined;
    },
  });
  t.after(() => proxy.close());
  const h = await homeWithServer('ev', proxy.url);

  const asked = await h.run(['--json', 'call', 'ev', TOOL]);
  assert.equal(asked.code, 10, asked.stderr);
  const doc = parseJsonDoc(asked.stdout);
  assert.equal(doc.error.kind, 'in-doubt');
  assert.match(doc.error.message, /asked for input during the call and none could be given.*may have done work/);
  const keys = Object.keys(doc.inputRequests ?? {});
  assert.equal(keys.length, 1, asked.stdout);
  const key = keys[0]!;
  assert.match(key, /^elicit-[0-9a-f]{12}$/);
  const form = doc.inputRequests[key];
  assert.equal(form.method, 'elicitation/create');
  assert.equal(form.params.requestedSchema.properties.integer.default, 42);

  // The command ended without an answer: the server's request was dismissed, not left open.
  const dismissal = sent.find((m) => m.method === undefined && m.id !== undefined && (m.result as { action?: unknown } | undefined)?.action !== undefined);
  assert.deepEqual(dismissal?.result, { action: 'cancel' }, 'the unanswered form is answered with cancel');

  // The request reached the server: its record stays, in doubt, for recover (never "nothing was started").
  const rows = parseJsonDoc((await h.ok(['--json', 'list', '--all'])).stdout) as Array<{ phase: string; operation: { name: string } }>;
  assert.deepEqual(rows.map((r) => [r.phase, r.operation.name]), [['in-doubt', TOOL]]);
  // The same call again is refused while the first is in doubt (nothing sent); --new sends it on purpose.
  const calls = () => sent.filter((m) => m.method === 'tools/call').length;
  const before = calls();
  const refused = await h.run(['call', 'ev', TOOL]);
  assert.equal(refused.code, 10, refused.stderr);
  assert.match(refused.stderr, /an identical call is in doubt/);
  assert.equal(calls(), before, 'the refused re-run sent no tools/call');
  const human = await h.run(['call', 'ev', TOOL, '--new']);
  assert.equal(human.code, 10, human.stderr);
  assert.match(human.stderr, /is in doubt: the tool asked for input during the call/);
  assert.match(human.stderr, new RegExp(`${key}`), 'what it asked is shown');
  assert.doesNotMatch(human.stderr, /nothing was started/);
  // The way on from a script, as commands that run as printed: close the record, send it again with answers.
  assert.match(human.stderr, /`mcp-tasks recover [0-9a-f]{8} --resolve not-run --note checked`, then `mcp-tasks call ev \S+( --args-json '[^']*')? --answers answers.json`/);
  const rec = await h.run(['recover']);
  assert.equal(rec.code, 10, rec.stdout + rec.stderr);
  // Checked: neither ran. Closed as printed, the call can go out again.
  for (const d of parseJsonDoc((await h.run(['--json', 'recover'])).stdout) as Array<{ opId: string }>) {
    await h.ok(['recover', d.opId.slice(0, 8), '--resolve', 'not-run', '--note', 'checked']);
  }

  // Only the required field is given; every field with a default gets it.
  const file = answersFile(h, { [key]: accept({ name: 'Ada Lovelace' }) });
  const answered = await h.run(['--json', 'call', 'ev', TOOL, '--answers', file]);
  assert.equal(answered.code, 0, answered.stderr);
  const done = parseJsonDoc(answered.stdout);
  assert.equal(done.status, 'completed');
  const got = rawAnswer(resultText(done));
  assert.equal(got.action, 'accept');
  assert.deepEqual(got.content, {
    name: 'Ada Lovelace',
    firstLine: 'It was a dark and stormy night.',
    integer: 42,
    number: 3.14,
    untitledSingleSelectEnum: 'Monica',
    untitledMultipleSelectEnum: ['Guitar'],
    titledSingleSelectEnum: 'hero-1',
    titledMultipleSelectEnum: ['fish-1'],
    legacyTitledEnum: 'pet-1',
  });
});

test('2025-11-25 plain call through the session: an input round answers the open call, which is not sent again', async (t) => {
  const server = await startEverythingServer(t);
  let toolCalls = 0;
  const proxy = await startProxy(server.url, {
    answer: (req) => {
      if (req.body.includes('"tools/call"')) toolCalls++;
      return undefined;
    },
  });
  t.after(() => proxy.close());
  const entry = { name: 'ev', transport: 'http', url: proxy.url } as ServerEntry;
  const session = await openLegacySession(entry, { env: process.env }, { serverName: 'ev', serveInput: true });
  t.after(() => session.close());
  const first = await session.callTool({ name: TOOL, arguments: {} });
  assert.equal(first.kind, 'input_required');
  if (first.kind !== 'input_required') return;
  // server-everything also asks for roots/list whenever it likes: that is configuration, answered
  // by the session itself, so the only request listed is the form.
  const keys = Object.keys(first.inputRequests);
  assert.equal(keys.length, 1, JSON.stringify(keys));
  const key = keys[0]!;
  assert.match(key, /^elicit-/);
  assert.ok(first.requestState, 'the state naming the open call');
  const second = await session.callTool({ name: TOOL, arguments: {}, inputResponses: { [key]: { action: 'decline' } }, requestState: first.requestState });
  assert.equal(second.kind, 'complete', JSON.stringify(second).slice(0, 500));
  if (second.kind !== 'complete') return;
  const text = (second.result.content as Array<{ text?: string }>).map((c) => c.text ?? '').join('\n');
  assert.match(text, /User declined/);
  assert.equal(rawAnswer(text).action, 'decline');
  assert.equal(toolCalls, 1, 'the retry answered the open call; tools/call went out once');
});
