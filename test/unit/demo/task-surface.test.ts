// TaskSurface: which requests the demo serves itself, the capability gate, argument checks,
// multi round-trip preflight, idempotency keys and the drop-create-response fault.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CreateTaskResultV2Schema, InputRequiredCallToolResultV2Schema } from '@modelcontextprotocol/ext-tasks/core/v2';
import { IDEMPOTENCY_META_KEY } from '../../../src/demo/task-engine.js';
import { checkArgs, TaskSurface, type RpcRequest, type SurfaceOutcome } from '../../../src/demo/task-surface.js';
import { DEMO_TOOLS } from '../../../src/demo/tools.js';
import { assertSchema, readStore, type Json } from '../../helpers/demo-server.js';
import { engineFixture, tool } from '../../helpers/demo-engine.js';

const req = (method: string, params?: Record<string, unknown>): RpcRequest => ({ jsonrpc: '2.0', id: 1, method, ...(params ? { params } : {}) });

function result(o: SurfaceOutcome): Json {
  assert.equal(o.kind, 'result', `expected a result, got ${JSON.stringify(o)}`);
  return (o as { result: Json }).result;
}
function error(o: SurfaceOutcome, code: number): { code: number; message: string; data?: Json } {
  assert.equal(o.kind, 'error', `expected error ${code}, got ${JSON.stringify(o).slice(0, 300)}`);
  const e = o as { code: number; message: string; data?: Json };
  assert.equal(e.code, code, e.message);
  return e;
}
const MISSING_CAPABILITY_DATA = { requiredCapabilities: { extensions: { 'io.modelcontextprotocol/tasks': {} } } };

test('claims: tasks/* and task-capable tools; sync-only and unknown tools go to the SDK', (t) => {
  const { surface } = engineFixture(t);
  for (const m of ['tasks/get', 'tasks/update', 'tasks/cancel', 'tasks/list', 'tasks/result']) assert.equal(surface.claims(req(m, {})), true, m);
  assert.equal(surface.claims(req('tools/call', { name: 'greet' })), false);
  assert.equal(surface.claims(req('tools/call', { name: 'no_such_tool' })), false);
  assert.equal(surface.claims(req('tools/call')), false);
  for (const m of ['tools/list', 'server/discover', 'ping', 'resources/list']) assert.equal(surface.claims(req(m, {})), false, m);
  for (const t2 of DEMO_TOOLS.filter((x) => x.taskSupport !== 'forbidden')) assert.equal(surface.claims(req('tools/call', { name: t2.name })), true, t2.name);
});

test('tasks/list and tasks/result (removed in 2026-07-28) are -32601', async (t) => {
  const fx = engineFixture(t);
  for (const m of ['tasks/list', 'tasks/result']) {
    const e = error(await fx.handle(m, { taskId: 'x' }), -32601);
    assert.match(e.message, new RegExp(m));
  }
  error(await fx.handle('tasks/unknown', {}), -32601);
});

test('tasks/* without the extension declared: -32021 before any lookup', async (t) => {
  const fx = engineFixture(t);
  const { taskId } = fx.create('slow_compute', { seconds: 1 });
  for (const [m, p] of [
    ['tasks/get', { taskId }],
    ['tasks/get', { taskId: 'unknown' }],
    ['tasks/cancel', { taskId }],
    ['tasks/update', { taskId, inputResponses: {} }],
  ] as const) {
    const e = error(await fx.handle(m, p, { tasks: false }), -32021);
    assert.deepEqual(e.data, MISSING_CAPABILITY_DATA, m);
  }
  assert.equal(fx.store.get(taskId)!.cancelRequestedAtMs, undefined, 'the refused cancel did nothing');
  // A malformed declaration (not an empty object) is no declaration.
  const bad = await fx.surface.handle({
    jsonrpc: '2.0',
    id: 9,
    method: 'tasks/get',
    params: { taskId, _meta: { 'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': true } } } },
  });
  error(bad, -32021);
});

