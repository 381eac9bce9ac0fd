// Multi round-trip requests (InputRequiredResult before any task): a retry carries the latest
// round's responses and its requestState only, so every round is answered once. Counted at the
// server (test/helpers/mrtr-server.ts logs what each tools/call carried), in the round shapes
// that made clients loop on the Inspector's test servers.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { accept, allRecords, answersFile } from '../helpers/answers.js';
import { homeWithServer, parseJsonDoc } from '../helpers/cli.js';
import { startMrtrServer, type MrtrServer } from '../helpers/mrtr-server.js';

describe('multi round-trip: each round answered once', () => {
  let server: MrtrServer;
  before(async () => {
    server = await startMrtrServer();
  });
  after(async () => {
    await server.stop();
  });
  const callsOf = (tool: string) => server.calls.filter((c) => c.tool === tool);

  test('an elicitation round, then a requestState-only round: the second retry carries the state alone, and the call completes', async () => {
    const h = await homeWithServer('mrtr', server.url);
    const file = answersFile(h, { confirm: accept({ ok: 'yes' }) });
    const r = await h.run(['--json', 'call', 'mrtr', 'edge', '--answers', file]);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(JSON.stringify(parseJsonDoc(r.stdout).result), /edge done: ok=yes/);
    const calls = callsOf('edge');
    assert.deepEqual(calls.map((c) => c.answered), [[], ['confirm'], []], JSON.stringify(calls));
    assert.deepEqual(calls.map((c) => c.requestState), [undefined, 'edge:1', calls[2]!.requestState]);
    assert.match(calls[2]!.requestState ?? '', /^edge:2:/);
    assert.equal(server.answersTo('confirm'), 1);
  });

  test('two rounds answered from one answers file: each key goes out once, the second with the state the server kept the first in', async () => {
    const h = await homeWithServer('mrtr', server.url);
    const file = answersFile(h, { first: accept({ value: 'alpha' }), second: accept({ value: 'beta' }) });
    const r = await h.run(['--json', 'call', 'mrtr', 'two_step', '--answers', file]);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(JSON.stringify(parseJsonDoc(r.stdout).result), /first=alpha second=beta/);
    assert.deepEqual(callsOf('two_step').map((c) => c.answered), [[], ['first'], ['second']]);
    assert.equal(server.answersTo('first'), 1);
    assert.equal(server.answersTo('second'), 1);
  });

  test('a server that repeats a round: its key is answered once, then the call stops and says why (nothing started, no record left)', async () => {
    const h = await homeWithServer('mrtr', server.url);
    const file = answersFile(h, { again: accept({ value: 'x' }) });
    const r = await h.run(['call', 'mrtr', 'repeat', '--answers', file]);
    assert.equal(r.code, 7, r.stderr);
    assert.match(r.stderr, /asks again for "again", already answered in this call; mcp-tasks answers each round once; nothing was started/);
    assert.doesNotMatch(r.stderr, /--answers/, 'it does not ask for the answers it was given');
    assert.deepEqual(callsOf('repeat').map((c) => c.answered), [[], ['again']]);
    assert.equal(server.answersTo('again'), 1);
    assert.deepEqual(await allRecords(h), [], 'no task exists: nothing left in the vault');
  });

  test('--accept-defaults: a form whose required fields all have defaults is accepted with them, counted at the server', async () => {
    const h = await homeWithServer('mrtr', server.url);
    const r = await h.run(['--json', 'call', 'mrtr', 'defaults', '--accept-defaults']);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    const calls = callsOf('defaults');
    assert.deepEqual(calls.map((c) => c.answered), [[], ['settings']]);
    assert.deepEqual(calls[1]!.responses.settings, { action: 'accept', content: { title: 'Weekly', count: 3, draft: false } });
    // Without the flag and without a terminal, nothing is accepted for the person: exit 5, no retry.
    const before = calls.length;
    const plain = await h.run(['call', 'mrtr', 'defaults']);
    assert.equal(plain.code, 5, plain.stderr);
    assert.equal(callsOf('defaults').length, before + 1, 'only the first request went out');
  });

  test('--accept-defaults leaves a form with a required field without a default to --answers or a person', async () => {
    const h = await homeWithServer('mrtr', server.url);
    const alone = await h.run(['call', 'mrtr', 'mixed', '--accept-defaults']);
    assert.equal(alone.code, 5, alone.stderr);
    assert.match(alone.stderr, /Really\?/);
    assert.deepEqual(callsOf('mixed').map((c) => c.answered), [[]], 'no half-answered round was sent');
    const file = answersFile(h, { confirm: accept({ ok: 'yes' }) });
    const both = await h.run(['--json', 'call', 'mrtr', 'mixed', '--accept-defaults', '--answers', file]);
    assert.equal(both.code, 0, both.stdout + both.stderr);
    const last = callsOf('mixed').at(-1)!;
    assert.deepEqual(Object.keys(last.responses).sort(), ['confirm', 'settings']);
    assert.deepEqual(last.responses.settings, { action: 'accept', content: { title: 'Weekly', count: 3, draft: false } });
    assert.deepEqual(last.responses.confirm, { action: 'accept', content: { ok: 'yes' } });
  });
});
