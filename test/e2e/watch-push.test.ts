// Push-first watching (issue 23): on a demo server that pushes task states over
// subscriptions/listen, `watch` takes them from notifications/tasks and sends no tasks/get
// (the safety poll is 30 s away); a server that acknowledges no id is polled at its
// pollIntervalMs; a listen stream cut mid-task by a proxy loses no state; a malformed pushed
// state is refused like a malformed tasks/get. Requests are counted at a real proxy in front of
// the real demo server; latency is the time from the server's own lastUpdatedAt to the line
// the watch printed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { addHttpServer, newHome, startDemo, type TestHome } from '../helpers/cli.js';
import { answersFile, accept } from '../helpers/answers.js';
import { methodOf, startProxy, type ProxyHooks } from '../helpers/proxy.js';

interface Seen {
  method: string;
  at: number;
}

async function world(t: { after: (fn: () => Promise<void> | void) => void }, opts: { faults?: string[]; hooks?: ProxyHooks } = {}) {
  const demo = await startDemo({ faults: opts.faults ?? [] });
  const log: Seen[] = [];
  const proxy = await startProxy(demo.url, {
    ...opts.hooks,
    answer: (req) => {
      log.push({ method: methodOf(req.body) ?? req.method, at: Date.now() });
      return opts.hooks?.answer?.(req);
    },
  });
  t.after(async () => {
    await proxy.close();
    await demo.stop();
  });
  const h = newHome();
  await addHttpServer(h, 'web', proxy.url);
  return { h, log };
}

/** A task that works for `lookupMs`, then asks to confirm, then completes 200 ms after the answer. */
async function startConfirm(h: TestHome, lookupMs: number): Promise<string> {
  const r = await h.ok(['--json', 'call', 'web', 'confirm_delete', 'filename=a.txt', `lookup_ms=${lookupMs}`, '--detach']);
  const doc = JSON.parse(r.stdout) as { taskId: string; status: string };
  assert.equal(doc.status, lookupMs > 0 ? 'working' : 'input_required');
  return doc.taskId;
}

/** `watch --json` as a real process; each stdout line with the moment it arrived. */
async function watchLines(h: TestHome, args: string[]): Promise<{ code: number | null; stderr: string; events: Array<{ doc: any; at: number }> }> {
  const p = h.spawn(['--json', '-v', 'watch', '--timeout', '60s', ...args], { timeoutMs: 90_000 });
  const events: Array<{ doc: any; at: number }> = [];
  let partial = '';
  p.child.stdout!.on('data', (d: string) => {
    const at = Date.now();
    const lines = (partial + d).split('\n');
    partial = lines.pop()!;
    for (const l of lines) if (l.trim()) events.push({ doc: JSON.parse(l), at });
  });
  const r = await p.done;
  return { code: r.code, stderr: r.stderr, events };
}

const answers = (h: TestHome) => answersFile(h, { confirm: accept({ confirm: true }) });

