// `answer <ref>` from scripts, against the embedded demo server over HTTP: answers files,
// --decline/--cancel, stale keys, malformed files (NOTHING sent: checked in the demo server's
// request log) and the same command run twice (the second sends nothing).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTask, answersFile, accept, pendingKeys } from '../helpers/answers.js';
import { parseJsonDoc, startDemo, type DemoServer, homeWithServer } from '../helpers/cli.js';

describe('answer from scripts', { concurrency: 4 }, () => {
  let demo: DemoServer;
  before(async () => {
    demo = await startDemo();
  });
  after(async () => {
    await demo?.stop();
  });

  test('confirm_delete: one request answered from a file, then the task completes', async () => {
    const h = await homeWithServer('web', demo.url);
    await startTask(h, 'web', 'confirm_delete', ['filename=old.log'], 'del');
    const file = answersFile(h, { confirm: accept({ confirm: true }) });
    const r = await h.run(['answer', 'del', '--answers', file]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /answered "confirm"/);
    // The task finishes 200 ms after its answer: `answer` may already see it completed.
    if (/: working/.test(r.stdout)) assert.match(r.stderr, /next: `mcp-tasks watch del` to follow it to the end/);
    else assert.match(r.stdout, /Deleted old\.log/);
    const w = await h.run(['watch', 'del', '--timeout', '20s']);
    assert.equal(w.code, 0, w.stderr);
    assert.match(w.stdout, /confirm_delete on web: completed/);
    assert.match(w.stdout, /Deleted old\.log/);
  });

  test('the answers can come from stdin (--answers -)', async () => {
    const h = await homeWithServer('web', demo.url);
    await startTask(h, 'web', 'confirm_delete', ['filename=stdin.txt'], 'stdin');
    const r = await h.run(['answer', 'stdin', '--answers', '-'], { input: JSON.stringify({ confirm: accept({ confirm: true }) }) });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /answered "confirm"/);
  });

  test('multi_input: two keys answered one at a time', async () => {
    const h = await homeWithServer('web', demo.url);
    await startTask(h, 'web', 'multi_input', [], 'multi');
    assert.deepEqual(await pendingKeys(h, 'multi'), ['color', 'name']);

    const first = await h.run(['answer', 'multi', '--answers', answersFile(h, { name: accept({ name: 'Ada' }) })]);
    assert.equal(first.code, 5, `a partial answer leaves the task waiting: ${first.stderr}`);
    assert.match(first.stderr, /answered "name"/);
    assert.match(first.stderr, /still waiting for: color/);
    assert.match(first.stdout, /multi_input on web: input required/);
    assert.deepEqual(await pendingKeys(h, 'multi'), ['color']);

    const second = await h.run(['answer', 'multi', '--answers', answersFile(h, { color: accept({ color: 'green' }) })]);
    assert.equal(second.code, 0, second.stderr);
    assert.match(second.stderr, /answered "color"/);
    const w = await h.run(['watch', 'multi', '--timeout', '20s']);
    assert.equal(w.code, 0, w.stderr);
    assert.match(w.stdout, /Got name=Ada color=green/);
  });

  test('--decline KEY sends a decline', async () => {
    const h = await homeWithServer('web', demo.url);
    await startTask(h, 'web', 'confirm_delete', ['filename=d.txt'], 'dec');
    const r = await h.run(['answer', 'dec', '--decline', 'confirm']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /answered "confirm"/);
    const w = await h.run(['watch', 'dec', '--timeout', '20s']);
    assert.equal(w.code, 0, w.stderr);
    assert.match(w.stdout, /Deletion of d\.txt not confirmed \(decline\); nothing was deleted/);
  });

  test('--cancel KEY sends a cancel', async () => {
    const h = await homeWithServer('web', demo.url);
    await startTask(h, 'web', 'confirm_delete', ['filename=c.txt'], 'can');
    const r = await h.run(['answer', 'can', '--cancel', 'confirm']);
    assert.equal(r.code, 0, r.stderr);
    const w = await h.run(['watch', 'can', '--timeout', '20s']);
    assert.equal(w.code, 0, w.stderr);
    assert.match(w.stdout, /Deletion of c\.txt not confirmed \(cancel\); nothing was deleted/);
  });

  test('{"action":"decline"} in a file is a decline; a declined approval ends as a tool error (exit 4)', async () => {
    const h = await homeWithServer('web', demo.url);
    await Promise.all([startTask(h, 'web', 'confirm_delete', ['filename=f.txt'], 'filedec'), startTask(h, 'web', 'approve_deploy', [], 'deploy')]);
    const [a, b] = await Promise.all([
      h.run(['answer', 'filedec', '--answers', answersFile(h, { confirm: { action: 'decline' } })]),
      h.run(['answer', 'deploy', '--answers', answersFile(h, { approval: { action: 'decline' } })]),
    ]);
    assert.equal(a.code, 0, a.stderr);
    // `answer` reports what tasks/get shows next: still working (0), or already the tool error (4).
    assert.ok(b.code === 0 || b.code === 4, `${b.code}: ${b.stderr}`);
    assert.match(b.stderr, /answered "approval"/);
    const [wa, wb] = await Promise.all([h.run(['watch', 'filedec', '--timeout', '20s']), h.run(['watch', 'deploy', '--timeout', '20s'])]);
    assert.equal(wa.code, 0, wa.stderr);
    assert.match(wa.stdout, /Deletion of f\.txt not confirmed \(decline\)/);
    assert.equal(wb.code, 4, wb.stderr);
    assert.match(wb.stdout, /Deployment of api not approved \(decline\)/);
  });

  test('a stale key is reported "not sent"; the listed key is still answered', async () => {
    const h = await homeWithServer('web', demo.url);
    await startTask(h, 'web', 'confirm_delete', ['filename=s.txt'], 'stale');
    const file = answersFile(h, { bogus: accept({ confirm: true }), confirm: accept({ confirm: true }) });
    const r = await h.run(['--json', 'answer', 'stale', '--answers', file]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /not sent: "bogus" is not \(or no longer\) requested by the server/);
    const doc = parseJsonDoc(r.stdout);
    assert.equal(doc.server, 'web');
    assert.deepEqual(doc.stale, ['bogus']);
    assert.deepEqual(doc.answered, ['confirm'], 'only the listed key was sent');
    assert.deepEqual(doc.alreadyAnswered, []);
    assert.notEqual(doc.status, 'input_required');
  });
});