test('tools/call: a task when the extension is declared, validated as CreateTaskResult', async (t) => {
  const fx = engineFixture(t);
  const r = result(await fx.handle('tools/call', { name: 'slow_compute', arguments: { seconds: 2 } }));
  assertSchema(CreateTaskResultV2Schema, r, 'CreateTaskResult');
  assert.equal(r.resultType, 'task');
  assert.equal(r.status, 'working');
  assert.ok(fx.store.get(r.taskId), 'stored before the handle is returned');
  // tasks/get through the surface answers for it at once.
  const g = result(await fx.handle('tasks/get', { taskId: r.taskId }));
  assert.equal(g.taskId, r.taskId);
  assert.equal(g.resultType, 'complete');
});

test('tools/call: task-required tools without the extension are -32021 with requiredCapabilities', async (t) => {
  const fx = engineFixture(t);
  for (const name of ['failing_job', 'test_tool_with_task']) {
    const e = error(await fx.handle('tools/call', { name, arguments: {} }, { tasks: false }), -32021);
    assert.deepEqual(e.data, MISSING_CAPABILITY_DATA, name);
    assert.match(e.message, new RegExp(name));
  }
  assert.equal(fx.store.summaries().length, 0, 'no task was created');
});

test('tools/call: without the extension, an input-needing tool asks with an InputRequiredResult', async (t) => {
  const fx = engineFixture(t);
  const r = result(await fx.handle('tools/call', { name: 'confirm_delete', arguments: { filename: 'f' } }, { tasks: false }));
  assertSchema(InputRequiredCallToolResultV2Schema, r, 'InputRequiredResult');
  assert.deepEqual(Object.keys(r.inputRequests), ['confirm']);
  const done = result(
    await fx.handle('tools/call', { name: 'confirm_delete', arguments: { filename: 'f' }, inputResponses: { confirm: { action: 'accept', content: { confirm: true } } }, requestState: r.requestState }, { tasks: false }),
  );
  assert.equal(done.resultType, 'complete');
  assert.deepEqual(done.content, [{ type: 'text', text: 'Deleted f' }]);
  assert.equal(fx.store.summaries().length, 0, 'inline calls store nothing');
});

test('tools/call: protocol_error_job inline (no extension) is a JSON-RPC error', async (t) => {
  const fx = engineFixture(t);
  const e = error(await fx.handle('tools/call', { name: 'protocol_error_job', arguments: {} }, { tasks: false }), -32603);
  assert.match(e.message, /simulated protocol failure/);
});

test('preflight_check: InputRequiredResult first, then the retry with inputResponses creates the task', async (t) => {
  const fx = engineFixture(t);
  const ask = result(await fx.handle('tools/call', { name: 'preflight_check', arguments: {} }));
  assertSchema(InputRequiredCallToolResultV2Schema, ask, 'InputRequiredResult');
  assert.equal(ask.resultType, 'input_required');
  assert.deepEqual(Object.keys(ask.inputRequests), ['environment']);
  assert.deepEqual(ask.inputRequests.environment.params.requestedSchema.properties.environment.enum, ['staging', 'production']);
  assert.equal(typeof ask.requestState, 'string');
  assert.deepEqual(JSON.parse(Buffer.from(ask.requestState, 'base64url').toString('utf8')), { tool: 'preflight_check', args: {} });
  assert.equal(fx.store.summaries().length, 0, 'no task before the input arrives');

  const created = result(
    await fx.handle('tools/call', {
      name: 'preflight_check',
      arguments: {},
      inputResponses: { environment: { action: 'accept', content: { environment: 'production' } }, extra: { action: 'accept' } },
      requestState: ask.requestState,
    }),
  );
  assertSchema(CreateTaskResultV2Schema, created, 'CreateTaskResult');
  assert.equal(created.statusMessage, 'Checking production');
  assert.deepEqual(Object.keys(fx.store.get(created.taskId)!.answers), ['environment'], 'only the asked key is kept');
  const done = await fx.getAt(created.taskId, 1000);
  assert.equal(done.status, 'completed');
  assert.equal(done.result.content[0].text, 'Preflight check of production passed');
});

