// What the connection keeper and the commands share (src/vault/postgres/pg-keeper-wire.ts): values
// survive the trip as the driver gives and takes them; the socket's name changes with anything that
// changes who signs in; the keeper's environment carries no secret but the database's own.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeValue, encodeValue, keeperEnv, keeperSocketPath, keepMs, lineReader, mapRows } from '../../../src/vault/postgres/pg-keeper-wire.js';

test('Buffers, Dates, arrays of them and plain values come back as they went', () => {
  const values = [Buffer.from([0, 1, 254, 255]), new Date('2026-12-05T10:00:00.123Z'), [Buffer.from('a'), Buffer.from('')], ['x', 'y'], 'text', 42, null, '12345678901234567890'];
  const back = JSON.parse(JSON.stringify(values.map(encodeValue))).map(decodeValue) as unknown[];
  assert.deepEqual(back, values);
  const rows = [{ hop: 'h', sealed: Buffer.from('sealed'), version: '3' }];
  assert.deepEqual(mapRows(JSON.parse(JSON.stringify(mapRows(rows, encodeValue))), decodeValue), rows);
});

test('the socket is named by everything that decides the login: URL with its password, and the PG variables', () => {
  const home = '/home/u/.mcp-tasks';
  const url = 'postgres://ops:pw1@db:5432/tasks';
  const base = keeperSocketPath(home, url, {})!;
  assert.match(base, /^\/home\/u\/\.mcp-tasks\/keep\/pg2-[0-9a-f]{20}\.sock$/);
  assert.equal(keeperSocketPath(home, url, { UNRELATED: 'x' }), base, 'an unrelated variable changes nothing');
  assert.notEqual(keeperSocketPath(home, 'postgres://ops:pw2@db:5432/tasks', {}), base, 'another password');
  assert.notEqual(keeperSocketPath(home, 'postgres://other:pw1@db:5432/tasks', {}), base, 'another user');
  assert.notEqual(keeperSocketPath(home, url, { PGPASSWORD: 'x' }), base, 'a password from the environment');
  assert.notEqual(keeperSocketPath(home, url, { PGSSLMODE: 'verify-full' }), base);
  assert.notEqual(keeperSocketPath('/elsewhere', url, {}), base, 'another home');
  assert.ok(!base.includes('pw1'));
  assert.equal(keeperSocketPath(`/${'d'.repeat(90)}`, url, {}), undefined, 'too long for a socket: no keeper');
});

test('the keeper is given the store, its timeout and the driver\'s variables, never the team key or another secret', () => {
  const env = { MCP_TASKS_TEAM_KEY: 'team-key-xxxxxxxxxxxx', MCP_TASKS_VAULT_KEY: 'v', GITHUB_TOKEN: 't', PGPASSWORD: 'p', HOME: '/home/u', MCP_TASKS_STORE_TIMEOUT_MS: '5000', PATH: '/bin' };
  const given = keeperEnv('postgres://db/x', env, '/s.sock');
  assert.deepEqual(Object.keys(given).sort(), ['HOME', 'MCP_TASKS_KEEPER_SOCKET', 'MCP_TASKS_STORE', 'MCP_TASKS_STORE_KEEP', 'MCP_TASKS_STORE_TIMEOUT_MS', 'PGPASSWORD']);
  assert.equal(given.MCP_TASKS_STORE_KEEP, '300');
});

test('MCP_TASKS_STORE_KEEP: seconds, 300 by default, 0 or nonsense for none', () => {
  assert.equal(keepMs({}), 300_000);
  assert.equal(keepMs({ MCP_TASKS_STORE_KEEP: '' }), 300_000);
  assert.equal(keepMs({ MCP_TASKS_STORE_KEEP: '1.5' }), 1_500);
  assert.equal(keepMs({ MCP_TASKS_STORE_KEEP: '0' }), 0);
  assert.equal(keepMs({ MCP_TASKS_STORE_KEEP: 'never' }), 0);
});

test('lines are cut where they end, across chunks', () => {
  const seen: string[] = [];
  const feed = lineReader((l) => seen.push(l));
  feed('{"a":1}\n{"b"');
  feed(':2}\n\n');
  feed(Buffer.from('{"c":3}'));
  assert.deepEqual(seen, ['{"a":1}', '{"b":2}']);
  feed('\n');
  assert.deepEqual(seen, ['{"a":1}', '{"b":2}', '{"c":3}']);
  // A character of several bytes cut between two chunks (an origin such as "zoë@host").
  const bytes = Buffer.from('{"o":"zoë@host"}\n');
  const cut = bytes.indexOf(0xc3) + 1;
  feed(bytes.subarray(0, cut));
  feed(bytes.subarray(cut));
  assert.equal(seen.at(-1), '{"o":"zoë@host"}');
});
