// The pure answering rules: which keys are sent, which are stale or already answered, and
// whether a scripted response fits the request it answers (nothing is sent unless all fit).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { checkField, checkResponse, planAnswers, withFormDefaults } from '../../../src/tasks/input-responses.js';
import { enumValues } from '../../../src/tasks/input-fields.js';
import type { InputRequestSnapshot } from '../../../src/tasks/task-snapshot.js';

const form = (properties: Record<string, unknown>, required: string[] = [], message = 'Please answer'): InputRequestSnapshot => ({
  method: 'elicitation/create',
  params: { mode: 'form', message, requestedSchema: { type: 'object', properties, required } },
});
const url: InputRequestSnapshot = { method: 'elicitation/create', params: { mode: 'url', message: 'Approve', url: 'https://example.com/a', elicitationId: 'e1' } };
const sampling: InputRequestSnapshot = { method: 'sampling/createMessage', params: { messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }], maxTokens: 10 } };
const roots: InputRequestSnapshot = { method: 'roots/list', params: {} };

// The demo server's requests, as the CLI sees them.
const confirm = form({ confirm: { type: 'boolean', title: 'Confirm deletion' } }, ['confirm']);
const name = form({ name: { type: 'string', title: 'Name', minLength: 1 } }, ['name']);
const color = form({ color: { type: 'string', title: 'Colour', enum: ['red', 'green', 'blue'] } }, ['color']);

const accept = (content: Record<string, unknown>) => ({ action: 'accept', content });
const reply = { role: 'assistant', content: { type: 'text', text: 'A summary.' }, model: 'human' };