test('test_tool_with_task: asks user_name, then the task greets that name', async (t) => {
  const fx = engineFixture(t);
  const ask = result(await fx.handle('tools/call', { name: 'test_tool_with_task', arguments: {} }));
  assertSchema(InputRequiredCallToolResultV2Schema, ask, 'InputRequiredResult');
  assert.deepEqual(Object.keys(ask.inputRequests), ['user_name']);
  const created = result(
    await fx.handle('tools/call', {
      name: 'test_tool_with_task',
      arguments: {},
      inputResponses: { user_name: { action: 'accept', content: { name: 'Ada' } } },
      requestState: ask.requestState,
    }),
  );
  assert.equal(created.resultType, 'task');
  assert.equal((await fx.getAt(created.taskId, 499)).status, 'working');
  const done = await fx.getAt(created.taskId, 500);
  assert.equal(done.result.content[0].text, 'Hello, Ada! Your task is complete.');
});

test('idempotency key in _meta: a repeat returns the same task', async (t) => {
  const fx = engineFixture(t);
  const meta = { [IDEMPOTENCY_META_KEY]: 'pay-42' };
  const a = result(await fx.handle('tools/call', { name: 'send_payment', arguments: { to: 'x', amount: 5 } }, { meta }));
  fx.at(300);
  const b = result(await fx.handle('tools/call', { name: 'send_payment', arguments: { to: 'x', amount: 5 } }, { meta }));
  assert.equal(b.taskId, a.taskId);
  assert.equal(b.createdAt, a.createdAt);
  assert.equal(fx.store.summaries().length, 1);
  // An empty or non-string key is no key.
  for (const key of ['', 7]) {
    const c = result(await fx.handle('tools/call', { name: 'send_payment', arguments: { to: 'x', amount: 5 } }, { meta: { [IDEMPOTENCY_META_KEY]: key } }));
    assert.notEqual(c.taskId, a.taskId);
  }
});

test('drop-create-response fault: the task is stored, the response dropped; a repeated key is answered', async (t) => {
  const fx = engineFixture(t, { dropCreateResponse: true });
  const meta = { [IDEMPOTENCY_META_KEY]: 'op-drop' };
  const first = await fx.handle('tools/call', { name: 'slow_compute', arguments: { seconds: 1 } }, { meta });
  assert.deepEqual(first, { kind: 'drop' });
  assert.equal(Object.keys(readStore(fx.path).tasks).length, 1, 'the task was stored');
  const again = result(await fx.handle('tools/call', { name: 'slow_compute', arguments: { seconds: 1 } }, { meta }));
  assertSchema(CreateTaskResultV2Schema, again, 'CreateTaskResult');
  const taskId = again.taskId as string;
  assert.ok(fx.store.get(taskId), 'the stored task is the one handed back');
  assert.equal(Object.keys(readStore(fx.path).tasks).length, 1, 'no second task');
  // Only task creation is dropped: gets and sync-path answers are delivered.
  assert.equal(result(await fx.handle('tasks/get', { taskId })).taskId, taskId);
  const inline = result(await fx.handle('tools/call', { name: 'confirm_delete', arguments: { filename: 'x' } }, { tasks: false }));
  assert.equal(inline.resultType, 'input_required');
});

test('malformed arguments are -32602 and create nothing', async (t) => {
  const fx = engineFixture(t);
  const cases: Array<[string, unknown, RegExp]> = [
    ['slow_compute', { seconds: 'x' }, /seconds must be number/],
    ['slow_compute', {}, /must have required property 'seconds'/],
    ['slow_compute', { seconds: 1, label: 5 }, /label must be string/],
    ['slow_compute', [1], /arguments must be an object/],
    ['slow_compute', 'seconds=1', /arguments must be an object/],
    ['send_payment', { to: 'x' }, /must have required property 'amount'/],
    ['confirm_delete', { filename: true }, /filename must be string/],
    ['generate_report', { seconds: '4' }, /seconds must be number/],
  ];
  for (const [name, args, pattern] of cases) {
    for (const tasks of [true, false]) {
      const e = error(await fx.handle('tools/call', { name, arguments: args }, { tasks }), -32602);
      assert.match(e.message, pattern, `${name} ${JSON.stringify(args)}`);
    }
  }
  assert.equal(fx.store.summaries().length, 0);
});

