// The README walkthrough, step by step and in order, on a 2025-11-25 server: the built CLI against
// the real @modelcontextprotocol/server-everything (npm) over Streamable HTTP on 127.0.0.1, through
// a real proxy (test/helpers/legacy-everything.ts). Every command is its own process, so each one
// after `call --detach` rejoins the Mcp-Session-Id stored in the vault. Each step asserts its exit
// code and what the vault holds afterwards.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseJsonDoc, processHome, sleep } from '../helpers/cli.js';
import { answersFile, accept } from '../helpers/answers.js';
import { clarificationKey, everythingHome, resultText, storedRecord, storedRecords } from '../helpers/legacy-everything.js';
import { typeableRef } from '../../src/vault/vault-record.js';

test('2025-11-25 walkthrough: call, --detach, list, get, watch, answer, cancel, recover', async (t) => {
  const home = await everythingHome(t);
  const { server } = home;
  // One CLI process per command, as a person runs the walkthrough.
  const h = processHome(home.h);
  const key = await clarificationKey(server, 'python');

  // call: a plain synchronous tool, and a task followed to its end.
  const echo = await h.run(['--json', 'call', 'ev', 'echo', 'message=walkthrough']);
  assert.equal(echo.code, 0, echo.stderr);
  assert.match(JSON.stringify(parseJsonDoc(echo.stdout)), /walkthrough/);
  const followed = await h.run(['--json', 'call', 'ev', 'simulate-research-query', 'topic=tides', '--label', 'job=w0']);
  assert.equal(followed.code, 0, followed.stderr);
  assert.equal(parseJsonDoc(followed.stdout).status, 'completed');
  const w0 = storedRecord(h, (r) => r.labels.job === 'w0');
  assert.equal(w0.phase, 'terminal');
  assert.match(resultText(w0 as never), /Research Report: tides/, 'the result from tasks/result is persisted');

  // call --detach: the handle and the session are in the vault, the task runs on.
  const detached = await h.run(['--json', 'call', 'ev', 'simulate-research-query', 'topic=python', 'ambiguous:=true', '--detach', '--label', 'job=w1']);
  assert.equal(detached.code, 0, detached.stderr);
  const taskId = parseJsonDoc(detached.stdout).taskId as string;
  const w1 = storedRecord(h, (r) => r.labels.job === 'w1');
  assert.equal(w1.taskId, taskId);
  assert.equal(w1.phase, 'active');
  assert.equal(w1.session?.protocolVersion, '2025-11-25');
  assert.ok(w1.session?.sessionId, 'the Mcp-Session-Id is kept beside the handle');

  // list: the active task, by the ref a person can type; the finished one only with --all.
  const list = await h.run(['list']);
  assert.equal(list.code, 0, list.stderr);
  assert.ok(list.stdout.includes(typeableRef(w1, 8)), list.stdout);
  assert.ok(!list.stdout.includes(taskId), 'human output never shows the whole taskId');
  const listed = parseJsonDoc((await h.ok(['--json', 'list'])).stdout) as Array<{ taskId: string }>;
  assert.deepEqual(listed.map((x) => x.taskId), [taskId]);

  // get: one observation per process, until the task waits for its answer (exit 5).
  for (let first = true; ; first = false) {
    if (!first) await sleep(200);
    const got = await h.run(['--json', 'get', 'w1']);
    const doc = parseJsonDoc(got.stdout);
    if (doc.status === 'input_required') {
      assert.equal(got.code, 5, got.stderr);
      break;
    }
    assert.equal(doc.status, 'working');
    assert.equal(got.code, 0, got.stderr);
  }
  assert.equal(storedRecord(h, (r) => r.labels.job === 'w1').last?.status, 'input_required');

  // watch without anything to answer with (no terminal, no --answers): exit 5, the task kept.
  const stuck = await h.run(['--json', 'watch', '--timeout', '60s', 'w1']);
  assert.equal(stuck.code, 5, stuck.stderr);
  assert.equal(storedRecord(h, (r) => r.labels.job === 'w1').phase, 'active');

  // answer from a file, then watch to the end: the answer reached the task, the result is stored.
  const answer = await h.run(['answer', 'w1', '--answers', answersFile(h, { [key]: accept({ interpretation: 'snake' }) })]);
  assert.equal(answer.code, 0, answer.stderr);
  assert.deepEqual(storedRecord(h, (r) => r.labels.job === 'w1').inputKeysAnswered, [key], `${answer.stdout}\n${answer.stderr}\n${stuck.stdout}\n${stuck.stderr}`);
  const watched = await h.run(['--json', 'watch', '--timeout', '60s', 'w1']);
  assert.equal(watched.code, 0, watched.stderr);
  const done = storedRecord(h, (r) => r.labels.job === 'w1');
  assert.equal(done.phase, 'terminal');
  assert.equal(done.last?.status, 'completed');
  assert.match(resultText(done as never), /python \(snake\)/);

  // cancel: a detached task, cancelled from a new process; the state reached is reported (exit 3).
  await h.ok(['call', 'ev', 'simulate-research-query', 'topic=fog', '--detach', '--label', 'job=w2']);
  const cancel = await h.run(['--json', 'cancel', 'w2', '--wait', '--timeout', '60s']);
  assert.equal(cancel.code, 3, cancel.stderr);
  const cancelled = storedRecord(h, (r) => r.labels.job === 'w2');
  assert.equal(cancelled.phase, 'terminal');
  assert.equal(cancelled.last?.status, 'cancelled');

  // recover: nothing in doubt yet.
  const none = await h.run(['recover']);
  assert.equal(none.code, 0, none.stderr);
  assert.equal(storedRecords(h).filter((r) => r.phase === 'in-doubt').length, 0);
});

