// Which client capabilities an input request needs, and which a request's envelope lacks.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { capabilityNames, declaredCapabilities, missingCapabilities, requiredFor } from '../../../src/demo/input-capabilities.js';
import type { InputRequest } from '../../../src/demo/tools.js';

const form: InputRequest = { method: 'elicitation/create', params: { mode: 'form', message: 'm', requestedSchema: { type: 'object', properties: {} } } };
const modeless: InputRequest = { method: 'elicitation/create', params: { message: 'm', requestedSchema: { type: 'object', properties: {} } } };
const url: InputRequest = { method: 'elicitation/create', params: { mode: 'url', message: 'm', url: 'https://x.example', elicitationId: 'e' } };
const sampling: InputRequest = { method: 'sampling/createMessage', params: { messages: [], maxTokens: 5 } };
const samplingTools: InputRequest = { method: 'sampling/createMessage', params: { messages: [], maxTokens: 5, tools: [] } };
const roots: InputRequest = { method: 'roots/list', params: {} };

test('requiredFor: elicitation by mode (none means form), sampling (tools when asked), roots', () => {
  assert.deepEqual(requiredFor(form), { elicitation: { form: {} } });
  assert.deepEqual(requiredFor(modeless), { elicitation: { form: {} } });
  assert.deepEqual(requiredFor(url), { elicitation: { url: {} } });
  assert.deepEqual(requiredFor(sampling), { sampling: {} });
  assert.deepEqual(requiredFor(samplingTools), { sampling: { tools: {} } });
  assert.deepEqual(requiredFor(roots), { roots: {} });
});

test('missingCapabilities: nothing declared → all of it, merged per capability', () => {
  assert.deepEqual(missingCapabilities({ a: form, b: url, c: sampling, d: roots }, {}), {
    elicitation: { form: {}, url: {} },
    sampling: {},
    roots: {},
  });
});

test('missingCapabilities: what mcp-tasks declares covers every demo input request', () => {
  const declared = { elicitation: { form: {}, url: {} }, sampling: {}, roots: {}, extensions: { 'io.modelcontextprotocol/tasks': {} } };
  assert.equal(missingCapabilities({ a: form, b: url, c: sampling, d: roots, e: modeless }, declared), undefined);
  assert.deepEqual(missingCapabilities({ s: samplingTools }, declared), { sampling: { tools: {} } }, 'sampling with tools needs sampling.tools');
});

test('missingCapabilities: a bare elicitation {} means form, not url; an explicit mode removes the implication', () => {
  assert.equal(missingCapabilities({ a: form }, { elicitation: {} }), undefined);
  assert.deepEqual(missingCapabilities({ b: url }, { elicitation: {} }), { elicitation: { url: {} } });
  assert.deepEqual(missingCapabilities({ a: form }, { elicitation: { url: {} } }), { elicitation: { form: {} } });
  assert.deepEqual(missingCapabilities({ a: form }, { elicitation: 'yes' }), { elicitation: { form: {} } }, 'a non-object declaration is none');
});

test('declaredCapabilities reads the envelope; anything malformed is no declaration', () => {
  const key = 'io.modelcontextprotocol/clientCapabilities';
  assert.deepEqual(declaredCapabilities({ _meta: { [key]: { sampling: {} } } }), { sampling: {} });
  for (const p of [{}, { _meta: null }, { _meta: { [key]: [] } }, { _meta: { [key]: 'x' } }]) assert.deepEqual(declaredCapabilities(p as never), {});
});

test('capabilityNames: dotted paths for messages', () => {
  assert.equal(capabilityNames({ elicitation: { form: {}, url: {} }, sampling: {} }), 'elicitation.form, elicitation.url, sampling');
});
