// The SEP-2243 x-mcp-header rules and value encoding, on the spec's own examples.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { encodeHeaderValue, paramHeaders, scanHeaderDeclarations } from '../../../src/protocol/tool-headers.js';

const schema = (properties: Record<string, unknown>) => ({ type: 'object', properties });

test('the spec\'s encoding examples', () => {
  assert.equal(encodeHeaderValue('us-west1'), 'us-west1');
  assert.equal(encodeHeaderValue('us west 1'), 'us west 1', 'inner spaces are plain');
  assert.equal(encodeHeaderValue('Hello, 世界'), '=?base64?SGVsbG8sIOS4lueVjA==?=');
  assert.equal(encodeHeaderValue(' padded '), '=?base64?IHBhZGRlZCA=?=');
  assert.equal(encodeHeaderValue('line1\nline2'), '=?base64?bGluZTEKbGluZTI=?=');
  assert.equal(encodeHeaderValue('=?base64?literal?='), '=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=');
  assert.equal(encodeHeaderValue('\tindented'), `=?base64?${Buffer.from('\tindented').toString('base64')}?=`);
  assert.equal(encodeHeaderValue(''), '=?base64??=', 'an empty value cannot be told from an absent one in plain form');
});

test('paramHeaders: strings, integers and booleans mirrored; null and absent omitted; nested properties by path', () => {
  const scan = scanHeaderDeclarations(
    schema({
      region: { type: 'string', 'x-mcp-header': 'Region' },
      priority: { type: 'integer', 'x-mcp-header': 'Priority' },
      verbose: { type: 'boolean', 'x-mcp-header': 'Verbose' },
      missing: { type: 'string', 'x-mcp-header': 'Missing' },
      query: { type: 'string' },
      target: { type: 'object', properties: { zone: { type: 'string', 'x-mcp-header': 'Zone' } } },
    }),
  );
  assert.ok(scan.valid);
  const headers = paramHeaders(scan.declarations, { region: 'us-west1', priority: 42, verbose: null, query: 'SELECT 1', target: { zone: 'b' } });
  assert.deepEqual(headers, { 'Mcp-Param-Region': 'us-west1', 'Mcp-Param-Priority': '42', 'Mcp-Param-Zone': 'b' });
  assert.deepEqual(paramHeaders(scan.declarations, { verbose: false }), { 'Mcp-Param-Verbose': 'false' });
});

test('each broken rule is named', () => {
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ v: { type: 'string', 'x-mcp-header': '' } }, 'not-empty'],
    [{ v: { type: 'string', 'x-mcp-header': 42 } }, 'string'],
    [{ v: { type: 'string', 'x-mcp-header': 'My Region' } }, 'charset'],
    [{ v: { type: 'string', 'x-mcp-header': 'Region:Primary' } }, 'charset'],
    [{ v: { type: 'string', 'x-mcp-header': 'Région' } }, 'charset'],
    [{ v: { type: 'string', 'x-mcp-header': 'Region\t1' } }, 'charset'],
    [{ v: { type: 'object', 'x-mcp-header': 'Data' } }, 'primitive-only'],
    [{ v: { type: 'array', 'x-mcp-header': 'Items' } }, 'primitive-only'],
    [{ v: { type: 'null', 'x-mcp-header': 'Nil' } }, 'primitive-only'],
    [{ v: { type: 'number', 'x-mcp-header': 'Score' } }, 'primitive-only'],
    [{ a: { type: 'string', 'x-mcp-header': 'MyField' }, b: { type: 'string', 'x-mcp-header': 'myfield' } }, 'unique'],
    [{ list: { type: 'array', items: { type: 'string', 'x-mcp-header': 'Item' } } }, 'statically-reachable'],
  ];
  for (const [properties, rule] of cases) {
    const scan = scanHeaderDeclarations(schema(properties));
    assert.equal(scan.valid, false, JSON.stringify(properties));
    if (!scan.valid) assert.equal(scan.rule, rule, JSON.stringify(properties));
  }
  const notString = scanHeaderDeclarations(schema({ v: { type: 'string', 'x-mcp-header': { evil: '\u001b[31m' } } }));
  assert.ok(!notString.valid && /is \{"evil":"\\u001b\[31m"\}, not a string/.test(notString.reason), 'server text is quoted with escapes');
  assert.deepEqual(scanHeaderDeclarations(schema({ q: { type: 'string' } })), { valid: true, declarations: [] });
});