describe('checkResponse', () => {
  test('a well-formed accept, decline and cancel fit a form request', () => {
    assert.equal(checkResponse('confirm', confirm, accept({ confirm: true })), undefined);
    assert.equal(checkResponse('confirm', confirm, accept({ confirm: false })), undefined);
    assert.equal(checkResponse('confirm', confirm, { action: 'decline' }), undefined);
    assert.equal(checkResponse('confirm', confirm, { action: 'cancel' }), undefined);
  });

  test('a field of the wrong type names the key and the field', () => {
    const m = checkResponse('confirm', confirm, accept({ confirm: 'yes' }));
    assert.ok(m);
    assert.match(m, /"confirm"/);
    assert.match(m, /field confirm must be true or false/);
  });

  test('an enum value not allowed names the key, the field and the allowed values', () => {
    const m = checkResponse('color', color, accept({ color: 'purple' }));
    assert.ok(m);
    assert.match(m, /answer for "color": field color must be one of red, green, blue/);
  });

  test('key and field are told apart (test_tool_with_task: key user_name, field name)', () => {
    const userName = form({ name: { type: 'string', title: 'Name' } }, ['name']);
    const m = checkResponse('user_name', userName, accept({ name: 42 }));
    assert.ok(m);
    assert.match(m, /answer for "user_name": field name must be a string/);
  });

  test('a missing required field, an unknown field and too short a string are refused', () => {
    assert.match(checkResponse('confirm', confirm, accept({})) ?? '', /field "confirm" is required/);
    assert.match(checkResponse('confirm', confirm, { action: 'accept' }) ?? '', /field "confirm" is required/);
    assert.match(checkResponse('confirm', confirm, accept({ confirm: true, extra: 1 })) ?? '', /field "extra" is not in the requested form/);
    assert.match(checkResponse('name', name, accept({ name: '' })) ?? '', /name needs at least 1 character/);
  });

  test('something that is not an ElicitResult is refused with the expected shape', () => {
    for (const bad of ['yes', true, null, [], {}, { action: 'maybe' }, { action: 'accept', content: 'x' }]) {
      const m = checkResponse('confirm', confirm, bad);
      assert.ok(m, `${JSON.stringify(bad)} was accepted`);
      assert.match(m, /answer for "confirm": not an elicitation result/);
      assert.match(m, /expected \{"action":"accept"\|"decline"\|"cancel"/);
    }
  });

  test('URL mode: accept carries no form to check', () => {
    assert.equal(checkResponse('approval', url, { action: 'accept' }), undefined);
    assert.equal(checkResponse('approval', url, { action: 'decline' }), undefined);
  });

  test('sampling: a CreateMessageResult fits, anything else does not', () => {
    assert.equal(checkResponse('summary', sampling, reply), undefined);
    assert.match(checkResponse('summary', sampling, { action: 'accept', content: { text: 'x' } }) ?? '', /answer for "summary": not a sampling result/);
    assert.match(checkResponse('summary', sampling, 'A summary.') ?? '', /not a sampling result/);
  });

  test('roots: a ListRootsResult fits, anything else does not', () => {
    assert.equal(checkResponse('roots', roots, { roots: [] }), undefined);
    assert.equal(checkResponse('roots', roots, { roots: [{ uri: 'file:///tmp/x', name: 'x' }] }), undefined);
    assert.match(checkResponse('roots', roots, ['file:///tmp/x']) ?? '', /answer for "roots": not a roots result/);
  });

  test('a request method mcp-tasks does not know is never answered', () => {
    assert.match(checkResponse('k', { method: 'something/else' }, {}) ?? '', /cannot answer something\/else requests/);
  });

  test('a field named like an Object.prototype member is not treated as part of the form', () => {
    assert.match(checkResponse('confirm', confirm, accept({ confirm: true, constructor: 1 })) ?? '', /field "constructor" is not in the requested form/);
  });
});

describe('checkField', () => {
  test('numbers and integers with bounds', () => {
    const f = { type: 'integer', minimum: 1, maximum: 10 };
    assert.equal(checkField('n', f, 5), undefined);
    assert.match(checkField('n', f, 5.5) ?? '', /whole number/);
    assert.match(checkField('n', f, 0) ?? '', /≥ 1/);
    assert.match(checkField('n', f, 11) ?? '', /≤ 10/);
    assert.match(checkField('n', f, '5') ?? '', /must be a number/);
    assert.match(checkField('n', { type: 'number' }, Number.NaN) ?? '', /must be a number/);
  });

  test('string length and formats', () => {
    assert.match(checkField('s', { type: 'string', maxLength: 3 }, 'abcd') ?? '', /at most 3/);
    assert.equal(checkField('e', { type: 'string', format: 'email' }, 'a@b.co'), undefined);
    assert.match(checkField('e', { type: 'string', format: 'email' }, 'not-an-email') ?? '', /valid email/);
    assert.equal(checkField('d', { type: 'string', format: 'date' }, '2026-11-30'), undefined);
    assert.match(checkField('d', { type: 'string', format: 'date' }, '30/11/2026') ?? '', /valid date/);
  });

  test('titled single-select (oneOf) and multi-select (array of enum)', () => {
    const single = { type: 'string', oneOf: [{ const: 'a', title: 'A' }, { const: 'b', title: 'B' }] };
    assert.deepEqual(enumValues(single), ['a', 'b']);
    assert.equal(checkField('x', single, 'b'), undefined);
    assert.match(checkField('x', single, 'c') ?? '', /one of a, b/);
    const multi = { type: 'array', items: { enum: ['r', 'g'] }, minItems: 1, maxItems: 2 };
    assert.equal(checkField('m', multi, ['r']), undefined);
    assert.match(checkField('m', multi, ['x']) ?? '', /"x" is not one of r, g/);
    assert.match(checkField('m', multi, []) ?? '', /at least 1/);
    assert.match(checkField('m', multi, ['r', 'g', 'r']) ?? '', /at most 2/);
    assert.match(checkField('m', multi, 'r') ?? '', /list of strings/);
  });

  test('no schema for the field: nothing to check', () => {
    assert.equal(checkField('x', undefined, { anything: true }), undefined);
  });
});

describe('planAnswers', () => {
  test('a scripted response for the one pending key is sent', () => {
    const plan = planAnswers({ confirm }, [], { confirm: accept({ confirm: true }) });
    assert.deepEqual(plan, { send: { confirm: accept({ confirm: true }) }, stale: [], alreadyAnswered: [], unanswered: [], errors: [] });
  });

  test('two keys answered one at a time: the other stays unanswered', () => {
    const first = planAnswers({ name, color }, [], { name: accept({ name: 'Ada' }) });
    assert.deepEqual(Object.keys(first.send), ['name']);
    assert.deepEqual(first.unanswered, ['color']);
    const second = planAnswers({ color }, ['name'], { color: accept({ color: 'red' }) });
    assert.deepEqual(Object.keys(second.send), ['color']);
    assert.deepEqual(second.unanswered, []);
  });

  test('--decline and --cancel become decline and cancel actions', () => {
    const plan = planAnswers({ name, color }, [], {}, ['name'], ['color']);
    assert.deepEqual(plan.send, { name: { action: 'decline' }, color: { action: 'cancel' } });
    assert.deepEqual(plan.errors, []);
  });

  test('only elicitations can be declined or cancelled', () => {
    const plan = planAnswers({ summary: sampling, roots }, [], {}, ['summary'], ['roots']);
    assert.deepEqual(plan.send, {});
    assert.equal(plan.errors.length, 2);
    assert.match(plan.errors.join('\n'), /"summary" is a sampling\/createMessage request: only elicitations can be declined or cancelled/);
    assert.match(plan.errors.join('\n'), /"roots" is a roots\/list request/);
  });

  test('a key the server does not list is stale and never sent', () => {
    const plan = planAnswers({ confirm }, [], { bogus: accept({ x: 1 }), confirm: accept({ confirm: true }) }, ['gone']);
    assert.deepEqual(Object.keys(plan.send), ['confirm']);
    assert.deepEqual(plan.stale.sort(), ['bogus', 'gone']);
    assert.deepEqual(plan.errors, [], 'a stale key is reported, not validated');
  });

  test('keys answered before are never sent again, listed or not', () => {
    const stillListed = planAnswers({ confirm }, ['confirm'], { confirm: accept({ confirm: true }) });
    assert.deepEqual(stillListed.send, {});
    assert.deepEqual(stillListed.alreadyAnswered, ['confirm']);
    assert.deepEqual(stillListed.unanswered, []);
    const noLongerListed = planAnswers({ color }, ['name'], { name: accept({ name: 'Ada' }) });
    assert.deepEqual(noLongerListed.send, {});
    assert.deepEqual(noLongerListed.alreadyAnswered, ['name']);
    assert.deepEqual(noLongerListed.stale, []);
    assert.deepEqual(noLongerListed.unanswered, ['color']);
  });

  test('one bad response: the error names it, and the good one is not sent on its own', () => {
    const plan = planAnswers({ name, color }, [], { name: accept({ name: 'Ada' }), color: accept({ color: 'purple' }) });
    assert.equal(plan.errors.length, 1);
    assert.match(plan.errors[0]!, /answer for "color": field color must be one of red, green, blue/);
    // collectResponses refuses to send anything while errors is non-empty.
  });

  test('sampling and roots responses from a script', () => {
    const plan = planAnswers({ summary: sampling, roots }, [], { summary: reply, roots: { roots: [{ uri: 'file:///tmp/x' }] } });
    assert.deepEqual(Object.keys(plan.send).sort(), ['roots', 'summary']);
    assert.deepEqual(plan.errors, []);
  });

  test('a pending key named like an Object.prototype member can still be answered', () => {
    const plan = planAnswers({ constructor: confirm, other: confirm }, [], {}, ['other']);
    assert.deepEqual(plan.errors, []);
    assert.deepEqual(plan.send, { other: { action: 'decline' } });
    assert.deepEqual(plan.unanswered, ['constructor']);
  });

  test('an answers-file key named like an Object.prototype member is reported stale', () => {
    const plan = planAnswers({ confirm }, [], { toString: { action: 'decline' }, confirm: accept({ confirm: true }) });
    assert.deepEqual(plan.stale, ['toString']);
  });
});

describe('withFormDefaults (SEP-1034)', () => {
  // The conformance suite's form: every field optional, every field with a default.
  const profile = form({
    name: { type: 'string', default: 'John Doe' },
    age: { type: 'integer', default: 30 },
    score: { type: 'number', default: 95.5 },
    status: { type: 'string', enum: ['active', 'inactive', 'pending'], default: 'active' },
    verified: { type: 'boolean', default: true },
  });
  const everyDefault = { name: 'John Doe', age: 30, score: 95.5, status: 'active', verified: true };

  test('an accept without content, or with some fields, gets the defaults of the fields it leaves out', () => {
    assert.deepEqual(withFormDefaults(profile, { action: 'accept' }), accept(everyDefault));
    assert.deepEqual(withFormDefaults(profile, accept({})), accept(everyDefault));
    assert.deepEqual(withFormDefaults(profile, accept({ name: 'Ada', verified: false })), accept({ ...everyDefault, name: 'Ada', verified: false }));
  });

  test('a field the answer gives is kept, even a value the check will refuse', () => {
    assert.deepEqual(withFormDefaults(profile, accept({ ...everyDefault, age: 'old' })), accept({ ...everyDefault, age: 'old' }));
  });

  test('a default that does not fit its own field is not used', () => {
    const odd = form({ level: { type: 'integer', minimum: 1, default: 0 }, colour: { type: 'string', enum: ['red'], default: 'blue' }, note: { type: 'string', default: 'ok' } });
    assert.deepEqual(withFormDefaults(odd, accept({})), accept({ note: 'ok' }));
  });

  test('decline, cancel, URL mode, other methods and malformed answers are left as they are', () => {
    for (const r of [{ action: 'decline' }, { action: 'cancel' }, 'yes', null, { action: 'accept', content: 'x' }]) assert.deepEqual(withFormDefaults(profile, r), r);
    assert.deepEqual(withFormDefaults(url, { action: 'accept' }), { action: 'accept' });
    assert.deepEqual(withFormDefaults(sampling, reply), reply);
  });

  test('a default fills a required field the answer leaves out, so the answer is sent', () => {
    const named = form({ name: { type: 'string', default: 'Ada' } }, ['name']);
    const plan = planAnswers({ named }, [], { named: { action: 'accept' } });
    assert.deepEqual(plan.errors, []);
    assert.deepEqual(plan.send, { named: accept({ name: 'Ada' }) });
  });

  test('planAnswers sends an answers-file accept with the defaults filled in', () => {
    const plan = planAnswers({ profile }, [], { profile: accept({ verified: false }) });
    assert.deepEqual(plan.send, { profile: accept({ ...everyDefault, verified: false }) });
  });

  test('the default is copied, not shared with the request', () => {
    const multi = form({ tags: { type: 'array', items: { enum: ['a', 'b'] }, default: ['a'] } });
    const out = withFormDefaults(multi, accept({})) as { content: { tags: string[] } };
    out.content.tags.push('b');
    assert.deepEqual((multi.params!.requestedSchema as { properties: { tags: { default: string[] } } }).properties.tags.default, ['a']);
  });
});