test('2025-11-25 recover: a call whose answer was lost is in doubt; recover names the safe next step; --resolve closes it', async (t) => {
  const env = await everythingHome(t);
  const h = processHome(env.h);
  // The proxy forwards the call (the server creates the task) and cuts the connection before the answer.
  env.dropTopics.add('lost-answer');
  const call = await h.run(['--json', 'call', 'ev', 'simulate-research-query', 'topic=lost-answer', '--label', 'job=r1']);
  assert.equal(call.code, 10, call.stderr);
  const doubt = storedRecord(h, (r) => r.labels.job === 'r1');
  assert.equal(doubt.phase, 'in-doubt');
  assert.equal(doubt.taskId, undefined);
  assert.ok(doubt.session?.sessionId, 'the session the call went out in is kept with the record');
  const short = doubt.opId.slice(0, 8);

  const listed = await h.run(['recover']);
  assert.equal(listed.code, 10, listed.stderr);
  assert.ok(listed.stdout.includes(short), listed.stdout);
  assert.match(listed.stdout, /not safe to resubmit blindly/);
  for (const verdict of ['completed', 'not-run', 'failed']) assert.ok(listed.stdout.includes(`recover ${short} --resolve ${verdict} --note`), 'the way to close it, one command per verdict, as it runs');
  const json = parseJsonDoc((await h.run(['--json', 'recover'])).stdout) as Array<{ opId: string; resubmit: { safe: boolean } }>;
  assert.deepEqual(json.map((x) => [x.opId, x.resubmit.safe]), [[doubt.opId, false]]);

  // Blind resubmission is refused (the tool is neither read-only nor idempotent).
  const blind = await h.run(['recover', short, '--resubmit']);
  assert.equal(blind.code, 1, blind.stderr);
  assert.equal(storedRecord(h, (r) => r.labels.job === 'r1').phase, 'in-doubt');

  const resolved = await h.run(['recover', short, '--resolve', 'completed', '--note', 'the server ran it']);
  assert.equal(resolved.code, 0, resolved.stderr);
  const closed = storedRecord(h, (r) => r.labels.job === 'r1');
  assert.equal(closed.phase, 'terminal');
  assert.equal(closed.resolution?.outcome, 'completed');
  assert.equal(closed.resolution?.was, 'in-doubt');
  assert.equal((await h.run(['recover'])).code, 0, 'nothing is in doubt any more');
});

test('2025-11-25 recover: kill -9 of the CLI after the request was sent leaves a record recover lists; a killed follower is resumed by watch', async (t) => {
  const env = await everythingHome(t);
  const h = processHome(env.h);

  // The call reaches the server, its answer is held back, and the CLI is killed while it waits.
  env.holdTopics.add('killed-in-flight');
  const inFlight = h.spawn(['call', 'ev', 'simulate-research-query', 'topic=killed-in-flight', '--label', 'job=k1']);
  await env.held('killed-in-flight');
  inFlight.kill('SIGKILL');
  assert.equal((await inFlight.done).signal, 'SIGKILL');
  const submitting = storedRecord(h, (r) => r.labels.job === 'k1');
  assert.equal(submitting.phase, 'submitting', 'the intent was on disk before the request left');
  const listed = await h.run(['recover']);
  assert.equal(listed.code, 10, listed.stderr);
  assert.ok(listed.stdout.includes(submitting.opId.slice(0, 8)), 'its writer is gone: it is in doubt at once');
  const resolved = await h.run(['recover', submitting.opId.slice(0, 8), '--resolve', 'not-run', '--note', 'checked']);
  assert.equal(resolved.code, 0, resolved.stderr);
  assert.equal(storedRecord(h, (r) => r.labels.job === 'k1').phase, 'terminal');

  // A follower (call without --detach) killed once the handle is stored: a new process resumes it.
  const follower = h.spawn(['-v', 'call', 'ev', 'simulate-research-query', 'topic=moss', '--label', 'job=k2']);
  await follower.waitFor(/tasks\/get/);
  follower.kill('SIGKILL');
  await follower.done;
  const orphan = storedRecord(h, (r) => r.labels.job === 'k2');
  assert.equal(orphan.phase, 'active');
  assert.ok(orphan.taskId && orphan.session?.sessionId);
  const got = await h.run(['--json', 'get', 'k2']);
  assert.ok(got.code === 0, got.stderr);
  assert.equal(parseJsonDoc(got.stdout).taskId, orphan.taskId, 'get reaches the task through the stored session');
  const watched = await h.run(['--json', 'watch', '--timeout', '60s', 'k2']);
  assert.equal(watched.code, 0, watched.stderr);
  const end = storedRecord(h, (r) => r.labels.job === 'k2');
  assert.equal(end.phase, 'terminal');
  assert.match(resultText(end as never), /moss/);
});
