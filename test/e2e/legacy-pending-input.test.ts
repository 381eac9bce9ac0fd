// 2025-11-25 input across processes, on the real @modelcontextprotocol/server-everything (npm):
// its question is a server→client request handed out once, on the first tasks/result stream
// opened after it was queued (the SDK 1.x task message queue dequeues it; a later tasks/result does
// not send it again). A process that receives it and cannot answer it ends; the request is still
// open on the server, waiting for a response to its JSON-RPC id. The vault keeps it, so later
// processes show it (`get --json` inputRequests, the same shape and key) and answer it (`answer`).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { homeWithServer, parseJsonDoc } from '../helpers/cli.js';
import { startProxy } from '../helpers/proxy.js';
import { startEverythingServer } from '../helpers/third-party-http.js';
import { answersFile, accept } from '../helpers/answers.js';
import { clarificationKey, everythingHome, resultText, storedRecord } from '../helpers/legacy-everything.js';

test('2025-11-25: a question received by a process that could not answer it is shown by get and answered by answer in later processes, once', async (t) => {
  const { server, h } = await everythingHome(t);
  const key = await clarificationKey(server, 'python');
  await h.ok(['call', 'ev', 'simulate-research-query', 'topic=python', 'ambiguous:=true', '--detach', '--label', 'job=p1']);
  for (;;) {
    const got = await h.run(['--json', 'get', 'p1']);
    if (parseJsonDoc(got.stdout).status === 'input_required') break;
    assert.equal(got.code, 0, got.stderr);
  }

  // This process opens tasks/result (it has an answers file) and receives the question, but the
  // file answers something else: nothing is sent, exit 5, the question listed.
  const unrelated = answersFile(h, { 'elicit-000000000000': accept({ interpretation: 'snake' }) });
  const first = await h.run(['--json', 'answer', 'p1', '--answers', unrelated]);
  assert.equal(first.code, 5, first.stderr);
  const firstDoc = parseJsonDoc(first.stdout);
  assert.deepEqual(Object.keys(firstDoc.inputRequests ?? {}), [key], first.stdout);
  const kept = storedRecord(h, (r) => r.labels.job === 'p1');
  assert.deepEqual(kept.session?.pendingInput?.map((p) => p.key), [key], 'the received request is kept in the vault');

  // A later process that cannot answer (get, no terminal): the same request, the same key and shape.
  const shown = await h.run(['--json', 'get', 'p1']);
  assert.equal(shown.code, 5, shown.stderr);
  const shownDoc = parseJsonDoc(shown.stdout);
  assert.deepEqual(shownDoc.inputRequests, firstDoc.inputRequests, 'get shows the kept request as it arrived');
  assert.equal(shownDoc.inputRequests[key].method, 'elicitation/create');
  assert.match((await h.ok(['show', 'p1'])).stdout, new RegExp(`1 unanswered server request\\(s\\) kept with it: ${key}`));

  // A later process answers it: the response goes to the request the server is waiting on.
  const answer = await h.run(['--json', 'answer', 'p1', '--answers', answersFile(h, { [key]: accept({ interpretation: 'snake' }) })]);
  assert.equal(answer.code, 0, answer.stderr);
  assert.deepEqual(parseJsonDoc(answer.stdout).answered, [key]);
  const answered = storedRecord(h, (r) => r.labels.job === 'p1');
  assert.deepEqual(answered.inputKeysAnswered, [key]);
  assert.equal(answered.session?.pendingInput, undefined, 'an answered request is no longer kept');

  // Never twice: the key is not offered again, and the task ends with the one answer given.
  const again = await h.run(['--json', 'get', 'p1']);
  assert.equal(parseJsonDoc(again.stdout).inputRequests, undefined, again.stdout);
  const watched = await h.run(['--json', 'watch', '--timeout', '60s', 'p1']);
  assert.equal(watched.code, 0, watched.stderr);
  assert.match(resultText(storedRecord(h, (r) => r.labels.job === 'p1') as never), /python \(snake\)/);
});

test('2025-11-25: answer on a task that needs input but whose question never reaches us sends nothing and says so (exit 5, not 0)', async (t) => {
  const server = await startEverythingServer(t);
  // A proxy that passes every answer on only once it is complete: the question, sent on the
  // still-open tasks/result stream, never arrives while the command waits for it.
  const proxy = await startProxy(server.url, { replace: () => undefined });
  t.after(() => proxy.close());
  const h = await homeWithServer('ev', proxy.url);
  await h.ok(['call', 'ev', 'simulate-research-query', 'topic=python', 'ambiguous:=true', '--detach', '--label', 'job=q1']);
  for (;;) {
    const got = await h.run(['--json', 'get', 'q1']);
    if (parseJsonDoc(got.stdout).status === 'input_required') break;
    assert.equal(got.code, 0, got.stderr);
  }
  const answer = await h.run(['answer', 'q1', '--answers', answersFile(h, { 'elicit-000000000000': accept({ interpretation: 'snake' }) })]);
  assert.equal(answer.code, 5, `${answer.stdout}\n${answer.stderr}`);
  assert.match(answer.stderr, /nothing was sent: the server says the task needs input but handed out no request to answer/);
  assert.deepEqual(storedRecord(h, (r) => r.labels.job === 'q1').inputKeysAnswered, []);
});
