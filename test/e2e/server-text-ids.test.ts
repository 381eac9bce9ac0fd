// Task ids inside the server's own text. --json prints the server's payload as it came (an id in
// a result's text or an input request's message is the server's data); human output shortens
// the task's id there like everywhere else (it is a bearer handle, and terminals end up in logs).
// A real demo server behind the real proxy, which writes the task's id into its answers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { homeWithServer, parseJsonDoc, startDemo } from '../helpers/cli.js';
import { startProxy } from '../helpers/proxy.js';
import { runInProcess, scriptedPrompter } from '../helpers/in-process.js';

/** The demo's tasks/get answers, with the task's own id quoted in the request message and the result text. */
function quoteTaskId(body: string): string {
  const msg = JSON.parse(body) as { result?: { taskId?: string; inputRequests?: Record<string, { params?: { message?: string } }>; result?: { content?: Array<{ type: string; text?: string }> } } };
  const task = msg.result;
  if (!task?.taskId) return body;
  for (const req of Object.values(task.inputRequests ?? {})) if (req.params) req.params.message = `Delete it for task ${task.taskId}?`;
  for (const block of task.result?.content ?? []) if (block.type === 'text') block.text = `${block.text} (task ${task.taskId})`;
  return JSON.stringify(msg);
}

test('an id in the server text: whole in --json, shortened in human output (request message and result)', { timeout: 120_000 }, async () => {
  const demo = await startDemo();
  const proxy = await startProxy(demo.url, { rewrite: (req) => (req.headers['mcp-method'] === 'tasks/get' ? quoteTaskId : undefined) });
  try {
    const h = await homeWithServer('web', proxy.url);
    const taskId = parseJsonDoc((await h.ok(['--json', 'call', 'web', 'confirm_delete', 'filename=a.txt', '--detach', '--label', 'job=ids'])).stdout).taskId as string;
    const short = `${taskId.slice(0, 10)}…`;

    const asked = parseJsonDoc((await h.run(['--json', 'get', 'ids'])).stdout);
    assert.equal(asked.inputRequests.confirm.params.message, `Delete it for task ${taskId}?`, '--json: the server\'s message as it came');
    const askedText = await h.run(['get', 'ids']);
    assert.equal(askedText.code, 5, askedText.stderr);
    assert.ok(askedText.stderr.includes(`Delete it for task ${short}?`), askedText.stderr);
    assert.ok(!askedText.stderr.includes(taskId) && !askedText.stdout.includes(taskId), 'human output: the id shortened');

    // At a prompt too: the server's message, with the id shortened.
    const prompted = await runInProcess(['answer', 'ids'], { home: h.dir, env: { CI: undefined }, stdinIsTTY: true, prompter: scriptedPrompter([true, true, true]) });
    assert.equal(prompted.code, 0, prompted.stderr);
    assert.ok(prompted.stderr.includes(`server says: “Delete it for task ${short}?”`), prompted.stderr);
    assert.ok(!prompted.stderr.includes(taskId), 'the prompt: the id shortened');
    // --poll: the proxy quotes the id into tasks/get answers (the demo's pushed state has none).
    await h.ok(['watch', '--poll', 'ids']);
    const done = parseJsonDoc((await h.ok(['--json', 'get', 'ids'])).stdout);
    assert.equal(done.result.content[0].text, `Deleted a.txt (task ${taskId})`, '--json: the result as the server sent it');
    const doneText = await h.ok(['get', 'ids']);
    assert.ok(doneText.stdout.includes(`Deleted a.txt (task ${short})`), doneText.stdout);
    assert.ok(!doneText.stdout.includes(taskId));
  } finally {
    await proxy.close();
    await demo.stop();
  }
});
