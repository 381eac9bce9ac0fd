// The interactive answering path through a REAL pseudo-terminal: the CLI runs under `script`,
// keys are typed into the terminal and the screen is read back. Nothing here calls a prompt
// function: what is asserted is what a person sees, and what the server then reports.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startTask, finish } from '../helpers/answers.js';
import { addHttpServer, newHome, parseJsonDoc, startDemo, type DemoServer, homeWithServer } from '../helpers/cli.js';
import { KEY, spawnPty } from '../helpers/pty.js';

describe('answer in a real terminal', { concurrency: 3 }, () => {
  let demo: DemoServer;
  let hostile: DemoServer;
  before(async () => {
    [demo, hostile] = await Promise.all([startDemo(), startDemo({ faults: ['hostile-text'] })]);
  });
  after(async () => {
    await Promise.all([demo?.stop(), hostile?.stop()]);
  });

  test('confirm_delete: the prompt names the server and the task; the question, then Yes → Deleted', async () => {
    const h = await homeWithServer('web', demo.url);
    const taskId = await startTask(h, 'web', 'confirm_delete', ['filename=report.txt'], 'del');
    const pty = spawnPty(['answer', 'del'], { home: h.dir });
    try {
      await pty.waitFor('Input request "confirm"');
      await pty.waitFor(/Confirm deletion[\s\S]*Cancel/);
      const screen = pty.text();
      assert.match(screen, /server web/, 'the prompt names the server');
      assert.ok(screen.includes(demo.url), 'the prompt shows where the server is');
      assert.match(screen, /confirm_delete/, 'the prompt names the tool');
      assert.ok(screen.includes(taskId.slice(0, 10)), 'the prompt names the task');
      assert.match(screen, /Delete report\.txt\?/, "the server's question is shown");
      await pty.type('y', KEY.enter); // type-ahead: Yes
      await pty.waitFor('answered "confirm"');
      const end = await pty.done;
      assert.equal(end.code, 0, end.text);
    } finally {
      pty.kill();
    }
    const w = await finish(h, 'del');
    assert.equal(w.code, 0, w.stderr);
    assert.match(w.stdout, /Deleted report\.txt/);
  });

  test('confirm_delete: Decline from the menu is sent as a decline', async () => {
    const h = await homeWithServer('web', demo.url);
    await startTask(h, 'web', 'confirm_delete', ['filename=keep.txt'], 'keep');
    const pty = spawnPty(['answer', 'keep'], { home: h.dir });
    try {
      await pty.answer(/Confirm deletion[\s\S]*Cancel/, KEY.down, KEY.enter); // Yes, [No], Decline, Cancel
      await pty.waitFor('answered "confirm"');
      const end = await pty.done;
      assert.equal(end.code, 0, end.text);
    } finally {
      pty.kill();
    }
    const w = await finish(h, 'keep');
    assert.equal(w.code, 0, w.stderr);
    assert.match(w.stdout, /Deletion of keep\.txt not confirmed \(decline\); nothing was deleted/);
  });

  test('multi_input: an empty required name offers to answer it, decline or cancel; then a valid one is accepted', async () => {
    const h = await homeWithServer('web', demo.url);
    await startTask(h, 'web', 'multi_input', [], 'multi');
    const pty = spawnPty(['answer', 'multi'], { home: h.dir });
    try {
      await pty.waitFor('Input request "name"');
      await pty.waitFor('What is your name?');
      await pty.answer(/\? Name\b/, KEY.enter); // empty
      await pty.answer(/Name is required[\s\S]*Answer it[\s\S]*Decline[\s\S]*Cancel/, KEY.enter); // Answer it
      await pty.answer(/\? Name\b/, 'A', 'd', 'a', KEY.enter);
      await pty.waitFor('Input request "color"');
      await pty.waitFor('What is your favourite colour?');
      await pty.answer(/\? Colou?r[\s\S]*Cancel/, KEY.down, KEY.down, KEY.enter); // red, green, blue, Decline, Cancel
      await pty.waitFor(/answered "name", "color"/);
      const end = await pty.done;
      assert.equal(end.code, 0, end.text);
    } finally {
      pty.kill();
    }
    const w = await finish(h, 'multi');
    assert.equal(w.code, 0, w.stderr);
    assert.match(w.stdout, /Got name=Ada color=blue/);
  });

  test('approve_deploy: the URL is shown with its origin and mcp-tasks says it does not open it', async () => {
    const h = await homeWithServer('web', demo.url);
    await startTask(h, 'web', 'approve_deploy', ['service=billing'], 'deploy');
    const pty = spawnPty(['answer', 'deploy'], { home: h.dir });
    try {
      await pty.waitFor('Input request "approval"');
      await pty.waitFor(/Have you completed the step at this URL\?[\s\S]*Cancel/);
      const screen = pty.text();
      assert.match(screen, /Approve the deployment of billing in the change portal/);
      assert.match(screen, /https:\/\/deploy\.example\.com\/approve\/\S+/, 'the full URL is shown');
      assert.match(screen, /open: https:\/\/deploy\.example\.com/, 'the origin leads the URL');
      assert.match(screen, /Check that you trust https:\/\/deploy\.example\.com before opening it/);
      assert.match(screen, /mcp-tasks does not open it/);
      // Not yet, Open … in my browser now, Yes, I opened it and completed the step
      await pty.type(KEY.down, KEY.down, KEY.enter);
      await pty.waitFor('answered "approval"');
      const end = await pty.done;
      assert.equal(end.code, 0, end.text);
    } finally {
      pty.kill();
    }
    const w = await finish(h, 'deploy');
    assert.equal(w.code, 0, w.stderr);
    assert.match(w.stdout, /Deployed billing/);
  });

  test('hostile-text server: no escape sequence from the server reaches the screen', async () => {
    const h = await homeWithServer('evil', hostile.url);
    await startTask(h, 'evil', 'confirm_delete', ['filename=a.txt'], 'evil');
    const pty = spawnPty(['answer', 'evil'], { home: h.dir });
    let raw: string;
    try {
      await pty.waitFor('Input request "confirm"');
      await pty.answer(/Confirm deletion[\s\S]*Cancel/, 'y', KEY.enter);
      await pty.waitFor('answered "confirm"');
      const end = await pty.done;
      assert.equal(end.code, 0, end.text);
      raw = end.raw;
    } finally {
      pty.kill();
    }
    // inquirer draws with its own CSI codes; the server's sequences are the ones checked.
    assert.ok(!raw.includes('\x1b]0;'), 'the OSC set-title sequence from the server reached the terminal');
    assert.ok(!raw.includes('\x1b[2J'), 'the clear-screen sequence from the server reached the terminal');
    assert.ok(!raw.includes('\x1b[31m'), "the server's colour codes reached the terminal (NO_COLOR is set, so inquirer draws none)");
    assert.ok(!raw.includes('\u009b'), 'a C1 CSI from the server reached the terminal');
    assert.match(raw, /Delete a\.txt\?/, "the server's question is still readable");
    const longest = Math.max(...(raw.match(/A+/g) ?? ['']).map((s) => s.length));
    assert.ok(longest < 5000, `a 5,000-character line from the server was printed whole (${longest})`);
  });

  test('Ctrl-C in a prompt: exit 130, nothing sent, the task still waits', async () => {
    const h = await homeWithServer('web', demo.url);
    await startTask(h, 'web', 'confirm_delete', ['filename=ctrlc.txt'], 'ctrlc');
    const pty = spawnPty(['answer', 'ctrlc'], { home: h.dir });
    try {
      await pty.answer(/Confirm deletion[\s\S]*Cancel/, KEY.ctrlC);
      const end = await pty.done;
      assert.equal(end.code, 130, end.text);
      assert.doesNotMatch(end.text, /answered "confirm"/);
    } finally {
      pty.kill();
    }
    const g = await h.run(['--json', 'get', 'ctrlc']);
    assert.equal(parseJsonDoc(g.stdout).status, 'input_required', g.stderr);
    assert.deepEqual(Object.keys(parseJsonDoc(g.stdout).inputRequests), ['confirm']);
  });

  test('call with --answers in a terminal answers without prompting and follows to completed', async () => {
    const h = await homeWithServer('web', demo.url);
    const file = join(h.dir, 'answers.json');
    writeFileSync(file, JSON.stringify({ confirm: { action: 'accept', content: { confirm: true } } }));
    const pty = spawnPty(['call', 'web', 'confirm_delete', 'filename=quiet.txt', '--answers', file], { home: h.dir });
    try {
      const end = await pty.done;
      assert.equal(end.code, 0, end.text);
      assert.match(end.text, /Deleted quiet\.txt/);
      assert.doesNotMatch(end.text, /Input request|\? Confirm deletion/, 'a scripted answer must not prompt');
    } finally {
      pty.kill();
    }
  });

  test('preflight_check in a terminal: asked before any task exists, then the task completes', async () => {
    const h = await homeWithServer('web', demo.url);
    const pty = spawnPty(['call', 'web', 'preflight_check'], { home: h.dir });
    try {
      await pty.waitFor('Input request "environment"');
      await pty.waitFor('Which environment should be checked?');
      assert.match(pty.text(), /preflight_check \(before any task exists\)/);
      await pty.answer(/\? Environment[\s\S]*Cancel/, KEY.down, KEY.enter); // staging, production
      const end = await pty.done;
      assert.equal(end.code, 0, end.text);
      assert.match(end.text, /Preflight check of production passed/);
    } finally {
      pty.kill();
    }
  });

  test('summarize_with_model in a terminal: the person writes the reply; no model reply is invented', async () => {
    const h = await homeWithServer('web', demo.url);
    await startTask(h, 'web', 'summarize_with_model', ['text=The quick brown fox jumps over the lazy dog.'], 'sum');
    const pty = spawnPty(['answer', 'sum'], { home: h.dir });
    try {
      await pty.waitFor('Input request "summary"');
      await pty.waitFor(/\? Reply/);
      const screen = pty.text();
      assert.match(screen, /mcp-tasks runs no model/);
      assert.match(screen, /You are a concise summarizer\./, 'the system prompt is shown');
      assert.match(screen, /The quick brown fox/, "the server's message is shown");
      await pty.type(KEY.enter); // Write the reply
      await pty.answer(/Reply text/, ...'A fox jumps.'.split(''), KEY.enter);
      await pty.waitFor('answered "summary"');
      const end = await pty.done;
      assert.equal(end.code, 0, end.text);
    } finally {
      pty.kill();
    }
    const w = await finish(h, 'sum');
    assert.equal(w.code, 0, w.stderr);
    assert.match(w.stdout, /Summary: A fox jumps\./);
  });

  test('scan_roots in a terminal: the configured roots are sent without a question', async () => {
    const h = newHome();
    await addHttpServer(h, 'rooted', demo.url, ['--root', 'file:///tmp/x']);
    const pty = spawnPty(['call', 'rooted', 'scan_roots'], { home: h.dir });
    try {
      const end = await pty.done;
      assert.equal(end.code, 0, end.text);
      assert.match(end.text, /Scanned 1 root\(s\): file:\/\/\/tmp\/x/);
      assert.doesNotMatch(end.text, /Input request/);
    } finally {
      pty.kill();
    }
  });
});
