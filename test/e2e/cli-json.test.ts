// --json output, parsed and checked field by field: exactly one JSON document on stdout (watch:
// one object per line, the last one the final state), the contract's task shape in every state,
// and errors as {"error":{"kind","message","next"}}.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { newHome, parseJsonDoc, parseJsonLines, startDemo, type DemoServer, homeWithServer } from '../helpers/cli.js';

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;
const TASK_ID = /^[A-Za-z0-9_-]{16,}$/;
const TASK_KEYS = new Set(['taskId', 'server', 'status', 'statusMessage', 'createdAt', 'lastUpdatedAt', 'ttlMs', 'pollIntervalMs', 'inputRequests', 'result', 'error', 'operation', 'labels', 'phase', 'via']);

/** The fields every task-bearing document carries, whatever the state. */
function assertTaskShape(doc: any, want: { server: string; status: string; name: string; args: Record<string, unknown>; labels?: Record<string, string> }): void {
  assert.equal(typeof doc, 'object');
  for (const k of Object.keys(doc)) assert.ok(TASK_KEYS.has(k), `unexpected field ${k}`);
  assert.match(doc.taskId, TASK_ID);
  assert.equal(doc.server, want.server);
  assert.equal(doc.status, want.status);
  assert.match(doc.createdAt, ISO);
  assert.match(doc.lastUpdatedAt, ISO);
  assert.ok(Date.parse(doc.lastUpdatedAt) >= Date.parse(doc.createdAt), 'lastUpdatedAt before createdAt');
  assert.ok(doc.ttlMs === null || (Number.isInteger(doc.ttlMs) && doc.ttlMs > 0), `ttlMs ${doc.ttlMs}`);
  if ('pollIntervalMs' in doc) assert.ok(Number.isInteger(doc.pollIntervalMs) && doc.pollIntervalMs > 0);
  if ('statusMessage' in doc) assert.equal(typeof doc.statusMessage, 'string');
  assert.deepEqual(doc.operation, { method: 'tools/call', name: want.name, arguments: want.args });
  assert.deepEqual(doc.labels, want.labels ?? {});
  // State-specific fields appear exactly in their state.
  assert.equal('result' in doc, doc.status === 'completed', `result in a ${doc.status} task`);
  assert.equal('error' in doc, doc.status === 'failed', `error in a ${doc.status} task`);
  assert.equal('inputRequests' in doc, doc.status === 'input_required', `inputRequests in a ${doc.status} task`);
}

function assertErrorDoc(stdout: string, kind: string): any {
  const doc = parseJsonDoc(stdout);
  assert.deepEqual(Object.keys(doc), ['error']);
  assert.deepEqual(Object.keys(doc.error).sort(), ['kind', 'message', 'next']);
  assert.equal(doc.error.kind, kind);
  assert.equal(typeof doc.error.message, 'string');
  assert.ok(doc.error.message.length > 0);
  assert.equal(typeof doc.error.next, 'string');
  assert.ok(doc.error.next.length > 0);
  return doc.error;
}

