// End-to-end scenarios for every demo tool and the tasks/* surface, written once against the
// transport-neutral DemoClient and run by both the HTTP and the stdio e2e files.
import assert from 'node:assert/strict';
import {
  CancelTaskResultV2Schema,
  ContentBlockV2Schema,
  CreateMessageResultV2Schema,
  CreateTaskResultV2Schema,
  GetTaskResultV2Schema,
  InputRequestsV2Schema,
  InputRequiredCallToolResultV2Schema,
  ListRootsResultV2Schema,
  ToolV2Schema,
  UpdateTaskResultV2Schema,
} from '@modelcontextprotocol/ext-tasks/core/v2';
import { seededWord } from './seeded.js';
import {
  assertSchema,
  callTool,
  getTask,
  IDEMPOTENCY_KEY,
  ok,
  rpcError,
  waitForTask,
  type DemoClient,
  type Json,
} from './demo-server.js';

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const MISSING_CAPABILITY_DATA = { requiredCapabilities: { extensions: { 'io.modelcontextprotocol/tasks': {} } } };

/** tools/call declaring the extension; asserts a valid CreateTaskResult and returns it. */
export async function createTask(c: DemoClient, name: string, args: Record<string, unknown> = {}, meta: Record<string, unknown> = {}, opts: { hostileIds?: boolean } = {}): Promise<Json> {
  const r = ok(await callTool(c, name, args, { meta }), `tools/call ${name}`);
  assertSchema(CreateTaskResultV2Schema, r, `CreateTaskResult of ${name}`);
  assert.equal(r.resultType, 'task');
  // Under hostile-text / hostile-ids the demo puts escapes into ids on purpose.
  if (opts.hostileIds) assert.ok(typeof r.taskId === 'string' && r.taskId.length >= 22, 'a long taskId');
  else assert.match(r.taskId, /^[A-Za-z0-9_-]{22,}$/, 'a long, URL-safe taskId');
  assert.match(r.createdAt, ISO);
  assert.match(r.lastUpdatedAt, ISO);
  for (const k of ['task', 'result', 'error', 'inputRequests', 'requestState']) assert.ok(!(k in r), `${k} in a CreateTaskResult`);
  return r;
}

/** Poll (validating every tasks/get against GetTaskResultV2Schema) until `until` holds. */
export async function poll(c: DemoClient, taskId: string, until: (t: Json) => boolean, timeoutMs = 10_000): Promise<{ task: Json; seen: Json[] }> {
  const out = await waitForTask(c, taskId, until, { timeoutMs, capMs: 250 });
  for (const t of out.seen) {
    assertSchema(GetTaskResultV2Schema, t, `tasks/get (${t.status})`);
    assert.equal(t.resultType, 'complete');
    assert.equal(t.taskId, taskId);
    // State-specific fields appear exactly in their state.
    assert.equal('result' in t, t.status === 'completed', `result in a ${t.status} task`);
    assert.equal('error' in t, t.status === 'failed', `error in a ${t.status} task`);
    assert.equal('inputRequests' in t, t.status === 'input_required', `inputRequests in a ${t.status} task`);
  }
  return out;
}

export const pollTerminal = async (c: DemoClient, taskId: string, timeoutMs = 10_000) => {
  const out = await poll(c, taskId, (t) => ['completed', 'failed', 'cancelled'].includes(t.status), timeoutMs);
  // Once terminal, a task stays as it is.
  const again = ok(await getTask(c, taskId));
  assert.deepEqual(again, out.task, 'a terminal task changed');
  return out.task;
};

async function update(c: DemoClient, taskId: string, inputResponses: Record<string, unknown>): Promise<void> {
  const r = ok(await c.rpc('tasks/update', { taskId, inputResponses }), 'tasks/update');
  assertSchema(UpdateTaskResultV2Schema, r, 'tasks/update result');
  assert.equal(r.resultType, 'complete');
}

async function cancel(c: DemoClient, taskId: string): Promise<void> {
  const r = ok(await c.rpc('tasks/cancel', { taskId }), 'tasks/cancel');
  assertSchema(CancelTaskResultV2Schema, r, 'tasks/cancel result');
  assert.equal(r.resultType, 'complete');
}

