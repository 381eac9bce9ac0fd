// The README walkthrough on a 2025-11-25 server: the built CLI against the real
// @modelcontextprotocol/server-everything (npm) over Streamable HTTP on 127.0.0.1. Every command
// is its own process, so each one after `call --detach` rejoins the stored Mcp-Session-Id.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { homeWithServer, parseJsonDoc, type TestHome } from '../helpers/cli.js';
import { answersFile, accept } from '../helpers/answers.js';
import { startEverythingServer, type RunningServer } from '../helpers/third-party-http.js';
import { KEY, spawnPty } from '../helpers/pty.js';
import { clarificationKey, resultText, storedRecords } from '../helpers/legacy-everything.js';

/** server-everything with no proxy in front (test/helpers/legacy-everything.ts puts one there). */
async function everythingHome(t: { after(fn: () => unknown): void }): Promise<{ server: RunningServer; h: TestHome }> {
  const server = await startEverythingServer(t);
  return { server, h: await homeWithServer('ev', server.url) };
}

test('2025-11-25 CLI: server check names the generation, the tasks capabilities and each tool\'s taskSupport', async (t) => {
  const { h } = await everythingHome(t);
  const check = await h.run(['--json', 'server', 'check', 'ev']);
  assert.equal(check.code, 0, check.stderr);
  const report = parseJsonDoc(check.stdout);
  assert.equal(report.generation, '2025-11-25');
  assert.equal(report.protocolVersion, '2025-11-25');
  assert.equal(report.legacyTasks, true);
  assert.deepEqual(report.legacyTaskCapabilities, { list: true, cancel: true, toolsCall: true });
  const research = report.tools.find((x: { name: string }) => x.name === 'simulate-research-query');
  assert.equal(research.taskSupport, 'required');
  assert.equal(report.tools.find((x: { name: string }) => x.name === 'echo').taskSupport, 'forbidden');
  const human = await h.run(['server', 'check', 'ev']);
  assert.equal(human.code, 0, human.stderr);
  assert.match(human.stdout, /2025-11-25/);
  assert.match(human.stdout, /tasks\/list/);
  assert.match(human.stdout, /simulate-research-query.*task: required/);
});

test('2025-11-25 CLI: a plain echo; a task followed to completion; a tool that needs input answered from --answers', async (t) => {
  const { server, h } = await everythingHome(t);
  const echo = await h.run(['--json', 'call', 'ev', 'echo', 'message=hello legacy']);
  assert.equal(echo.code, 0, echo.stderr);
  assert.match(JSON.stringify(parseJsonDoc(echo.stdout)), /hello legacy/);

  const research = await h.run(['--json', 'call', 'ev', 'simulate-research-query', 'topic=tides']);
  assert.equal(research.code, 0, research.stderr);
  const done = parseJsonDoc(research.stdout);
  assert.equal(done.status, 'completed');
  assert.match(resultText(done), /Research Report: tides/);

  const key = await clarificationKey(server, 'python');
  const file = answersFile(h, { [key]: accept({ interpretation: 'snake' }) });
  const asked = await h.run(['--json', 'call', 'ev', 'simulate-research-query', 'topic=python', 'ambiguous:=true', '--answers', file]);
  assert.equal(asked.code, 0, asked.stderr);
  const answered = parseJsonDoc(asked.stdout);
  assert.equal(answered.status, 'completed');
  assert.match(resultText(answered), /python \(snake\)/);
  const rec = storedRecords(h).find((r) => r.taskId === answered.taskId);
  assert.deepEqual(rec?.inputKeysAnswered, [key], 'the vault remembers the answered key');

  // Without answers to give (no TTY, no file), the call stops at the question with exit 5.
  const stuck = await h.run(['--json', 'call', 'ev', 'simulate-research-query', 'topic=python', 'ambiguous:=true']);
  assert.equal(stuck.code, 5, stuck.stderr);
});

