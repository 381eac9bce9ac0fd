import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildArguments, validateArguments } from '../../../src/app/tool-args.js';
import { parseDuration } from '../../../src/cli/duration.js';
import { parseLabels } from '../../../src/app/labels.js';
import { CliError } from '../../../src/errors.js';

const schema = {
  type: 'object',
  properties: { seconds: { type: 'number', minimum: 0 }, label: { type: 'string' }, flag: { type: 'boolean' }, tags: { type: 'array', items: { type: 'string' } } },
  required: ['seconds'],
};

test('key=value follows the schema type; key:=json is typed JSON', () => {
  assert.deepEqual(buildArguments({ pairs: ['seconds=2', 'label=42', 'flag=true', 'tags:=["a","b"]'] }, schema), { seconds: 2, label: '42', flag: true, tags: ['a', 'b'] });
  assert.deepEqual(buildArguments({ pairs: ['x=a=b'] }, schema), { x: 'a=b' });
  assert.deepEqual(buildArguments({ pairs: ['seconds=soon'] }, schema), { seconds: 'soon' });
});

test('--args-json is the base object and pairs override it', () => {
  assert.deepEqual(buildArguments({ pairs: ['seconds=5'], argsJson: '{"seconds":1,"label":"x"}' }, schema), { seconds: 5, label: 'x' });
});

test('bad input names the problem', () => {
  assert.throws(() => buildArguments({ pairs: ['oops'] }, schema), (e: unknown) => e instanceof CliError && /key=value/.test(e.message));
  assert.throws(() => buildArguments({ pairs: ['tags:=[1,'] }, schema), (e: unknown) => e instanceof CliError && /tags/.test(e.message));
  assert.throws(() => buildArguments({ pairs: [], argsJson: '[1]' }, schema), (e: unknown) => e instanceof CliError && /object/.test(e.message));
  assert.throws(() => buildArguments({ pairs: [], argsJson: '{}', argsFile: 'x' }, schema), CliError);
});

test('validation against inputSchema names the field', async () => {
  await validateArguments('slow_compute', { seconds: 1 }, schema);
  await assert.rejects(validateArguments('slow_compute', { seconds: 'soon' }, schema), (e: unknown) => e instanceof CliError && /seconds must be number/.test(e.message) && e.exitCode === 1);
  await assert.rejects(validateArguments('slow_compute', {}, schema), (e: unknown) => e instanceof CliError && /seconds/.test(e.message));
});

test('durations and labels', () => {
  assert.equal(parseDuration('90s'), 90_000);
  assert.equal(parseDuration('5m'), 300_000);
  assert.equal(parseDuration('1h'), 3_600_000);
  assert.equal(parseDuration('250'), 250);
  assert.equal(parseDuration('250ms'), 250);
  assert.throws(() => parseDuration('soon'), CliError);
  assert.throws(() => parseDuration('0'), CliError);
  assert.deepEqual(parseLabels(['uhp.response=r1', 'a=b=c']), { 'uhp.response': 'r1', a: 'b=c' });
  assert.throws(() => parseLabels(['nokey']), CliError);
});

test('an explicit null for an optional argument is not sent; for a required one it is refused unless the schema allows null', () => {
  assert.deepEqual(buildArguments({ pairs: ['label:=null'], argsJson: '{"seconds":1,"flag":null}' }, schema), { seconds: 1 });
  const nullable = { type: 'object', properties: { note: { anyOf: [{ type: 'string' }, { type: 'null' }] }, id: { type: ['string', 'null'] } }, required: ['id'] };
  assert.deepEqual(buildArguments({ pairs: ['note:=null', 'id:=null'] }, nullable), { note: null, id: null }, 'a null the schema allows is a value');
  assert.throws(() => buildArguments({ pairs: [], argsJson: '{"seconds":null}' }, schema), (e: unknown) => e instanceof CliError && /"seconds" is required, and null gives it no value/.test(e.message) && e.exitCode === 1);
});

test('an argument the schema does not name: refused where extras are forbidden, else sent with a warning', () => {
  const closed = { ...schema, additionalProperties: false };
  for (const src of [{ pairs: ['seconds=1', 'colour=red'] }, { pairs: [], argsJson: '{"seconds":1,"colour":"red"}' }]) {
    assert.throws(() => buildArguments(src, closed), (e: unknown) => e instanceof CliError && /the tool has no argument "colour" \(its arguments: seconds, label, flag, tags\)/.test(e.message) && e.exitCode === 1);
  }
  assert.throws(() => buildArguments({ pairs: ['colour=red'] }, { type: 'object', properties: {}, additionalProperties: false }), (e: unknown) => e instanceof CliError && /no argument "colour" \(it takes no arguments\)/.test(e.message));
  const warnings: string[] = [];
  assert.deepEqual(buildArguments({ pairs: ['seconds=1', 'colour=red'], warn: (l) => warnings.push(l) }, schema), { seconds: 1, colour: 'red' });
  assert.deepEqual(warnings, ['warning: the tool has no argument "colour" (its arguments: seconds, label, flag, tags); it is sent as given and the tool may ignore it.']);
});
