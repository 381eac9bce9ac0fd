// The sealed listing (src/vault/listing-index.ts) that `list` reads: it always agrees with the
// record files, stays sealed, and does not lie after a writer is killed between the record and its
// listing frame, after a torn frame, a lost or damaged base, or a compaction racing writers.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs, { appendFileSync, existsSync, fstatSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { join } from 'node:path';
import type { Vault } from '../../../src/vault/vault.js';
import { vaultAt } from '../../../src/app/open-vault.js';
import { listingMeta, type ListingRow } from '../../../src/vault/listing-index.js';
import { listingRowJson } from '../../../src/output/render.js';
import type { ListingMeta, VaultRecord } from '../../../src/vault/vault-record.js';
import { fakeTaskId, isoAgo, leaks, makeRecord, modUrl, runNodeScript } from '../../helpers/vault-helpers.js';
import { tempDir } from '../../helpers/temp-dirs.js';

const NOKC: NodeJS.ProcessEnv = { MCP_TASKS_NO_KEYCHAIN: '1' };

const home = () => tempDir('mcp-tasks-listing-');

const storeDir = (h: string) => join(h, readdirSync(h).find((n) => /^vault-[0-9a-f]{16}\.d$/.test(n))!);

/** A listed record as `list` uses it: its `--json` row and what the table and the filters read. */
interface Shown {
  row: { status: string; phase: string; labels: Record<string, string> };
  meta: ListingMeta;
}
/** What the record files say, in the listing's shape, oldest first: the truth to compare with. */
function truth(v: Vault): Shown[] {
  return v.list().map((r) => ({ row: JSON.parse(listingRowJson(r)) as Shown['row'], meta: listingMeta(r) }));
}
const shown = (r: ListingRow): Shown => ({ row: JSON.parse(r.json.toString('utf8')) as Shown['row'], meta: r.meta() });
const listed = (v: Vault, q: Parameters<Vault['listing']>[0] = {}) => v.listing(q).map(shown);
const byOp = (rs: Shown[]) => [...rs].sort((a, b) => (a.meta.opId < b.meta.opId ? -1 : 1));
/** A filter on the listing's meta, applied to the truth. */
const on = (f: (m: ListingMeta) => boolean) => (s: Shown) => f(s.meta);

/** n records one second apart (oldest first), labelled by parity. */
function records(n: number, spec: (i: number) => Parameters<typeof makeRecord>[0] = () => ({})): VaultRecord[] {
  return Array.from({ length: n }, (_, i) => makeRecord({ taskId: fakeTaskId(), ageMs: (n - i) * 1000, labels: { parity: i % 2 ? 'odd' : 'even', i: String(i) }, ...spec(i) }));
}