describe('nothing is sent', { concurrency: 3 }, () => {
  // Each test has its own verbose demo server, so its request log counts only its own requests.
  const servers: DemoServer[] = [];
  const ownDemo = async () => {
    const d = await startDemo({ verbose: true });
    servers.push(d);
    return d;
  };
  after(async () => {
    await Promise.all(servers.map((d) => d.stop()));
  });

  test('stale keys only, or a decline of a sampling request: reported, and no tasks/update', async () => {
    const demo = await ownDemo();
    const h = await homeWithServer('web', demo.url);
    await Promise.all([startTask(h, 'web', 'confirm_delete', ['filename=s.txt'], 'stale'), startTask(h, 'web', 'summarize_with_model', ['text=hello'], 'sum')]);
    const [r, dec, bad] = await Promise.all([
      h.run(['answer', 'stale', '--answers', answersFile(h, { bogus: accept({ confirm: true }) })]),
      h.run(['answer', 'sum', '--decline', 'summary']),
      h.run(['answer', 'sum', '--answers', answersFile(h, { summary: { action: 'accept', content: { text: 'x' } } })]),
    ]);
    assert.equal(r.code, 5, r.stderr);
    assert.match(r.stderr, /not sent: "bogus" is not \(or no longer\) requested by the server/);
    assert.match(r.stderr, /nothing was sent/);
    assert.match(r.stderr, /still waiting for: confirm/);
    assert.equal(dec.code, 1, dec.stderr);
    assert.match(dec.stderr, /"summary" is a sampling\/createMessage request: only elicitations can be declined or cancelled/);
    assert.equal(bad.code, 1, bad.stderr);
    assert.match(bad.stderr, /answer for "summary": not a sampling result/);
    assert.equal(await demo.count('tasks/update'), 0);
    assert.deepEqual(await pendingKeys(h, 'stale'), ['confirm']);
  });

  test('a malformed answers file (bad JSON, wrong shape, wrong field type, enum value not allowed): exit 1 naming key and field, no tasks/update', async () => {
    const demo = await ownDemo();
    const h = await homeWithServer('web', demo.url);
    await Promise.all([startTask(h, 'web', 'confirm_delete', ['filename=m.txt'], 'mal'), startTask(h, 'web', 'multi_input', [], 'multi')]);
    const cases: Array<[string, unknown, RegExp]> = [
      ['mal', '{"confirm": {"action": "accept", ', /is not valid JSON/],
      ['mal', '[{"confirm": true}]', /must be a JSON object keyed by input request key/],
      ['mal', { confirm: 'yes' }, /answer for "confirm": not an elicitation result/],
      ['mal', { confirm: accept({ confirm: 'yes' }) }, /answer for "confirm": field confirm must be true or false/],
      ['mal', { confirm: accept({}) }, /answer for "confirm": field "confirm" is required/],
      // one good and one bad response: neither is sent
      ['multi', { name: accept({ name: 'Ada' }), color: accept({ color: 'purple' }) }, /nothing was sent: answer for "color": field color must be one of red, green, blue/],
    ];
    await Promise.all(
      cases.map(async ([ref, content, message]) => {
        const r = await h.run(['answer', ref, '--answers', answersFile(h, content)]);
        assert.equal(r.code, 1, `${JSON.stringify(content)}: ${r.stderr}`);
        assert.match(r.stderr, message, JSON.stringify(content));
        assert.doesNotMatch(r.stderr, /answered "/, JSON.stringify(content));
      }),
    );
    const j = await h.run(['--json', 'answer', 'multi', '--answers', answersFile(h, { color: accept({ color: 7 }) })]);
    assert.equal(j.code, 1, j.stderr);
    const err = parseJsonDoc(j.stdout).error;
    assert.equal(err.kind, 'invalid-input');
    assert.match(err.message, /"color".*color must be one of red, green, blue/);
    assert.equal(await demo.count('tasks/update'), 0, 'a malformed answers file must send nothing');
    const [mal, multi] = await Promise.all([pendingKeys(h, 'mal'), pendingKeys(h, 'multi')]);
    assert.deepEqual(mal, ['confirm']);
    assert.deepEqual(multi, ['color', 'name'], 'the valid "name" must not be sent on its own');
  });

  test('the same answer run twice: the second sends nothing', async () => {
    const demo = await ownDemo();
    const h = await homeWithServer('web', demo.url);
    await Promise.all([startTask(h, 'web', 'confirm_delete', ['filename=twice.txt'], 'twice'), startTask(h, 'web', 'multi_input', [], 'half')]);
    const confirmFile = answersFile(h, { confirm: accept({ confirm: true }) });
    const nameFile = answersFile(h, { name: accept({ name: 'Ada' }) });

    const [first, firstHalf] = await Promise.all([h.run(['answer', 'twice', '--answers', confirmFile]), h.run(['answer', 'half', '--answers', nameFile])]);
    assert.equal(first.code, 0, first.stderr);
    assert.equal(firstHalf.code, 5, firstHalf.stderr);
    assert.equal(await demo.count('tasks/update'), 2);

    const [second, secondHalf] = await Promise.all([h.run(['answer', 'twice', '--answers', confirmFile]), h.run(['--json', 'answer', 'half', '--answers', nameFile])]);
    // confirm_delete is no longer waiting: nothing to answer.
    assert.equal(second.code, 0, second.stderr);
    assert.match(second.stderr, /nothing to answer: the task is (working|completed)/);
    // multi_input still waits for "color"; "name" was answered before and is not sent again.
    assert.equal(secondHalf.code, 5, secondHalf.stderr);
    assert.match(secondHalf.stderr, /not sent: "name" was answered before/);
    const doc = parseJsonDoc(secondHalf.stdout);
    assert.deepEqual(doc.answered, []);
    assert.deepEqual(doc.alreadyAnswered, ['name']);
    assert.equal(await demo.count('tasks/update'), 2, 'the second run sent a tasks/update');
  });
});