test('push: input_required and completion arrive pushed, with no tasks/get after the listen', async (t) => {
  const { h, log } = await world(t);
  const taskId = await startConfirm(h, 1500);
  const r = await watchLines(h, ['--answers', answers(h), taskId]);
  assert.equal(r.code, 0, r.stderr);
  const byStatus = (s: string) => r.events.find((e) => e.doc.status === s);
  const asked = byStatus('input_required');
  const done = byStatus('completed');
  assert.ok(asked && done, `both states printed: ${JSON.stringify(r.events.map((e) => e.doc.status))}`);
  assert.equal(asked.doc.via, 'push');
  assert.equal(done.doc.via, 'push');
  assert.equal(done.doc.result.content[0].text, 'Deleted a.txt');
  // The server's own time of each change (lastUpdatedAt) to the moment the watch printed it: a
  // figure, not a pass mark (a loaded CI machine delays it; npm run bench measures it quiet). Push
  // itself is proved above (via) and below (no tasks/get after the listen).
  for (const e of [asked, done]) t.diagnostic(`${e.doc.status} printed ${e.at - Date.parse(e.doc.lastUpdatedAt)} ms after the change`);
  const listenAt = log.find((s) => s.method === 'subscriptions/listen')?.at;
  assert.ok(listenAt !== undefined, `a listen request went out: ${log.map((s) => s.method).join(', ')}`);
  const getsAfter = log.filter((s) => s.method === 'tasks/get' && s.at >= listenAt);
  assert.equal(getsAfter.length, 0, 'no tasks/get between the listen and the terminal state');
  assert.equal(log.filter((s) => s.method === 'tasks/update').length, 1, 'the question answered once');
  assert.match(r.stderr, /the server pushes this task's states/);
});

test('a server that acknowledges no id: watch polls at pollIntervalMs, never faster', async (t) => {
  const { h, log } = await world(t, { faults: ['no-push'] });
  const taskId = await startConfirm(h, 3000);
  const r = await watchLines(h, ['--answers', answers(h), taskId]);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual([...new Set(r.events.map((e) => e.doc.via))], ['poll']);
  assert.ok(r.events.some((e) => e.doc.status === 'input_required') && r.events.at(-1)!.doc.status === 'completed');
  const gets = log.filter((s) => s.method === 'tasks/get').map((s) => s.at);
  assert.ok(gets.length >= 3, `polled (${gets.length} tasks/get)`);
  // The demo asks for 500 ms; requests are timed at the proxy, so allow for a little jitter.
  const gaps = gets.slice(1).map((at, i) => at - gets[i]!);
  assert.ok(Math.min(...gaps) >= 400, `never faster than pollIntervalMs: gaps ${gaps.join(', ')} ms`);
  assert.match(r.stderr, /pushes 0 of 1 task; polling the other 1/);
});

test('--poll: no listen request at all', async (t) => {
  const { h, log } = await world(t);
  const taskId = await startConfirm(h, 0);
  const r = await watchLines(h, ['--poll', '--answers', answers(h), taskId]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(log.filter((s) => s.method === 'subscriptions/listen').length, 0);
  assert.ok(r.events.every((e) => e.doc.via === 'poll'));
});

test('the listen stream cut mid-task: no state is lost, the stream is opened again, exit 0', async (t) => {
  let listens = 0;
  const { h, log } = await world(t, {
    hooks: {
      rewriteEvents: (req) => {
        if (methodOf(req.body) !== 'subscriptions/listen' || ++listens > 1) return undefined;
        // The first stream: the acknowledgement and the first state pass, then the network drops.
        let passed = 0;
        return (data) => (++passed > 2 ? null : data);
      },
    },
  });
  const taskId = await startConfirm(h, 1200);
  const r = await watchLines(h, ['--answers', answers(h), taskId]);
  assert.equal(r.code, 0, r.stderr);
  const statuses = r.events.map((e) => e.doc.status);
  assert.ok(statuses.includes('input_required'), `input_required was seen: ${statuses.join(', ')}`);
  assert.equal(statuses.at(-1), 'completed');
  assert.ok(log.filter((s) => s.method === 'subscriptions/listen').length >= 2, 'the stream was opened again');
  assert.equal(log.filter((s) => s.method === 'tasks/update').length, 1, 'answered once, not twice');
  assert.match(r.stderr, /listen stream dropped/);
  // The result is in the vault: a later get prints it without asking the server.
  const stored = await h.run(['--json', 'get', taskId]);
  assert.equal(JSON.parse(stored.stdout).status, 'completed');
});

test('a pushed state that breaks the schema is refused like a malformed tasks/get', async (t) => {
  const broken = (text: string) => {
    const m = JSON.parse(text) as { method?: string; params?: Record<string, unknown>; result?: Record<string, unknown> };
    const task = m.method === 'notifications/tasks' ? m.params : m.result;
    if (task?.status === 'completed') task.status = 'finished';
    return JSON.stringify(m);
  };
  const { h } = await world(t, {
    hooks: {
      rewriteEvents: (req) => (methodOf(req.body) === 'subscriptions/listen' ? broken : undefined),
      rewrite: (req) => (methodOf(req.body) === 'tasks/get' ? broken : undefined),
    },
  });
  const pushed = await watchLines(h, ['--answers', answers(h), await startConfirm(h, 0)]);
  const polled = await watchLines(h, ['--poll', '--answers', answers(h), await startConfirm(h, 0)]);
  assert.notEqual(pushed.code, 0);
  assert.equal(pushed.code, polled.code, `push ${pushed.code}, poll ${polled.code}\n${pushed.stderr}`);
  const said = (x: { stderr: string; events: Array<{ doc: any }> }) => `${x.stderr}\n${x.events.map((e) => JSON.stringify(e.doc)).join('\n')}`;
  assert.match(said(pushed), /protocol error from the server.*notifications\/tasks state is malformed: status/);
  assert.match(said(polled), /protocol error from the server.*tasks\/get result is malformed: status/);
  assert.ok(!pushed.events.some((e) => e.doc.status === 'finished'));
});