describe('the sealed listing', () => {
  test('list reads the listing and agrees with the record files through put, update and remove', () => {
    const h = home();
    const v = vaultAt(h, NOKC);
    const recs = records(40, (i) => ({ status: i % 3 === 0 ? 'completed' : 'working' }));
    for (const r of recs) v.put(r);
    v.update(recs[5]!.opId, (r) => {
      r.phase = 'lost';
      r.reason = 'unknown to the server';
    });
    v.remove([recs[7]!.opId, recs[8]!.opId]);
    const fresh = vaultAt(h, NOKC);
    assert.deepEqual(listed(fresh), truth(fresh));
    assert.equal(listed(fresh).length, 38);
    assert.equal(listed(fresh).find((r) => r.meta.opId === recs[5]!.opId)?.row.phase, 'lost');
    assert.equal(listed(fresh).find((r) => r.meta.opId === recs[5]!.opId)?.row.status, 'lost');
    // The default view, filters and --limit (newest first) give what filtering every record gives.
    const active = (r: ListingMeta) => r.phase !== 'terminal';
    assert.deepEqual(listed(fresh, { listedByDefault: true }), truth(fresh).filter(on(active)));
    const odd = (r: ListingMeta) => r.labels.parity === 'odd';
    assert.deepEqual(listed(fresh, { limit: 5, match: odd }), truth(fresh).filter(on(odd)).slice(-5));
    assert.deepEqual(listed(fresh, { limit: 3, listedByDefault: true }), truth(fresh).filter(on(active)).slice(-3));
  });

  test('nothing in the listing or its intents is in clear: no taskId, argument, result or token', () => {
    const h = home();
    const v = vaultAt(h, NOKC);
    const secret = 'tok-' + fakeTaskId();
    const rec = makeRecord({ taskId: fakeTaskId(), status: 'completed', args: { query: 'argument-' + fakeTaskId() } });
    rec.auth = { kind: 'bearer-env', bearerEnv: 'MY_TOKEN', secrets: { MY_TOKEN: secret } };
    rec.result = { content: [{ type: 'text', text: 'result-' + fakeTaskId() }] };
    v.put(rec);
    v.listing({});
    const needles = [rec.taskId!, String(rec.operation.arguments.query), (rec.result.content as Array<{ text: string }>)[0]!.text, secret, rec.opId];
    const dir = storeDir(h);
    for (const sub of ['x', 'p']) {
      for (const name of readdirSync(join(dir, sub))) {
        assert.deepEqual(leaks(readFileSync(join(dir, sub, name)), needles), [], `${sub}/${name}`);
        assert.deepEqual(leaks(Buffer.from(name), needles), [], `the name ${sub}/${name}`);
      }
    }
    assert.equal((v.listing({})[0] as { auth?: unknown }).auth, undefined, 'the listing keeps no credentials');
  });

  test('--limit reads the newest rows across base chunks and the log, and agrees with filtering everything', async () => {
    const h = home();
    const v = vaultAt(h, NOKC);
    // 700 records: three base chunks after the bulk insert folds the log; then updates in the log.
    const recs = records(700, (i) => ({ status: i % 4 === 0 ? 'working' : 'completed' }));
    assert.equal(await v.bulkInsert(recs), 700);
    assert.equal(await v.bulkInsert(recs), 0, 'inserting again adds nothing');
    for (const i of [699, 650, 300, 2]) v.update(recs[i]!.opId, (r) => (r.phase = 'in-doubt'));
    v.remove([recs[698]!.opId]);
    const fresh = vaultAt(h, NOKC);
    const all = truth(fresh);
    assert.equal(all.length, 699);
    assert.deepEqual(listed(fresh), all);
    for (const limit of [1, 5, 50, 256, 257, 600, 1000]) {
      assert.deepEqual(listed(fresh, { limit }), all.slice(-limit), `--limit ${limit}`);
      const even = (r: ListingMeta) => r.labels.parity === 'even';
      assert.deepEqual(listed(fresh, { limit, match: even }), all.filter(on(even)).slice(-limit), `--limit ${limit} --label parity=even`);
      const byDefault = (r: ListingMeta) => r.phase !== 'terminal';
      assert.deepEqual(listed(fresh, { limit, listedByDefault: true }), all.filter(on(byDefault)).slice(-limit), `--limit ${limit}, default view`);
    }
  });

  test('a writer killed (SIGKILL) after its record write, before its listing frame: list shows the record file', async () => {
    const h = home();
    const v = vaultAt(h, NOKC);
    const rec = makeRecord({ taskId: fakeTaskId(), status: 'working' });
    v.put(rec);
    assert.equal(listed(v)[0]!.row.status, 'working');
    // A real process, killed by SIGKILL at the exact moment between the two writes.
    const child = runNodeScript(
      `const { vaultAt } = await import(${JSON.stringify(modUrl('app/open-vault.js'))});
       const { ListingIndex } = await import(${JSON.stringify(modUrl('vault/listing-index.js'))});
       ListingIndex.prototype.append = () => process.kill(process.pid, 'SIGKILL');
       vaultAt(process.argv[1], { MCP_TASKS_NO_KEYCHAIN: '1' }).update(process.argv[2], (r) => {
         r.phase = 'terminal';
         r.last = { ...r.last, status: 'completed' };
         r.result = { content: [{ type: 'text', text: 'done' }] };
       });`,
      [h, rec.opId],
    );
    assert.equal((await child.done).signal, 'SIGKILL', child.stderr());
    const after = vaultAt(h, NOKC);
    assert.equal(after.get(rec.opId)?.phase, 'terminal', 'the record file was written');
    assert.deepEqual(listed(after), truth(after), 'the listing does not lie about it');
    assert.deepEqual(listed(after, { limit: 10 }), truth(after));
    assert.equal(listed(after)[0]!.row.status, 'completed');
    // The next writing process folds the dead writer's intent into the listing and drops it.
    after.put(makeRecord({ taskId: fakeTaskId() }));
    assert.deepEqual(readdirSync(join(storeDir(h), 'p')), []);
    assert.deepEqual(listed(vaultAt(h, NOKC)), truth(after));
  });

  test('a torn frame in the log (a writer killed inside write()) is skipped; later frames are still read', () => {
    const h = home();
    const v = vaultAt(h, NOKC);
    const a = makeRecord({ taskId: fakeTaskId(), ageMs: 2000 });
    v.put(a);
    const log = join(storeDir(h), 'x', 'log');
    const frame = readFileSync(log);
    // Half of a frame, as a kill inside write() leaves it, then more writers after it.
    appendFileSync(log, frame.subarray(0, Math.floor(frame.length / 2)));
    const b = makeRecord({ taskId: fakeTaskId(), ageMs: 1000 });
    v.put(b);
    v.update(a.opId, (r) => (r.phase = 'lost'));
    const fresh = vaultAt(h, NOKC);
    assert.deepEqual(listed(fresh), truth(fresh));
    assert.deepEqual(listed(fresh, { limit: 1 }), truth(fresh).slice(-1));
    assert.equal(listed(fresh).find((r) => r.meta.opId === a.opId)?.meta.phase, 'lost');
  });

  test('a missing or damaged base, or a lost log, is rebuilt from the record files', () => {
    const h = home();
    const v = vaultAt(h, NOKC);
    for (const r of records(30)) v.put(r);
    const x = join(storeDir(h), 'x');
    const expected = truth(v);
    rmSync(join(x, 'base'));
    assert.deepEqual(listed(vaultAt(h, NOKC), { limit: 4 }), expected.slice(-4), 'a missing base: --limit rebuilds it');
    assert.ok(existsSync(join(x, 'base')));
    rmSync(join(x, 'base'));
    assert.deepEqual(listed(vaultAt(h, NOKC)), expected, 'a missing base: list rebuilds it');
    const base = readFileSync(join(x, 'base'));
    base[base.length - 20]! ^= 0x40;
    writeFileSync(join(x, 'base'), base);
    assert.deepEqual(listed(vaultAt(h, NOKC)), expected, 'a damaged base is rebuilt');
    // A store the listing never covered (written by an mcp-tasks without it): rebuilt on first list.
    for (const r of records(3)) v.put(r);
    rmSync(x, { recursive: true });
    const now = vaultAt(h, NOKC);
    assert.deepEqual(listed(now), truth(now));
    assert.equal(listed(now).length, 33);
  });

  test('compaction racing 4 writer processes loses no write', async () => {
    const h = home();
    const v = vaultAt(h, NOKC);
    const recs = records(4 * 40);
    await v.bulkInsert(recs);
    // Each child updates its own 40 records 5 times; the parent folds the log meanwhile, often.
    const children = [0, 1, 2, 3].map((c) =>
      runNodeScript(
        `const { vaultAt } = await import(${JSON.stringify(modUrl('app/open-vault.js'))});
         const v = vaultAt(process.argv[1], { MCP_TASKS_NO_KEYCHAIN: '1' });
         const ops = JSON.parse(process.argv[2]);
         for (let round = 1; round <= 5; round++) for (const op of ops) v.update(op, (r) => (r.labels.round = String(round)));
         console.log('done');`,
        [h, JSON.stringify(recs.slice(c * 40, c * 40 + 40).map((r) => r.opId))],
      ),
    );
    const files = (v as unknown as { store(create: boolean): { compact(fromRecords: boolean, wait?: boolean): void } }).store(false);
    let folds = 0;
    let running = true;
    void Promise.all(children.map((c) => c.done)).then(() => (running = false));
    while (running) {
      files.compact(false, true);
      folds++;
      await new Promise((r) => setImmediate(r));
    }
    for (const c of children) assert.equal((await c.done).code, 0, c.stderr());
    const fresh = vaultAt(h, NOKC);
    assert.ok(fresh.list().every((r) => r.labels.round === '5'));
    assert.deepEqual(byOp(listed(fresh)), byOp(truth(fresh)), `after ${folds} compactions`);
    assert.deepEqual(listed(fresh, { limit: 30 }), truth(fresh).slice(-30));
  });

  test('a compaction that runs between a writer opening the log and writing to it does not lose the frame', () => {
    const h = home();
    const v = vaultAt(h, NOKC);
    const rec = makeRecord({ taskId: fakeTaskId(), status: 'working' });
    v.put(rec);
    const log = join(storeDir(h), 'x', 'log');
    const compactor = (vaultAt(h, NOKC) as unknown as { store(create: boolean): { compact(fromRecords: boolean, wait?: boolean): void } }).store(false);
    // The writer has the log open; a whole compaction (freeze, read, new base, unfreeze) runs
    // before its write() lands, so the frame goes into a file nobody reads any more.
    const realWriteSync = fs.writeSync;
    let armed = true;
    (fs as { writeSync: unknown }).writeSync = function (fd: number, ...rest: unknown[]) {
      if (armed && existsSync(log) && fstatSync(fd).ino === statSync(log).ino) {
        armed = false;
        compactor.compact(false, true);
      }
      return (realWriteSync as (...a: unknown[]) => number).call(fs, fd, ...rest);
    };
    syncBuiltinESMExports();
    try {
      v.update(rec.opId, (r) => (r.labels.after = 'compaction'));
    } finally {
      fs.writeSync = realWriteSync;
      syncBuiltinESMExports();
    }
    assert.equal(armed, false, 'the compaction ran inside the write');
    const fresh = vaultAt(h, NOKC);
    assert.deepEqual(readdirSync(join(storeDir(h), 'p')), [], 'the writer finished normally (no intent left)');
    assert.equal(listed(fresh)[0]!.row.labels.after, 'compaction');
    assert.deepEqual(listed(fresh, { limit: 1 }), truth(fresh));
  });

  test('a new vault starts with a complete empty listing; timestamps order as the records do', () => {
    const h = home();
    const v = vaultAt(h, NOKC);
    v.prepare();
    assert.ok(statSync(join(storeDir(h), 'x', 'base')).size > 0);
    assert.deepEqual(v.listing({}), []);
    const late = makeRecord({ taskId: fakeTaskId() });
    late.createdAt = isoAgo(0);
    const early = makeRecord({ taskId: fakeTaskId() });
    early.createdAt = isoAgo(60_000);
    v.put(late);
    v.put(early);
    assert.deepEqual(v.listing({}).map((r) => r.opId), [early.opId, late.opId]);
    assert.deepEqual(v.listing({ limit: 1 }).map((r) => r.opId), [late.opId]);
  });
});

