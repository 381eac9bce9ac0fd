// What the client declares, and how a -32021 is worded (exit 7, naming what is missing).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DECLARED_CLIENT_CAPABILITIES, declaresAll, missingCapabilityNames } from '../../../src/connection/client-capabilities.js';
import { toCliError } from '../../../src/app/remote-error.js';
import { RpcResponseError } from '../../../src/protocol/remote-errors.js';
import { renderHint } from '../../../src/hint.js';

test('the declared capabilities: every kind of input mcp-tasks answers, the tasks extension, no listChanged', () => {
  assert.deepEqual(DECLARED_CLIENT_CAPABILITIES, {
    elicitation: { form: {}, url: {} },
    sampling: {},
    roots: {},
    extensions: { 'io.modelcontextprotocol/tasks': {} },
  });
});

test('missingCapabilityNames: dotted paths and extension ids; undefined without the object', () => {
  assert.deepEqual(missingCapabilityNames({ requiredCapabilities: { elicitation: { form: {} }, sampling: {} } }), ['elicitation.form', 'sampling']);
  assert.deepEqual(missingCapabilityNames({ requiredCapabilities: { extensions: { 'io.example/x': {} } } }), ['extension io.example/x']);
  assert.deepEqual(missingCapabilityNames({ requiredCapabilities: { sampling: { tools: {} } } }), ['sampling.tools']);
  for (const d of [undefined, null, {}, { requiredCapabilities: ['sampling'] }, { requiredCapabilities: 'sampling' }]) assert.equal(missingCapabilityNames(d), undefined);
});

test('declaresAll: true only when every named capability is one mcp-tasks declares', () => {
  assert.equal(declaresAll({ requiredCapabilities: { elicitation: { form: {} } } }), true);
  assert.equal(declaresAll({ requiredCapabilities: { elicitation: {}, roots: {} } }), true);
  assert.equal(declaresAll({ requiredCapabilities: { extensions: { 'io.modelcontextprotocol/tasks': {} } } }), true);
  assert.equal(declaresAll({ requiredCapabilities: { sampling: { tools: {} } } }), false);
  assert.equal(declaresAll({ requiredCapabilities: { experimental: {} } }), false);
  assert.equal(declaresAll(undefined), false);
});

test('-32021 on tools/call: one line naming the capability, exit 7, a next step', () => {
  const e = toCliError(new RpcResponseError(-32021, 'Missing required client capability', { requiredCapabilities: { sampling: { tools: {} } } }, 'tools/call'), 'ai')!;
  assert.equal(e.exitCode, 7);
  assert.match(e.message, /client capability sampling\.tools \(server "ai"\), which mcp-tasks does not implement/);
  assert.doesNotMatch(e.message, /\n/);
  assert.match(renderHint(e.next, 'mcp-tasks'), /Nothing was run\. This tool cannot be used from mcp-tasks; `mcp-tasks server check ai`/);
});

test('-32021 naming a capability mcp-tasks declares: the server is at fault, and says so', () => {
  const e = toCliError(new RpcResponseError(-32021, 'x', { requiredCapabilities: { elicitation: { form: {} } } }, 'tasks/get'), 'srv')!;
  assert.equal(e.exitCode, 7);
  assert.match(e.message, /elicitation\.form is missing \(server "srv"\), but mcp-tasks declares it in every request/);
  assert.match(renderHint(e.next, 'mcp-tasks'), /report it to its operator/);
});

test('-32021 (or the older -32003) without data: says the server named nothing, and what it sent', () => {
  for (const code of [-32021, -32003]) {
    const e = toCliError(new RpcResponseError(code, 'capability \x1b[31mrequired', undefined, 'tools/call'), 'srv')!;
    assert.equal(e.exitCode, 7, String(code));
    assert.match(e.message, new RegExp(`did not name it \\(error ${code} without data.requiredCapabilities\\): capability required`));
    assert.doesNotMatch(e.message, /\x1b/, 'server text is sanitised');
  }
});

test('hostile capability names from the server are sanitised', () => {
  const e = toCliError(new RpcResponseError(-32021, 'x', { requiredCapabilities: { '\x1b]0;owned\x07evil\r': {} } }, 'tools/call'), 'srv')!;
  assert.doesNotMatch(e.message, /[\x00-\x1f\x7f-\x9f]/);
  assert.match(e.message, /evil/);
});