function assertContent(result: Json): void {
  assert.ok(Array.isArray(result.content) && result.content.length > 0, 'content blocks');
  for (const b of result.content) assertSchema(ContentBlockV2Schema, b, 'content block');
}

const accept = (content: Record<string, unknown>) => ({ action: 'accept', content });

export interface Scenario {
  name: string;
  /** A known src bug: the scenario states the correct behaviour and is reported as a todo. */
  todo?: string;
  run(c: DemoClient): Promise<void>;
}

export const SCENARIOS: Scenario[] = [
  {
    name: 'server/discover advertises the tasks extension; tools/list has all 16 tools (13 demo tools, 3 conformance diagnostics)',
    async run(c) {
      const d = ok(await c.rpc('server/discover', {}), 'server/discover');
      assert.ok(d.supportedVersions.includes('2026-07-28'));
      assert.deepEqual(d.capabilities.extensions['io.modelcontextprotocol/tasks'], {});
      const tl = ok(await c.rpc('tools/list', {}), 'tools/list');
      assert.equal(tl.tools.length, 16);
      for (const t of tl.tools) assertSchema(ToolV2Schema, t, `tool ${t.name}`);
      const pay = tl.tools.find((t: Json) => t.name === 'send_payment');
      assert.equal(pay.annotations.destructiveHint, true);
      assert.equal(pay.annotations.idempotentHint, false);
    },
  },
  {
    name: 'greet: synchronous, with or without the extension',
    async run(c) {
      for (const tasks of [true, false]) {
        const r = ok(await callTool(c, 'greet', { name: 'Ada' }, { tasks }), 'greet');
        assert.equal(r.resultType, 'complete');
        assert.deepEqual(r.content, [{ type: 'text', text: 'Hello, Ada!' }]);
        assert.ok(!('taskId' in r), 'greet never becomes a task');
      }
    },
  },
  {
    name: 'slow_compute seconds=1: a task that completes after exactly 1 s',
    async run(c) {
      const created = await createTask(c, 'slow_compute', { seconds: 1, label: 'e2e' });
      assert.equal(created.status, 'working');
      assert.equal(created.statusMessage, 'Computing e2e (1s)');
      assert.equal(created.pollIntervalMs, 500);
      assert.equal(created.ttlMs, 3_600_000);
      const { task, seen } = await poll(c, created.taskId, (t) => t.status !== 'working');
      assert.equal(task.status, 'completed');
      assert.equal(Date.parse(task.lastUpdatedAt) - Date.parse(task.createdAt), 1000);
      assert.equal(task.createdAt, created.createdAt);
      assertContent(task.result);
      assert.deepEqual(task.result.content, [{ type: 'text', text: 'Computed e2e after 1 second(s)' }]);
      assert.deepEqual(task.result.structuredContent, { seconds: 1, label: 'e2e' });
      // Every poll before the end saw it working, with the same message.
      for (const s of seen.slice(0, -1)) assert.deepEqual([s.status, s.statusMessage], ['working', 'Computing e2e (1s)']);
    },
  },
  {
    name: 'slow_compute without the extension: an inline result after the work',
    async run(c) {
      const started = Date.now();
      const r = ok(await callTool(c, 'slow_compute', { seconds: 1 }, { tasks: false }), 'inline slow_compute');
      assert.ok(Date.now() - started >= 950, `answered after ${Date.now() - started} ms`);
      assert.equal(r.resultType, 'complete');
      assert.ok(!('taskId' in r));
      assert.deepEqual(r.content, [{ type: 'text', text: 'Computed slow_compute after 1 second(s)' }]);
      assert.deepEqual(r.structuredContent, { seconds: 1, label: 'slow_compute' });
    },
  },
  {
    name: 'failing_job: -32021 without the extension; a task completing with isError: true with it',
    async run(c) {
      const e = rpcError(await callTool(c, 'failing_job', {}, { tasks: false }), -32021, 'failing_job without the extension');
      assert.deepEqual(e.data, MISSING_CAPABILITY_DATA);
      assert.match(e.message, /io\.modelcontextprotocol\/tasks/);
      const created = await createTask(c, 'failing_job');
      const task = await pollTerminal(c, created.taskId);
      assert.equal(task.status, 'completed');
      assert.equal(task.result.isError, true);
      assert.deepEqual(task.result.content, [{ type: 'text', text: 'The job failed: simulated tool error' }]);
    },
  },
  {
    name: 'protocol_error_job: the task ends failed with a JSON-RPC error',
    async run(c) {
      const created = await createTask(c, 'protocol_error_job');
      const task = await pollTerminal(c, created.taskId);
      assert.equal(task.status, 'failed');
      assert.equal(task.error.code, -32603);
      assert.match(task.error.message, /simulated protocol failure/);
    },
  },
  {
    name: 'confirm_delete: input_required, answered with tasks/update, then completed',
    async run(c) {
      const created = await createTask(c, 'confirm_delete', { filename: 'report.txt' });
      const { task: asking } = await poll(c, created.taskId, (t) => t.status === 'input_required');
      assertSchema(InputRequestsV2Schema, asking.inputRequests, 'inputRequests');
      assert.deepEqual(Object.keys(asking.inputRequests), ['confirm']);
      assert.equal(asking.inputRequests.confirm.method, 'elicitation/create');
      assert.equal(asking.inputRequests.confirm.params.mode, 'form');
      assert.equal(asking.inputRequests.confirm.params.message, 'Delete report.txt?');
      await update(c, created.taskId, { confirm: accept({ confirm: true }) });
      const done = await pollTerminal(c, created.taskId);
      assert.equal(done.status, 'completed');
      assert.deepEqual(done.result.content, [{ type: 'text', text: 'Deleted report.txt' }]);
    },
  },
  {
    name: 'multi_input: answered one key at a time',
    async run(c) {
      const created = await createTask(c, 'multi_input');
      const { task: first } = await poll(c, created.taskId, (t) => t.status === 'input_required');
      assert.deepEqual(Object.keys(first.inputRequests).sort(), ['color', 'name']);
      await update(c, created.taskId, { color: accept({ color: 'blue' }) });
      const partial = ok(await getTask(c, created.taskId));
      assert.equal(partial.status, 'input_required');
      assert.deepEqual(Object.keys(partial.inputRequests), ['name'], 'the answered key is no longer asked');
      // Re-answering color, or answering a key never asked, changes nothing.
      await update(c, created.taskId, { color: accept({ color: 'red' }), size: accept({ size: 'XL' }) });
      assert.deepEqual(Object.keys(ok(await getTask(c, created.taskId)).inputRequests), ['name']);
      await update(c, created.taskId, { name: accept({ name: 'Grace' }) });
      const done = await pollTerminal(c, created.taskId);
      assert.equal(done.status, 'completed');
      assert.deepEqual(done.result.structuredContent, { name: 'Grace', color: 'blue' });
    },
  },
  {
    name: 'test_tool_with_task: InputRequiredResult, then a retry with inputResponses + requestState creates the task',
    async run(c) {
      const ask = ok(await callTool(c, 'test_tool_with_task', {}), 'first round');
      assertSchema(InputRequiredCallToolResultV2Schema, ask, 'InputRequiredResult');
      assert.equal(ask.resultType, 'input_required');
      assert.deepEqual(Object.keys(ask.inputRequests), ['user_name']);
      assert.equal(typeof ask.requestState, 'string');
      const created = ok(
        await callTool(c, 'test_tool_with_task', {}, {}, { inputResponses: { user_name: accept({ name: 'Ada' }) }, requestState: ask.requestState }),
        'retry',
      );
      assertSchema(CreateTaskResultV2Schema, created, 'CreateTaskResult');
      const done = await pollTerminal(c, created.taskId);
      assert.equal(done.status, 'completed');
      assert.deepEqual(done.result.content, [{ type: 'text', text: 'Hello, Ada! Your task is complete.' }]);
      // Without the extension the tool is refused outright.
      rpcError(await callTool(c, 'test_tool_with_task', {}, { tasks: false }), -32021);
    },
  },
  {
    name: 'preflight_check: InputRequiredResult before any task, then a task for the chosen environment',
    async run(c) {
      const ask = ok(await callTool(c, 'preflight_check', {}), 'first round');
      assertSchema(InputRequiredCallToolResultV2Schema, ask, 'InputRequiredResult');
      const req = ask.inputRequests.environment;
      assert.equal(req.method, 'elicitation/create');
      assert.deepEqual(req.params.requestedSchema.properties.environment.enum, ['staging', 'production']);
      const created = ok(
        await callTool(c, 'preflight_check', {}, {}, { inputResponses: { environment: accept({ environment: 'production' }) }, requestState: ask.requestState }),
        'retry',
      );
      assertSchema(CreateTaskResultV2Schema, created, 'CreateTaskResult');
      assert.equal(created.statusMessage, 'Checking production');
      const done = await pollTerminal(c, created.taskId);
      assert.deepEqual(done.result.content, [{ type: 'text', text: 'Preflight check of production passed' }]);
    },
  },
  {
    name: 'generate_report: statusMessage and pollIntervalMs change as it goes (250 → 500 → 1000 ms)',
    async run(c) {
      // 3 s: stages of 750, 1050 and 1200 ms, each wider than one poll interval plus slack.
      const created = await createTask(c, 'generate_report', { title: 'E2E', seconds: 3 });
      assert.equal(created.pollIntervalMs, 250);
      assert.equal(created.statusMessage, 'Collecting data (E2E)');
      const t0 = Date.parse(created.createdAt);
      // What the server must say at `ms` after creation: [pollIntervalMs, statusMessage].
      const STAGES: Array<[number, number, string]> = [
        [750, 250, 'Collecting data (E2E)'],
        [1800, 500, 'Rendering charts (E2E)'],
        [3000, 1000, 'Writing PDF (E2E)'],
        [Infinity, 1000, 'completed'],
      ];
      const stageAt = (ms: number) => STAGES.findIndex(([until]) => ms < until);
      // Poll exactly at the advertised interval, as a client must, noting when each poll was in flight.
      const seen: Array<{ poll: number; msg: string; from: number; to: number }> = [];
      let task = created;
      const deadline = Date.now() + 15_000;
      while (task.status !== 'completed') {
        assert.ok(Date.now() < deadline, 'generate_report did not complete in time');
        await new Promise((r) => setTimeout(r, task.pollIntervalMs));
        const from = Date.now() - t0;
        task = ok(await getTask(c, created.taskId));
        assertSchema(GetTaskResultV2Schema, task, 'tasks/get');
        seen.push({ poll: task.pollIntervalMs, msg: task.status === 'completed' ? 'completed' : task.statusMessage, from, to: Date.now() - t0 });
      }
      // Each answer is the stage the server was in at some moment while the poll was in flight.
      for (const o of seen) {
        const lo = stageAt(o.from - 20);
        const hi = stageAt(o.to + 20);
        const i = STAGES.findIndex(([, poll, msg], k) => k >= lo && k <= hi && poll === o.poll && msg === o.msg);
        assert.ok(i >= 0, `poll in flight ${o.from}..${o.to} ms answered ${o.poll} ms / ${o.msg}`);
      }
      const polls = [250, ...seen.map((o) => o.poll)];
      for (let i = 1; i < polls.length; i++) assert.ok(polls[i]! >= polls[i - 1]!, `pollIntervalMs went down: ${polls}`);
      // A client that kept up (no poll took longer than a stage) saw every stage.
      if (seen.every((o) => o.to - o.from < 300)) assert.deepEqual([...new Set(polls)], [250, 500, 1000], `pollIntervalMs seen: ${polls}`);
      assert.ok(new Set(polls).size >= 2, 'pollIntervalMs changed');
      assert.equal(task.pollIntervalMs, 1000);
      assertContent(task.result);
      assert.deepEqual(task.result.structuredContent, { title: 'E2E', pages: 12 });
      assert.equal(task.result.content[1].type, 'resource_link');
    },
  },
  {
    name: 'send_payment: cancelled in its first second; a cancel after the commit point is too late',
    async run(c) {
      const early = await createTask(c, 'send_payment', { to: 'alice', amount: 5 });
      assert.equal(early.statusMessage, 'Authorizing payment');
      await cancel(c, early.taskId);
      const ackedAt = Date.now();
      const cancelled = await pollTerminal(c, early.taskId);
      // The cancel reached the server before its ack; if that was inside the first second, it must have won.
      if (ackedAt < Date.parse(early.createdAt) + 1000) assert.equal(cancelled.status, 'cancelled');
      else assert.ok(['cancelled', 'completed'].includes(cancelled.status), `a slow machine: cancel acked ${ackedAt - Date.parse(early.createdAt)} ms in`);
      if (cancelled.status === 'cancelled') assert.ok(!('result' in cancelled), 'a cancelled payment has no result');

      const late = await createTask(c, 'send_payment', { to: 'bob', amount: 7, currency: 'EUR' });
      await poll(c, late.taskId, (t) => t.statusMessage === 'Settling payment' || t.status !== 'working');
      await cancel(c, late.taskId); // acknowledged, but the money has moved
      const done = await pollTerminal(c, late.taskId);
      assert.equal(done.status, 'completed', 'a cancel after the commit point does not undo the payment');
      assert.equal(done.result.structuredContent.amount, 7);
      assert.match(done.result.structuredContent.paymentId, /^pay_/);
      assert.equal(done.result.content[0].text, 'Paid 7 EUR to bob');
    },
  },
  {
    name: 'send_payment: a repeated idempotency key returns the existing task (pays once)',
    async run(c) {
      const key = `op-${seededWord()}`;
      const first = await createTask(c, 'send_payment', { to: 'carol', amount: 3 }, { [IDEMPOTENCY_KEY]: key });
      const repeat = await createTask(c, 'send_payment', { to: 'carol', amount: 3 }, { [IDEMPOTENCY_KEY]: key });
      assert.equal(repeat.taskId, first.taskId, 'the repeated key returned the existing task');
      assert.equal(repeat.createdAt, first.createdAt);
      const done = await pollTerminal(c, first.taskId);
      assert.equal(done.status, 'completed');
      const after = await createTask(c, 'send_payment', { to: 'carol', amount: 3 }, { [IDEMPOTENCY_KEY]: key });
      assert.equal(after.taskId, first.taskId);
      assert.equal(after.status, 'completed', 'the repeat reports the existing outcome');
      // Another key is another payment.
      const other = await createTask(c, 'send_payment', { to: 'carol', amount: 3 }, { [IDEMPOTENCY_KEY]: `${key}-2` });
      assert.notEqual(other.taskId, first.taskId);
    },
  },
  {
    name: 'send_payment: a repeated idempotency key after a tasks/cancel still returns the existing task',
    async run(c) {
      const key = `op-${seededWord()}`;
      const first = await createTask(c, 'send_payment', { to: 'dave', amount: 9 }, { [IDEMPOTENCY_KEY]: key });
      await poll(c, first.taskId, (t) => t.statusMessage === 'Settling payment' || t.status !== 'working');
      await cancel(c, first.taskId);
      const repeat = await createTask(c, 'send_payment', { to: 'dave', amount: 9 }, { [IDEMPOTENCY_KEY]: key });
      assert.equal(repeat.taskId, first.taskId, 'a second payment was created for the same key');
    },
  },
  {
    name: 'approve_deploy: a URL-mode elicitation',
    async run(c) {
      const created = await createTask(c, 'approve_deploy', { service: 'billing' });
      const { task } = await poll(c, created.taskId, (t) => t.status === 'input_required');
      assertSchema(InputRequestsV2Schema, task.inputRequests, 'inputRequests');
      const req = task.inputRequests.approval;
      assert.equal(req.method, 'elicitation/create');
      assert.equal(req.params.mode, 'url');
      assert.match(req.params.url, /^https:\/\/deploy\.example\.com\/approve\/[0-9a-f]+$/);
      assert.ok(!req.params.url.includes(created.taskId.slice(0, 6)), 'the URL leaks the bearer taskId');
      assert.equal(typeof req.params.elicitationId, 'string');
      assert.match(req.params.message, /billing/);
      assert.ok(!('requestedSchema' in req.params), 'URL mode carries no form schema');
      await update(c, created.taskId, { approval: { action: 'accept' } });
      const done = await pollTerminal(c, created.taskId);
      assert.deepEqual(done.result.content, [{ type: 'text', text: 'Deployed billing' }]);
    },
  },
  {
    name: 'summarize_with_model: a sampling/createMessage request, answered with a CreateMessageResult',
    async run(c) {
      const created = await createTask(c, 'summarize_with_model', { text: 'Tasks are durable handles.' });
      const { task } = await poll(c, created.taskId, (t) => t.status === 'input_required');
      assertSchema(InputRequestsV2Schema, task.inputRequests, 'inputRequests');
      const req = task.inputRequests.summary;
      assert.equal(req.method, 'sampling/createMessage');
      assert.equal(req.params.maxTokens, 200);
      assert.equal(req.params.messages[0].role, 'user');
      assert.match(req.params.messages[0].content.text, /Tasks are durable handles\./);
      const reply = { role: 'assistant', content: { type: 'text', text: 'Handles that last.' }, model: 'test-model-1', stopReason: 'endTurn' };
      assertSchema(CreateMessageResultV2Schema, reply, 'CreateMessageResult');
      await update(c, created.taskId, { summary: reply });
      const done = await pollTerminal(c, created.taskId);
      assert.deepEqual(done.result.structuredContent, { summary: 'Handles that last.', model: 'test-model-1' });
      assert.equal(done.result.content[0].text, 'Summary: Handles that last.');
    },
  },
  {
    name: 'scan_roots: a roots/list request, answered with roots',
    async run(c) {
      const created = await createTask(c, 'scan_roots');
      const { task } = await poll(c, created.taskId, (t) => t.status === 'input_required');
      assertSchema(InputRequestsV2Schema, task.inputRequests, 'inputRequests');
      assert.equal(task.inputRequests.roots.method, 'roots/list');
      const reply = { roots: [{ uri: 'file:///srv/app', name: 'app' }, { uri: 'file:///srv/lib' }] };
      assertSchema(ListRootsResultV2Schema, reply, 'ListRootsResult');
      await update(c, created.taskId, { roots: reply });
      const done = await pollTerminal(c, created.taskId);
      assert.deepEqual(done.result.structuredContent, { roots: ['file:///srv/app', 'file:///srv/lib'] });
      assert.equal(done.result.content[0].text, 'Scanned 2 root(s): file:///srv/app, file:///srv/lib');
    },
  },
  {
    name: 'tasks/cancel on slow_compute: cancelled, and cancel stays an idempotent ack',
    async run(c) {
      const created = await createTask(c, 'slow_compute', { seconds: 30 });
      await cancel(c, created.taskId);
      const task = await pollTerminal(c, created.taskId);
      assert.equal(task.status, 'cancelled');
      assert.ok(Date.parse(task.lastUpdatedAt) >= Date.parse(task.createdAt));
      await cancel(c, created.taskId);
      assert.equal(ok(await getTask(c, created.taskId)).status, 'cancelled');
    },
  },
  {
    name: 'tasks/list and tasks/result are -32601; unknown taskIds are -32602',
    async run(c) {
      for (const m of ['tasks/list', 'tasks/result']) {
        const e = rpcError(await c.rpc(m, m === 'tasks/result' ? { taskId: 'x' } : {}), -32601, m);
        assert.match(e.message, new RegExp(m));
      }
      const unknown = 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';
      rpcError(await getTask(c, unknown), -32602, 'tasks/get');
      rpcError(await c.rpc('tasks/cancel', { taskId: unknown }), -32602, 'tasks/cancel');
      rpcError(await c.rpc('tasks/update', { taskId: unknown, inputResponses: {} }), -32602, 'tasks/update');
      // Without the extension, tasks/* is refused before any lookup.
      const e = rpcError(await getTask(c, unknown, { tasks: false }), -32021, 'tasks/get without the extension');
      assert.deepEqual(e.data, MISSING_CAPABILITY_DATA);
    },
  },
  {
    name: 'malformed arguments and inputResponses are -32602; an unknown tool is a -32602 error',
    async run(c) {
      const e = rpcError(await callTool(c, 'slow_compute', { seconds: 'x' }), -32602, 'seconds: "x"');
      assert.match(e.message, /seconds/);
      rpcError(await callTool(c, 'slow_compute', {}), -32602, 'missing seconds');
      rpcError(await callTool(c, 'slow_compute', { seconds: 'x' }, { tasks: false }), -32602, 'inline seconds: "x"');
      const u = rpcError(await callTool(c, 'no_such_tool', {}), -32602, 'unknown tool');
      assert.match(u.message, /no_such_tool/);
      const created = await createTask(c, 'confirm_delete', { filename: 'z' });
      rpcError(await c.rpc('tasks/update', { taskId: created.taskId, inputResponses: ['yes'] }), -32602, 'array inputResponses');
      assert.equal(ok(await getTask(c, created.taskId)).status, 'input_required');
    },
  },
];
