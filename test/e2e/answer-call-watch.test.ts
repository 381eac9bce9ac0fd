// Input asked while `call` or `watch` follows a task, and input asked before any task exists
// (multi round-trip InputRequiredResult): answered from --answers without prompting, or, with
// no terminal and no answers, exit 5 with the pending requests and the exact next command.
// Also sampling answered from a file, and roots answered from the server entry's --root.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { answersFile, accept, allRecords } from '../helpers/answers.js';
import { addHttpServer, newHome, parseJsonDoc, startDemo, type DemoServer, homeWithServer } from '../helpers/cli.js';
import { spawnPty } from '../helpers/pty.js';

describe('call and watch with input requests', { concurrency: 4 }, () => {
  let demo: DemoServer;
  before(async () => {
    demo = await startDemo();
  });
  after(async () => {
    await demo?.stop();
  });

  test('call --answers: matching keys are answered without prompting, then it follows to completed (exit 0)', async () => {
    const h = await homeWithServer('web', demo.url);
    const file = answersFile(h, { name: accept({ name: 'Grace' }), color: accept({ color: 'blue' }) });
    const r = await h.run(['call', 'web', 'multi_input', '--answers', file]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /answered "name", "color"/);
    assert.match(r.stdout, /multi_input on web: completed/);
    assert.match(r.stdout, /Got name=Grace color=blue/);
    assert.doesNotMatch(r.stderr, /Input request/, 'no prompt');
  });

  test('watch --answers: answers the pending keys and keeps watching to completed (exit 0)', async () => {
    const h = await homeWithServer('web', demo.url);
    const started = await h.run(['--json', 'call', 'web', 'confirm_delete', 'filename=w.txt', '--detach', '--label', 'job=wdel']);
    assert.equal(started.code, 0, started.stderr);
    const r = await h.run(['watch', 'wdel', '--answers', answersFile(h, { confirm: accept({ confirm: true }) }), '--timeout', '20s']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /answered "confirm"/);
    assert.match(r.stdout, /confirm_delete on web: completed/);
    assert.match(r.stdout, /Deleted w\.txt/);
  });

  test('call --answers that covers only some keys: answers those, then exit 5 naming the rest', async () => {
    const h = await homeWithServer('web', demo.url);
    const r = await h.run(['call', 'web', 'multi_input', '--answers', answersFile(h, { name: accept({ name: 'Ada' }) })]);
    assert.equal(r.code, 5, r.stderr);
    assert.match(r.stderr, /answered "name"/);
    assert.match(r.stderr, /The task is waiting for input:\n\s+color: a form: What is your favourite colour\?/);
    assert.doesNotMatch(r.stderr, /^\s+name: a form/m, 'the answered key is not listed as pending');
  });

  test('call without a TTY and without --answers: exit 5, the pending request and the exact answer command', async () => {
    const h = await homeWithServer('web', demo.url);
    const r = await h.run(['call', 'web', 'confirm_delete', 'filename=x.txt']);
    assert.equal(r.code, 5, r.stderr);
    assert.match(r.stdout, /confirm_delete on web: input required/);
    assert.match(r.stderr, /The task is waiting for input:\n\s+confirm: a form: Delete x\.txt\?\n\s+fields: confirm/);
    const m = /next: answer it in a terminal with `mcp-tasks (answer \S+)`/.exec(r.stderr);
    assert.ok(m, r.stderr);
    const [record] = await allRecords(h);
    const ref = m[1]!.slice('answer '.length);
    assert.ok(ref.length >= 6 && ref.length < record.taskId.length && (record.taskId.startsWith(ref) || record.opId.startsWith(ref)), `the command names the task by a short prefix, not the whole handle: ${ref}`);
    // The printed command, run as printed (plus the answers), does answer the task.
    const a = await h.run([...m[1]!.split(' '), '--answers', answersFile(h, { confirm: accept({ confirm: true }) })]);
    assert.equal(a.code, 0, a.stderr);
    assert.match(a.stderr, /answered "confirm"/);
  });

  test('watch without a TTY and without --answers: exit 5, the pending requests and the answer command', async () => {
    const h = await homeWithServer('web', demo.url);
    const started = await h.run(['--json', 'call', 'web', 'approve_deploy', '--detach', '--label', 'job=ship']);
    assert.equal(started.code, 0, started.stderr);
    const r = await h.run(['watch', 'ship', '--timeout', '20s']);
    assert.equal(r.code, 5, r.stderr);
    assert.match(r.stderr, /approval: open a URL: Approve the deployment of api in the change portal\n\s+https:\/\/deploy\.example\.com\//);
    // The printed ref is a short taskId prefix (labels may be shared by several tasks).
    const [record] = await allRecords(h);
    const expected = record.taskId.startsWith('-') ? record.opId.slice(0, 8) : record.taskId.slice(0, 12);
    assert.ok(r.stderr.includes(`next: answer it in a terminal with \`mcp-tasks answer ${expected}\``), r.stderr);
  });

  test('--no-input in a terminal is the same as no terminal: exit 5, nothing prompted', async () => {
    const h = await homeWithServer('web', demo.url);
    const pty = spawnPty(['--no-input', 'call', 'web', 'confirm_delete', 'filename=n.txt'], { home: h.dir });
    try {
      const end = await pty.done;
      assert.equal(end.code, 5, end.text);
      assert.doesNotMatch(end.text, /Input request|\? Confirm deletion/);
      assert.match(end.text, /next: answer it in a terminal with `mcp-tasks answer \S+`/);
    } finally {
      pty.kill();
    }
  });

  test('preflight_check on the built-in demo: --answers answers the InputRequiredResult and the task completes', async () => {
    const h = newHome();
    const r = await h.run(['call', 'demo', 'preflight_check', '--answers', answersFile(h, { environment: accept({ environment: 'production' }) })]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /preflight_check on demo: completed/);
    assert.match(r.stdout, /Preflight check of production passed/);
    const records = await allRecords(h);
    assert.equal(records.length, 1);
    assert.equal(records[0].status, 'completed');
  });

  test('preflight_check without answers and no TTY: exit 5, the request listed, and nothing was started', async () => {
    const h = newHome();
    const r = await h.run(['call', 'demo', 'preflight_check']);
    assert.equal(r.code, 5, r.stderr);
    assert.match(r.stderr, /preflight_check on demo needs input before it starts:\n\s+environment: a form: Which environment should be checked\?/);
    assert.match(r.stderr, /nothing was started/);
    const j = await h.run(['--json', 'call', 'demo', 'preflight_check']);
    assert.equal(j.code, 5, j.stderr);
    const doc = parseJsonDoc(j.stdout);
    assert.equal(doc.taskId, null);
    assert.equal(doc.status, 'input_required');
    assert.deepEqual(Object.keys(doc.inputRequests), ['environment']);
    assert.deepEqual(await allRecords(h), [], 'no vault record for a task that was never created');
  });

  test('test_tool_with_task: the answer to user_name reaches the task', async () => {
    const h = await homeWithServer('web', demo.url);
    const r = await h.run(['call', 'web', 'test_tool_with_task', '--answers', answersFile(h, { user_name: accept({ name: 'Ada' }) })]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /Hello, Ada! Your task is complete\./);
  });

  test('summarize_with_model answered with a CreateMessageResult from --answers', async () => {
    const h = await homeWithServer('web', demo.url);
    const reply = { role: 'assistant', content: { type: 'text', text: 'Foxes jump.' }, model: 'ops-human', stopReason: 'endTurn' };
    const r = await h.run(['--json', 'call', 'web', 'summarize_with_model', 'text=The quick brown fox', '--answers', answersFile(h, { summary: reply })]);
    assert.equal(r.code, 0, r.stderr);
    const doc = parseJsonDoc(r.stdout);
    assert.equal(doc.status, 'completed');
    assert.equal(doc.result.content[0].text, 'Summary: Foxes jump.');
    assert.deepEqual(doc.result.structuredContent, { summary: 'Foxes jump.', model: 'ops-human' });
  });

  test('scan_roots: answered from the roots given to `server add --root`', async () => {
    const h = newHome();
    await addHttpServer(h, 'rooted', demo.url, ['--root', 'file:///tmp/x']);
    const started = await h.run(['--json', 'call', 'rooted', 'scan_roots', '--detach', '--label', 'job=scan']);
    assert.equal(started.code, 0, started.stderr);
    // No terminal and no --answers: roots need no person, so `answer` sends them.
    const a = await h.run(['answer', 'scan']);
    assert.equal(a.code, 0, a.stderr);
    assert.match(a.stderr, /answered "roots"/);
    const w = await h.run(['watch', 'scan', '--timeout', '20s']);
    assert.equal(w.code, 0, w.stderr);
    assert.match(w.stdout, /Scanned 1 root\(s\): file:\/\/\/tmp\/x/);
    // With --answers on call, the configured roots answer the key the file leaves out.
    const c = await h.run(['call', 'rooted', 'scan_roots', '--answers', answersFile(h, {})]);
    assert.equal(c.code, 0, c.stderr);
    assert.match(c.stdout, /Scanned 1 root\(s\): file:\/\/\/tmp\/x/);
  });

  test('scan_roots on the built-in demo server: no roots configured, so an empty list', async () => {
    const h = newHome();
    const r = await h.run(['call', 'demo', 'scan_roots', '--answers', answersFile(h, {})]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /Scanned 0 root\(s\)/);
  });

  test('scan_roots: call answers configured roots without a TTY and without --answers', async () => {
    const h = newHome();
    await addHttpServer(h, 'rooted', demo.url, ['--root', 'file:///tmp/x']);
    const r = await h.run(['call', 'rooted', 'scan_roots']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /Scanned 1 root\(s\): file:\/\/\/tmp\/x/);
  });
});

describe('call --answers: a bad answer is refused before anything more is sent', { concurrency: 2 }, () => {
  const servers: DemoServer[] = [];
  after(async () => {
    await Promise.all(servers.map((d) => d.stop()));
  });

  test('before any task exists: exit 1 naming key and field, the request is not retried', async () => {
    const demo = await startDemo({ verbose: true });
    servers.push(demo);
    const h = await homeWithServer('web', demo.url);
    const r = await h.run(['call', 'web', 'test_tool_with_task', '--answers', answersFile(h, { user_name: accept({ name: 42 }) })]);
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /nothing was sent: answer for "user_name": field name must be a string/);
    assert.equal(await demo.count('tools/call'), 1, 'only the first tools/call (which asked) was sent');
  });

  test('before any task exists: a refused answer leaves no vault record behind', async () => {
    const h = newHome();
    const r = await h.run(['call', 'demo', 'preflight_check', '--answers', answersFile(h, { environment: accept({ environment: 'moon' }) })]);
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /answer for "environment": field environment must be one of staging, production/);
    assert.deepEqual(await allRecords(h), []);
  });

  test('an unreadable answers file is refused before the tool is called', async () => {
    const demo = await startDemo({ verbose: true });
    servers.push(demo);
    const h = await homeWithServer('web', demo.url);
    const file = join(h.dir, 'bad.json');
    writeFileSync(file, '{"confirm": ');
    const r = await h.run(['call', 'web', 'confirm_delete', 'filename=y.txt', '--answers', file]);
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /is not valid JSON/);
    assert.equal(await demo.count('tools/call'), 0, 'the tool was called with an unreadable answers file');
  });
});
