// When mcp-tasks ends a 2025-11-25 session (HTTP DELETE with its Mcp-Session-Id): once no record
// in the vault still needs it (none submitting, active or in doubt on it), never while a task on it
// is live. The real @modelcontextprotocol/server-everything (npm) behind a real proxy that counts
// the DELETEs it forwards.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseJsonDoc } from '../helpers/cli.js';
import { everythingHome, resultText, storedRecord } from '../helpers/legacy-everything.js';

test('2025-11-25 sessions: a plain call and a followed task end their session; a detached task keeps it until its result is stored, then it is ended once', async (t) => {
  const { h, deletes } = await everythingHome(t);

  // `server check` looks at the server in a session of its own, with no task: ended at once.
  await h.ok(['server', 'check', 'ev']);
  assert.equal(deletes.length, 1, 'the session server check opened is ended');
  await h.ok(['call', 'ev', 'echo', 'message=once', '--label', 'job=e0']);
  const echo = storedRecord(h, (r) => r.labels.job === 'e0');
  assert.deepEqual(deletes.slice(1), [echo.session!.sessionId], 'the session of a plain call is ended when the call is done');
  await h.ok(['call', 'ev', 'simulate-research-query', 'topic=tides', '--label', 'job=s0']);
  const followed = storedRecord(h, (r) => r.labels.job === 's0');
  assert.equal(followed.phase, 'terminal');
  assert.deepEqual(deletes.slice(2), [followed.session!.sessionId], 'a task followed to its end: its session is ended after the result is stored');
  assert.ok(followed.session?.endedAt, 'the record notes that its session was ended');

  await h.ok(['call', 'ev', 'simulate-research-query', 'topic=moss', '--detach', '--label', 'job=s1']);
  const live = storedRecord(h, (r) => r.labels.job === 's1');
  const liveSession = live.session!.sessionId!;
  const got = await h.run(['--json', 'get', 's1']);
  assert.equal(got.code, 0, got.stderr);

  // show names the generation and that a session is kept, never the whole session id.
  const shown = await h.run(['show', 's1']);
  assert.equal(shown.code, 0, shown.stderr);
  assert.match(shown.stdout, new RegExp(`session +2025-11-25 \\(2025-11-25\\), Mcp-Session-Id ${liveSession.slice(0, 8)}… kept`));
  const shownJson = await h.run(['--json', 'show', 's1']);
  assert.deepEqual(parseJsonDoc(shownJson.stdout).session, { generation: '2025-11-25', protocolVersion: '2025-11-25', transport: 'http', sessionIdPrefix: `${liveSession.slice(0, 8)}…`, state: 'kept', pendingInput: [] });
  for (const out of [shown.stdout, shown.stderr, shownJson.stdout]) assert.ok(!out.includes(liveSession), 'the session id is never printed whole');

  const before = deletes.length;
  const remote = await h.run(['--json', 'list', '--remote', 'ev']);
  assert.equal(remote.code, 0, remote.stderr);
  assert.ok(!deletes.includes(liveSession), 'never while a task on it is live (get, list --remote)');
  assert.equal(deletes.length, before + 1, 'list --remote ends the session it opened for itself only');

  const watched = await h.run(['--json', 'watch', '--timeout', '60s', 's1']);
  assert.equal(watched.code, 0, watched.stderr);
  const done = storedRecord(h, (r) => r.labels.job === 's1');
  assert.equal(done.phase, 'terminal');
  assert.match(resultText(done as never), /moss/);
  assert.deepEqual(deletes.filter((d) => d === liveSession), [liveSession], 'ended once its last task is terminal and stored');
  assert.match((await h.ok(['show', 's1'])).stdout, new RegExp(`Mcp-Session-Id ${liveSession.slice(0, 8)}… ended by mcp-tasks at `));

  // Later commands on the finished task: its stored result, no second DELETE.
  const after = await h.run(['--json', 'get', 's1']);
  assert.equal(after.code, 0, after.stderr);
  assert.match(resultText(parseJsonDoc(after.stdout)), /moss/);
  assert.deepEqual(deletes.filter((d) => d === liveSession), [liveSession]);
});

test('2025-11-25 sessions: a call in doubt keeps its session (the task may live there); closing it by hand does not contact the server', async (t) => {
  const env = await everythingHome(t);
  const { h, deletes } = env;
  env.dropTopics.add('dropped');
  const call = await h.run(['call', 'ev', 'simulate-research-query', 'topic=dropped', '--label', 'job=d1']);
  assert.equal(call.code, 10, call.stderr);
  const doubt = storedRecord(h, (r) => r.labels.job === 'd1');
  assert.equal(doubt.phase, 'in-doubt');
  assert.ok(!deletes.includes(doubt.session!.sessionId!), 'not ended: the call may have created a task there');

  // list --remote reads through it, so the task the call created can be found before resolving.
  const remote = await h.run(['--json', 'list', '--remote', 'ev']);
  assert.equal(remote.code, 0, remote.stderr);
  const listed = parseJsonDoc(remote.stdout) as Array<{ inVault: boolean; status: string }>;
  assert.equal(listed.filter((x) => !x.inVault).length, 1, 'the task created by the call in doubt is listed (not in the vault)');
  assert.ok(!deletes.includes(doubt.session!.sessionId!));

  const before = deletes.length;
  const resolved = await h.run(['recover', doubt.opId.slice(0, 8), '--resolve', 'completed', '--note', 'listed by list --remote']);
  assert.equal(resolved.code, 0, resolved.stderr);
  assert.equal(deletes.length, before, 'recover --resolve works offline; the server times the session out itself');
});