test('out-of-range arguments are -32602 (minimum / maximum / exclusiveMinimum)', async (t) => {
  const fx = engineFixture(t);
  for (const [name, args] of [
    ['send_payment', { to: 'x', amount: -100 }],
    ['send_payment', { to: 'x', amount: 0 }],
    ['slow_compute', { seconds: -1 }],
    ['slow_compute', { seconds: 100_000 }],
  ] as const) {
    error(await fx.handle('tools/call', { name, arguments: args }), -32602);
  }
  assert.equal(fx.store.summaries().length, 0);
});

test('checkArgs: required keys and primitive types, other keys pass', () => {
  assert.equal(checkArgs(tool('slow_compute'), { seconds: 1 }), undefined);
  assert.equal(checkArgs(tool('slow_compute'), { seconds: 1, unknownKey: { deep: true } }), undefined);
  assert.equal(checkArgs(tool('generate_report'), {}), undefined, 'no required keys');
  assert.match(checkArgs(tool('greet'), {}) ?? '', /must have required property 'name'/);
  assert.match(checkArgs(tool('send_payment'), { to: 'a', amount: '1' }) ?? '', /amount must be number/);
  assert.match(checkArgs(tool('slow_compute'), { seconds: null }) ?? '', /seconds must be number/);
});

test('an internal failure becomes a -32603 error outcome, never a throw', async (t) => {
  const fx = engineFixture(t);
  const { taskId } = fx.create('slow_compute', { seconds: 1 });
  // A task stored by some other version under a tool this build does not know.
  fx.store.update(taskId, (x) => {
    x.tool = 'retired_tool';
  });
  const surface = new TaskSurface(fx.engine);
  const o = await surface.handle({ jsonrpc: '2.0', id: 3, method: 'tasks/get', params: { taskId, _meta: { 'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} } } } } });
  error(o, -32603);
});

// Input requests go only to clients that declared the capability (-32021 with requiredCapabilities otherwise).

const storedTasks = (fx: ReturnType<typeof engineFixture>) => Object.keys(readStore(fx.path).tasks).length;

test('input gate: a task-creating call that would ask for input it cannot send is -32021 and creates nothing', async (t) => {
  const fx = engineFixture(t);
  for (const [name, args, declared, missing] of [
    ['confirm_delete', { filename: 'a' }, {}, { elicitation: { form: {} } }],
    ['multi_input', {}, { sampling: {} }, { elicitation: { form: {} } }],
    ['approve_deploy', {}, { elicitation: { form: {} } }, { elicitation: { url: {} } }],
    ['summarize_with_model', { text: 'x' }, { elicitation: { form: {}, url: {} } }, { sampling: {} }],
    ['scan_roots', {}, { sampling: {} }, { roots: {} }],
  ] as const) {
    for (const tasks of [true, false]) {
      const e = error(await fx.handle('tools/call', { name, arguments: args }, { tasks, capabilities: declared }), -32021);
      assert.deepEqual(e.data, { requiredCapabilities: missing }, `${name} tasks=${tasks}`);
      assert.match(e.message, new RegExp(`Missing required client capability: ${Object.keys(missing)[0]}`));
    }
  }
  assert.equal(storedTasks(fx), 0, 'no task was created for a client that could not answer it');
  // Declared: the same calls create tasks (a bare elicitation {} declares form).
  result(await fx.handle('tools/call', { name: 'confirm_delete', arguments: { filename: 'a' } }, { capabilities: { elicitation: {} } }));
  result(await fx.handle('tools/call', { name: 'scan_roots', arguments: {} }, { capabilities: { roots: {} } }));
  assert.equal(storedTasks(fx), 2);
});

test('input gate: preflight (MRTR) input requests need the capability too', async (t) => {
  const fx = engineFixture(t);
  const e = error(await fx.handle('tools/call', { name: 'preflight_check', arguments: {} }, { capabilities: {} }), -32021);
  assert.deepEqual(e.data, { requiredCapabilities: { elicitation: { form: {} } } });
  const asked = result(await fx.handle('tools/call', { name: 'preflight_check', arguments: {} }, { capabilities: { elicitation: { form: {} } } }));
  assert.equal(asked.resultType, 'input_required');
  // The conformance diagnostic: sampling, asked before anything runs.
  const s = error(await fx.handle('tools/call', { name: 'test_missing_capability', arguments: {} }, { tasks: false, capabilities: {} }), -32021);
  assert.deepEqual(s.data, { requiredCapabilities: { sampling: {} } });
  const ok = result(await fx.handle('tools/call', { name: 'test_missing_capability', arguments: {} }, { tasks: false, capabilities: { sampling: {} } }));
  assertSchema(InputRequiredCallToolResultV2Schema, ok, 'InputRequiredResult');
  assert.equal(ok.inputRequests.probe.method, 'sampling/createMessage');
  const stream = result(await fx.handle('tools/call', { name: 'test_streaming_elicitation', arguments: {} }, { tasks: false, capabilities: { elicitation: {} } }));
  assert.equal(stream.resultType, 'input_required');
  assert.equal(stream.inputRequests.proceed.method, 'elicitation/create');
});

test('input gate: tasks/get of a task waiting for input is -32021 for a client that cannot answer it', async (t) => {
  const fx = engineFixture(t);
  const created = result(await fx.handle('tools/call', { name: 'approve_deploy', arguments: {} }));
  const e = error(await fx.handle('tasks/get', { taskId: created.taskId }, { capabilities: { elicitation: { form: {} } } }), -32021);
  assert.deepEqual(e.data, { requiredCapabilities: { elicitation: { url: {} } } });
  assert.doesNotMatch(JSON.stringify(e), /deploy\.example\.com/, 'the refused request reveals nothing of the input request');
  const got = result(await fx.handle('tasks/get', { taskId: created.taskId }));
  assert.equal(got.status, 'input_required');
  assert.equal(got.inputRequests.approval.params.mode, 'url');
  // A task not waiting for input is served to anyone who declared the extension.
  const plain = result(await fx.handle('tools/call', { name: 'slow_compute', arguments: { seconds: 1 } }, { capabilities: {} }));
  assert.equal(result(await fx.handle('tasks/get', { taskId: plain.taskId }, { capabilities: {} })).status, 'working');
});

test('every unknown tasks/* method is -32601, before the capability gate', async (t) => {
  const fx = engineFixture(t);
  for (const m of ['tasks/list', 'tasks/result', 'tasks/frobnicate']) error(await fx.handle(m, {}, { tasks: false }), -32601);
});

test('hostile-ids: keys and defaults are hostile on the way out; answers to the hostile keys land', async (t) => {
  const fx = engineFixture(t, { hostileIds: true });
  const created = result(await fx.handle('tools/call', { name: 'multi_input', arguments: {} }));
  assert.match(created.taskId, /^\x1b\[31m[A-Za-z0-9_-]{32}\r\u009b0m$/);
  const got = await fx.getAt(created.taskId, 0);
  const keys = Object.keys(got.inputRequests);
  for (const k of keys) assert.match(k, /^\x1b\[7m(name|color)\r\u009b2K\x1b\]0;owned\x07$/);
  const nameKey = keys.find((k) => k.includes('name'))!;
  assert.match(got.inputRequests[nameKey].params.requestedSchema.properties.name.default, /\x1b\]0;owned\x07.*\r\u009b6n/);
  result(await fx.handle('tasks/update', { taskId: created.taskId, inputResponses: { [nameKey]: { action: 'accept', content: { name: 'Ada' } } } }));
  const after = await fx.getAt(created.taskId, 10);
  assert.deepEqual(Object.keys(after.inputRequests).map((k) => k.includes('color')), [true], 'only color is left');
  // Preflight keys too, and the retry with the hostile key is taken.
  const asked = result(await fx.handle('tools/call', { name: 'preflight_check', arguments: {} }));
  const [envKey] = Object.keys(asked.inputRequests);
  assert.match(envKey!, /\x1b\[7menvironment/);
  const task = result(await fx.handle('tools/call', { name: 'preflight_check', arguments: {}, inputResponses: { [envKey!]: { action: 'accept', content: { environment: 'production' } } }, requestState: asked.requestState }));
  assert.equal(task.resultType, 'task');
});