describe('records created in the same millisecond', () => {
  // `import` of one export, or writes landing in one millisecond, share a createdAt: the base and
  // the reader must order them the same way, or `list` skips rows it thinks it already printed.
  test('list shows every one of them from the base, the log, with filters and with --limit', async () => {
    const h = home();
    const v = vaultAt(h, NOKC);
    const at = isoAgo(60_000);
    const recs = records(300).map((r) => ({ ...r, createdAt: at, updatedAt: at }));
    await v.bulkInsert(recs.slice(0, 200));
    (v as unknown as { store(create: boolean): { compact(fromRecords: boolean, wait?: boolean): void } }).store(false).compact(false, true);
    for (const r of recs.slice(200)) v.put(r);
    const fresh = vaultAt(h, NOKC);
    const ops = (rs: Array<{ opId: string }>) => rs.map((r) => r.opId).sort();
    assert.deepEqual(ops(fresh.listing({})), ops(recs));
    assert.deepEqual(ops(fresh.listing({ match: (m) => m.labels.parity === 'odd' })), ops(recs.filter((r) => r.labels.parity === 'odd')));
    assert.equal(fresh.listing({ limit: 250 }).length, 250);
    const streamed: string[] = [];
    let chunked = 0;
    fresh.eachListed({}, (r) => streamed.push(r.opId), (_rows, count) => (chunked += count));
    assert.equal(streamed.length + chunked, 300);
  });
});