describe('--json output', { concurrency: 4 }, () => {
  let demo: DemoServer;
  before(async () => {
    demo = await startDemo();
  });
  after(async () => {
    await demo?.stop();
  });

  test('call: a completed task, every field (stdio demo)', async () => {
    const h = newHome();
    const r = await h.run(['--json', 'call', 'demo', 'slow_compute', 'seconds=1', 'label=alpha', '--label', 'ci.run=42', '--label', 'team=search']);
    assert.equal(r.code, 0, r.stderr);
    const doc = parseJsonDoc(r.stdout);
    assertTaskShape(doc, { server: 'demo', status: 'completed', name: 'slow_compute', args: { seconds: 1, label: 'alpha' }, labels: { 'ci.run': '42', team: 'search' } });
    assert.equal(doc.ttlMs, 3_600_000);
    assert.equal(doc.pollIntervalMs, 500);
    assert.equal(Date.parse(doc.lastUpdatedAt) - Date.parse(doc.createdAt), 1000);
    assert.deepEqual(doc.result.content, [{ type: 'text', text: 'Computed alpha after 1 second(s)' }]);
    assert.deepEqual(doc.result.structuredContent, { seconds: 1, label: 'alpha' });
    assert.notEqual(doc.result.isError, true);
    assert.equal(r.stdout.endsWith('}\n'), true);
  });

  test('call --detach, then get and watch from new processes (HTTP)', async () => {
    const h = await homeWithServer('web', demo.url);
    const d = await h.run(['--json', 'call', 'web', 'generate_report', 'seconds=4', 'title=Q3', '--detach', '--label', 'job=report']);
    assert.equal(d.code, 0, d.stderr);
    const started = parseJsonDoc(d.stdout);
    assertTaskShape(started, { server: 'web', status: 'working', name: 'generate_report', args: { seconds: 4, title: 'Q3' }, labels: { job: 'report' } });
    assert.equal(started.statusMessage, 'Collecting data (Q3)');
    assert.equal(started.pollIntervalMs, 250);

    const g = await h.run(['--json', 'get', 'report']);
    assert.equal(g.code, 0, g.stderr);
    const got = parseJsonDoc(g.stdout);
    // Normally still working; on a very loaded machine the next process may start after the end.
    assert.ok(['working', 'completed'].includes(got.status), got.status);
    assertTaskShape(got, { server: 'web', status: got.status, name: 'generate_report', args: { seconds: 4, title: 'Q3' }, labels: { job: 'report' } });
    assert.equal(got.taskId, started.taskId);
    assert.equal(got.createdAt, started.createdAt);

    const w = await h.run(['--json', 'watch', '--', started.taskId.slice(0, 10)]);
    assert.equal(w.code, 0, w.stderr);
    const lines = parseJsonLines(w.stdout);
    assert.ok(lines.length >= 1, 'watch printed nothing');
    for (const line of lines) {
      assert.equal(line.taskId, started.taskId);
      assertTaskShape(line, { server: 'web', status: line.status, name: 'generate_report', args: { seconds: 4, title: 'Q3' }, labels: { job: 'report' } });
    }
    const last = lines[lines.length - 1];
    assert.equal(last.status, 'completed');
    assert.deepEqual(last.result.structuredContent, { title: 'Q3', pages: 12 });
    assert.equal(last.result.content[1].type, 'resource_link');
    // Intermediate lines are the stages the watch observed, in order, never repeating.
    const messages = lines.slice(0, -1).map((l) => l.statusMessage);
    for (const m of messages) assert.match(m, /^(Collecting data|Rendering charts|Writing PDF) \(Q3\)$/);
    assert.equal(new Set(messages).size, messages.length);
  });

  test('a task that ends failed: error, no result (HTTP)', async () => {
    const h = await homeWithServer('web', demo.url);
    const r = await h.run(['--json', 'call', 'web', 'protocol_error_job']);
    assert.equal(r.code, 2, r.stderr);
    const doc = parseJsonDoc(r.stdout);
    assertTaskShape(doc, { server: 'web', status: 'failed', name: 'protocol_error_job', args: {} });
    assert.deepEqual(doc.error, { code: -32603, message: 'Internal error: simulated protocol failure' });
  });

  test('a tool error: completed, result.isError (stdio demo)', async () => {
    const h = newHome();
    const r = await h.run(['--json', 'call', 'demo', 'failing_job']);
    assert.equal(r.code, 4, r.stderr);
    const doc = parseJsonDoc(r.stdout);
    assertTaskShape(doc, { server: 'demo', status: 'completed', name: 'failing_job', args: {} });
    assert.equal(doc.result.isError, true);
    assert.deepEqual(doc.result.content, [{ type: 'text', text: 'The job failed: simulated tool error' }]);
  });

  test('input_required: the pending requests by key (HTTP)', async () => {
    const h = await homeWithServer('web', demo.url);
    const r = await h.run(['--json', 'call', 'web', 'multi_input']);
    assert.equal(r.code, 5, r.stderr);
    const doc = parseJsonDoc(r.stdout);
    assertTaskShape(doc, { server: 'web', status: 'input_required', name: 'multi_input', args: {} });
    assert.deepEqual(Object.keys(doc.inputRequests).sort(), ['color', 'name']);
    assert.equal(doc.inputRequests.color.method, 'elicitation/create');
    assert.equal(doc.inputRequests.color.params.mode, 'form');
    assert.deepEqual(doc.inputRequests.color.params.requestedSchema.properties.color.enum, ['red', 'green', 'blue']);
    assert.equal(doc.statusMessage, 'Waiting for two answers');
    const g = await h.run(['--json', 'get', '--', doc.taskId]);
    assert.equal(g.code, 5, g.stderr);
    assert.deepEqual(parseJsonDoc(g.stdout).inputRequests, doc.inputRequests);
  });

  test('cancelled: cancel --json, then cancel --wait --json (HTTP)', async () => {
    const h = await homeWithServer('web', demo.url);
    const d = await h.ok(['--json', 'call', 'web', 'slow_compute', 'seconds=30', '--detach']);
    const id = parseJsonDoc(d.stdout).taskId as string;
    const c = await h.run(['--json', 'cancel', '--', id]);
    assert.equal(c.code, 0, c.stderr);
    const req = parseJsonDoc(c.stdout);
    assert.equal(req.taskId, id);
    assert.equal(req.cancellation, 'requested');
    const w = await h.run(['--json', 'cancel', '--wait', '--', id]);
    assert.equal(w.code, 3, w.stderr);
    const doc = parseJsonDoc(w.stdout);
    assertTaskShape(doc, { server: 'web', status: 'cancelled', name: 'slow_compute', args: { seconds: 30 } });
    assert.equal(doc.statusMessage, "Cancelled at the client's request");
  });

  test('--timeout: one document with the last state seen (HTTP)', async () => {
    const h = await homeWithServer('web', demo.url);
    const r = await h.run(['--json', 'call', 'web', 'slow_compute', 'seconds=30', '--timeout', '1200ms']);
    assert.equal(r.code, 124, r.stderr);
    assertTaskShape(parseJsonDoc(r.stdout), { server: 'web', status: 'working', name: 'slow_compute', args: { seconds: 30 } });
  });

  test(
    'watch --json ends with the final state even when nothing changed (timeout)',
    async () => {
      const h = await homeWithServer('web', demo.url);
      const d = await h.ok(['--json', 'call', 'web', 'slow_compute', 'seconds=30', '--detach']);
      const id = parseJsonDoc(d.stdout).taskId as string;
      const w = await h.run(['--json', 'watch', '--timeout', '1200ms', '--', id]);
      assert.equal(w.code, 124, w.stderr);
      const lines = parseJsonLines(w.stdout);
      assert.ok(lines.length >= 1, 'watch --json printed nothing');
      assert.equal(lines[lines.length - 1].status, 'working');
    },
  );

  test(
    'watch --json against a stopped server still says so on stdout',
    async () => {
      const gone = await startDemo();
      const h = await homeWithServer('web', gone.url);
      const d = await h.ok(['--json', 'call', 'web', 'slow_compute', 'seconds=60', '--detach']);
      await gone.stop();
      const w = await h.run(['--json', 'watch', '--', parseJsonDoc(d.stdout).taskId], { env: { MCP_TASKS_RETRY: '1,50' } });
      assert.equal(w.code, 7, w.stderr);
      const lines = parseJsonLines(w.stdout);
      assert.ok(lines.length >= 1, 'watch --json printed nothing on exit 7');
      const last = lines[lines.length - 1];
      assert.ok(last.error?.kind === 'unreachable' || last.status === 'working', JSON.stringify(last));
    },
  );

  test('list --json and show --json', async () => {
    const h = await homeWithServer('web', demo.url);
    await h.ok(['call', 'web', 'slow_compute', 'seconds=30', '--detach', '--label', 'job=a']);
    await h.ok(['call', 'web', 'slow_compute', 'seconds=0', '--label', 'job=b']);
    const active = parseJsonDoc((await h.run(['--json', 'list'])).stdout);
    assert.ok(Array.isArray(active));
    assert.deepEqual(
      active.map((x: any) => x.labels.job),
      ['a'],
    );
    const all = parseJsonDoc((await h.run(['--json', 'list', '--all'])).stdout);
    assert.deepEqual(
      all.map((x: any) => [x.labels.job, x.status, x.phase]),
      [
        ['a', 'working', 'active'],
        ['b', 'completed', 'terminal'],
      ],
    );
    for (const x of all) {
      assert.match(x.taskId, TASK_ID);
      assert.equal(typeof x.opId, 'string');
      assert.equal(x.server, 'web');
    }
    const show = await h.run(['--json', 'show', 'b']);
    assert.equal(show.code, 0, show.stderr);
    const s = parseJsonDoc(show.stdout);
    assert.equal(s.status, 'completed');
    assert.deepEqual(s.result.structuredContent, { seconds: 0, label: 'slow_compute' });
    assert.equal(s.auth.kind, 'none');
    assert.ok(Array.isArray(s.history) && s.history.length >= 1);
  });

  test('errors: {"error":{"kind","message","next"}} on stdout, nothing else', async () => {
    const h = newHome();
    const cases: Array<[string[], string, number]> = [
      [['--json', 'call', 'nowhere', 'slow_compute'], 'not-found', 1],
      [['--json', 'get', 'abcdefgh'], 'not-found', 1],
      [['--json', 'call', 'demo', 'slow_compute', 'seconds=x'], 'invalid-input', 1],
      [['--json', 'call', 'demo', 'slow_compute', 'seconds=1', '--timeout', 'soon'], 'usage', 1],
      [['--json', 'server', 'add', 'plain', '--url', 'http://mcp.example.com/mcp'], 'invalid-input', 1],
    ];
    await Promise.all(
      cases.map(async ([args, kind, code]) => {
        const r = await h.run(args);
        assert.equal(r.code, code, `${args.join(' ')}: ${r.stderr}`);
        assertErrorDoc(r.stdout, kind);
      }),
    );
  });

  // 'errors from argument parsing are JSON too' runs in process: test/in-process/cli-in-process.test.ts.

  test('-v changes stderr only, and never prints the task id', async () => {
    const h = newHome();
    const quiet = await h.run(['--json', 'call', 'demo', 'slow_compute', 'seconds=0']);
    const loud = await h.run(['--json', '-v', 'call', 'demo', 'slow_compute', 'seconds=0']);
    assert.equal(quiet.code, 0, quiet.stderr);
    assert.equal(loud.code, 0, loud.stderr);
    const strip = (doc: any) => ({ ...doc, taskId: '', createdAt: '', lastUpdatedAt: '' });
    assert.deepEqual(strip(parseJsonDoc(loud.stdout)), strip(parseJsonDoc(quiet.stdout)));
    const id = parseJsonDoc(loud.stdout).taskId as string;
    assert.ok(!loud.stderr.includes(id), 'the task id is in the verbose log');
  });
});
