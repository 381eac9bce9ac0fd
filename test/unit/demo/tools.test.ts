// The demo tool catalogue and --fault parsing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ToolV2Schema } from '@modelcontextprotocol/ext-tasks/core/v2';
import { NO_FAULTS, parseFaults } from '../../../src/demo/task-engine.js';
import { DEMO_TOOLS, findTool, hostileText, plainText } from '../../../src/demo/tools.js';
import { assertSchema } from '../../helpers/demo-server.js';

const README_TOOLS = [
  'greet',
  'slow_compute',
  'failing_job',
  'protocol_error_job',
  'confirm_delete',
  'multi_input',
  'test_tool_with_task',
  'generate_report',
  'send_payment',
  'approve_deploy',
  'summarize_with_model',
  'scan_roots',
  'preflight_check',
  'test_missing_capability',
  'test_streaming_elicitation',
  'test_logging_tool',
];

test('the catalogue holds exactly the documented tools, each well-formed', () => {
  assert.deepEqual(DEMO_TOOLS.map((t) => t.name).sort(), [...README_TOOLS].sort());
  for (const t of DEMO_TOOLS) {
    assertSchema(ToolV2Schema, { name: t.name, description: t.description, inputSchema: t.inputSchema, ...(t.annotations ? { annotations: t.annotations } : {}) }, t.name);
    // Sync-only tools run; task-capable ones have a timeline; never both, never neither.
    if (t.taskSupport === 'forbidden') assert.ok(t.run && !t.timeline, t.name);
    else assert.ok(t.timeline && !t.run, t.name);
  }
  assert.equal(findTool('greet')?.taskSupport, 'forbidden');
  assert.equal(findTool('failing_job')?.taskSupport, 'required');
  assert.equal(findTool('test_tool_with_task')?.taskSupport, 'required');
  assert.equal(findTool('slow_compute')?.taskSupport, 'optional');
  assert.equal(findTool('nope'), undefined);
  assert.equal(findTool(undefined), undefined);
  assert.deepEqual(findTool('send_payment')?.annotations, { destructiveHint: true, idempotentHint: false, readOnlyHint: false, openWorldHint: true });
});

test('greet answers synchronously', () => {
  assert.deepEqual(findTool('greet')!.run!({ name: 'Ada' }), { content: [{ type: 'text', text: 'Hello, Ada!' }] });
});

test('text styles: plain is the identity, hostile wraps in escapes and a 5,000-character run', () => {
  assert.equal(plainText('hi'), 'hi');
  const h = hostileText('hi');
  assert.ok(h.includes('hi'));
  assert.ok(h.includes('\x1b[2J') && h.includes('\x1b]0;') && h.includes('\u009b'));
  assert.ok(h.length > 5000);
});

test('parseFaults: every documented fault, repeatable', () => {
  assert.deepEqual(parseFaults([]), NO_FAULTS);
  assert.deepEqual(parseFaults(['drop-create-response', 'ttl=5000', 'rate-limit', 'slow-get=250', 'hostile-text', 'dash-task-ids', 'hostile-ids']), {
    dropCreateResponse: true,
    ttlMs: 5000,
    rateLimit: true,
    slowGetMs: 250,
    hostileText: true,
    dashTaskIds: true,
    hostileIds: true,
  });
  assert.equal(parseFaults(['ttl=0']).ttlMs, 0);
  assert.equal(parseFaults(['ttl=1', 'ttl=2']).ttlMs, 2, 'the last value wins');
});

test('parseFaults: unknown names and bad numbers are refused with a message naming them', () => {
  assert.throws(() => parseFaults(['bogus']), /unknown fault "bogus"; known: drop-create-response/);
  assert.throws(() => parseFaults(['rate-limit', 'Rate-Limit']), /unknown fault "Rate-Limit"/);
  for (const bad of ['ttl', 'ttl=abc', 'ttl=-5', 'ttl=1.5', 'slow-get=x']) {
    const name = bad.split('=')[0]!;
    assert.throws(() => parseFaults([bad]), new RegExp(`--fault ${name} needs a number of milliseconds`), bad);
  }
});

test('parseFaults: an empty value (ttl=) is refused, not read as 0', () => {
  assert.throws(() => parseFaults(['ttl=']), /needs a number of milliseconds/);
  assert.throws(() => parseFaults(['slow-get=']), /needs a number of milliseconds/);
});