test('2025-11-25 CLI: --detach, then get / list --remote / answer / watch / cancel, each from a new process on the same session', async (t) => {
  const { server, h } = await everythingHome(t);
  const key = await clarificationKey(server, 'python');

  const detached = await h.run(['--json', 'call', 'ev', 'simulate-research-query', 'topic=python', 'ambiguous:=true', '--detach', '--label', 'job=legacy']);
  assert.equal(detached.code, 0, detached.stderr);
  const taskId = parseJsonDoc(detached.stdout).taskId as string;
  const [rec] = storedRecords(h);
  assert.equal(rec!.session!.protocolVersion, '2025-11-25');
  assert.match(rec!.session!.sessionId!, /^[0-9a-f-]{36}$/, 'the vault keeps the Mcp-Session-Id beside the handle');

  // A new process reaches the task through the stored session; `get` collects the question from
  // tasks/result (unanswered, kept in the record) and lists it, so a script can build its answers.
  let pending: Record<string, { method: string; params: { message: string; requestedSchema: { properties: Record<string, unknown> } } }>;
  for (;;) {
    const got = await h.run(['--json', 'get', 'legacy']);
    const doc = parseJsonDoc(got.stdout);
    assert.equal(doc.taskId, taskId);
    if (doc.status === 'input_required') {
      assert.equal(got.code, 5, got.stderr);
      pending = doc.inputRequests;
      break;
    }
    assert.equal(doc.status, 'working');
    assert.equal(got.code, 0, got.stderr);
  }
  assert.deepEqual(Object.keys(pending), [key], 'get --json lists the question under its key');
  assert.equal(pending[key]!.method, 'elicitation/create');
  // watch without a terminal shows what is asked, and how to answer it from a script (exit 5).
  const waiting = await h.run(['watch', 'legacy']);
  assert.equal(waiting.code, 5, waiting.stderr);
  assert.ok(waiting.stderr.includes(pending[key]!.params.message.slice(0, 40)), waiting.stderr);
  assert.match(waiting.stderr, new RegExp(`${key}: a form`));
  assert.match(waiting.stderr, /from a file: `mcp-tasks answer \S+ --template > answers.json`/);

  const remote = await h.run(['--json', 'list', '--remote', 'ev']);
  assert.equal(remote.code, 0, remote.stderr);
  const listed = parseJsonDoc(remote.stdout);
  const mine = listed.find((x: { taskId: string }) => x.taskId === taskId);
  assert.equal(mine?.inVault, true, 'list --remote marks the tasks the vault holds');

  // The answers file is built from get's JSON alone: its key and its form's field.
  const [field] = Object.keys(pending[key]!.params.requestedSchema.properties);
  const file = answersFile(h, { [key]: accept({ [field!]: 'comedy' }) });
  const answer = await h.run(['answer', 'legacy', '--answers', file]);
  assert.equal(answer.code, 0, answer.stderr);
  const watched = await h.run(['--json', 'watch', '--timeout', '60s', 'legacy']);
  assert.equal(watched.code, 0, watched.stderr);
  assert.match(watched.stdout, /python \(comedy\)/);

  const again = await h.run(['--json', 'call', 'ev', 'simulate-research-query', 'topic=fog', '--detach', '--label', 'job=stop']);
  assert.equal(again.code, 0, again.stderr);
  const cancel = await h.run(['--json', 'cancel', 'stop', '--wait', '--timeout', '60s']);
  assert.equal(cancel.code, 3, cancel.stderr);
  assert.equal(parseJsonDoc(cancel.stdout).status, 'cancelled');
});

test('2025-11-25 CLI: a task whose session the server ended is reported lost with that reason (exit 6)', async (t) => {
  const { server, h } = await everythingHome(t);
  const detached = await h.run(['--json', 'call', 'ev', 'simulate-research-query', 'topic=moss', '--detach', '--label', 'job=gone']);
  assert.equal(detached.code, 0, detached.stderr);
  const [rec] = storedRecords(h);
  const del = await fetch(server.url, { method: 'DELETE', headers: { 'mcp-session-id': rec!.session!.sessionId!, 'mcp-protocol-version': '2025-11-25' } });
  assert.equal(del.status, 200);
  const got = await h.run(['get', 'gone']);
  assert.equal(got.code, 6, got.stderr);
  assert.match(got.stderr + got.stdout, /the server scoped this task to a session that has ended/);
  const [after] = storedRecords(h);
  assert.equal(after!.phase, 'lost');
  assert.match(after!.reason ?? '', /session that has ended/);
});

test('2025-11-25 CLI: in a terminal, call asks the clarification question (served from tasks/result) and the task ends with the answer', async (t) => {
  const { h } = await everythingHome(t);
  const pty = spawnPty(['call', 'ev', 'simulate-research-query', 'topic=python', 'ambiguous:=true'], { home: h.dir, timeoutMs: 90_000 });
  try {
    await pty.waitFor(/Input request "elicit-[0-9a-f]{12}"/, 60_000);
    await pty.waitFor(/could have multiple interpretations/); // the question first, then its fields
    assert.match(pty.text(), /server ev/, 'the prompt names the server');
    assert.match(pty.text(), /could have multiple interpretations/, "the server's question is shown");
    await pty.answer(/Clarification/, KEY.down, KEY.enter); // the second choice: the snake
    const end = await pty.done;
    assert.equal(end.code, 0, end.text);
    assert.match(end.text, /python \(snake\)/, 'the answer reached the task');
  } finally {
    pty.kill();
  }
  const [rec] = storedRecords(h);
  assert.equal(rec!.phase, 'terminal');
  assert.equal(rec!.inputKeysAnswered.length, 1);
});
