// The listing keeps each row in its `list --json` form (taskJson through safeJson): `list --json`
// copies stored bytes, so these tests hold it to the bytes rendering the records gives, through
// base chunks printed whole, log rows, records with an intent and server text that needs escaping;
// and a listing whose rows another version rendered is never printed as stored.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { LIST_JSON_ROWS, vaultAt } from '../../../src/app/open-vault.js';
import { taskJson, jsonLine } from '../../../src/output/render.js';
import { KEY_ONLY_ROWS } from '../../../src/vault/listing-index.js';
import { Vault } from '../../../src/vault/vault.js';
import type { VaultRecord } from '../../../src/vault/vault-record.js';
import { runInProcess } from '../../helpers/in-process.js';
import { fakeTaskId, makeRecord, modUrl, runNodeScript } from '../../helpers/vault-helpers.js';
import { tempDir } from '../../helpers/temp-dirs.js';

const NOKC: NodeJS.ProcessEnv = { MCP_TASKS_NO_KEYCHAIN: '1' };
const home = () => tempDir('mcp-tasks-rows-');
const storeDir = (h: string) => join(h, readdirSync(h).find((n) => /^vault-[0-9a-f]{16}\.d$/.test(n))!);

/** What `list --json` must print for these records: rendering each record now (the contract's shape). */
const expected = (recs: VaultRecord[]) => jsonLine(recs.map((r) => Object.assign(taskJson(r), { opId: r.opId, phase: r.phase })));

/** Server text with what the sanitizer escapes (C1 controls, bidi overrides) and what JSON escapes. */
const HOSTILE = 'a\u009b31m b\u202e c"\\\n\u0007 é 😀';

function records(n: number): VaultRecord[] {
  return Array.from({ length: n }, (_, i) => {
    const status = i % 5 === 0 ? 'working' : i % 7 === 0 ? 'failed' : 'completed';
    const r = makeRecord({ taskId: fakeTaskId(), ageMs: (n - i) * 1000, status, labels: { i: String(i), text: i % 50 === 0 ? HOSTILE : 'plain' } });
    if (r.last) r.last.statusMessage = i % 3 === 0 ? HOSTILE : `step ${i}`;
    if (status === 'completed') r.result = { content: [{ type: 'text', text: i % 11 === 0 ? HOSTILE : `done ${i}` }], ...(i % 13 === 0 ? { isError: true } : {}) };
    if (status === 'failed') r.error = { code: -32603, message: HOSTILE };
    return r;
  });
}

async function listJson(h: string, ...flags: string[]): Promise<string> {
  const r = await runInProcess(['--json', 'list', ...flags], { home: h });
  assert.equal(r.code, 0, r.stderr);
  return r.stdout;
}

describe('the listing rows are list --json output', () => {
  test('list --all --json prints the bytes rendering every record gives: whole chunks, log rows, an intent, a removal', async () => {
    const h = home();
    const v = vaultAt(h, NOKC);
    const recs = records(700);
    assert.equal(await v.bulkInsert(recs), 700);
    const files = (v as unknown as { store(create: boolean): { compact(fromRecords: boolean, wait?: boolean): void; write(r: VaultRecord): void; listing: { append(): undefined } } }).store(false);
    files.compact(false, true); // three base chunks
    // Updates land in the log (old and new records, out of creation order), one record is removed.
    v.update(recs[3]!.opId, (r) => {
      r.phase = 'lost';
      r.reason = `gone ${HOSTILE}`;
    });
    v.update(recs[400]!.opId, (r) => (r.labels.after = 'update'));
    v.remove([recs[650]!.opId]);
    v.put(makeRecord({ taskId: fakeTaskId(), ageMs: 0 }));
    // A writer killed between its record and its listing frame: its intent makes the record file win.
    const killed = recs[100]!;
    killed.phase = 'in-doubt';
    killed.reason = 'killed writer';
    const append = files.listing.append;
    files.listing.append = () => undefined; // the frame never lands; the intent stays
    try {
      files.write(killed);
    } finally {
      files.listing.append = append;
    }
    assert.equal(readdirSync(join(storeDir(h), 'p')).length, 1, 'the intent is left');
    const truth = vaultAt(h, NOKC).list();
    assert.equal(truth.length, 700);
    assert.equal(await listJson(h, '--all'), expected(truth));
    // The default view, a filter and --limit: the same bytes as filtering the records.
    assert.equal(await listJson(h), expected(truth.filter((r) => r.phase !== 'terminal')));
    assert.equal(await listJson(h, '--all', '--label', 'text=plain'), expected(truth.filter((r) => r.labels.text === 'plain')));
    assert.equal(await listJson(h, '--all', '--limit', '300'), expected(truth.slice(-300)));
    assert.equal(await listJson(h, '--status', 'failed'), expected(truth.filter((r) => r.phase === 'terminal' && r.last?.status === 'failed')));
    // Nothing the sanitizer escapes reaches stdout raw.
    assert.doesNotMatch(await listJson(h, '--all'), /[\u0080-\u009f\u202a-\u202e\u2066-\u2069]/);
  });

  test('list --all --json after a compaction (the base alone) and on an empty vault', async () => {
    const h = home();
    assert.equal(await listJson(h, '--all'), '[]\n');
    const v = vaultAt(h, NOKC);
    v.prepare();
    assert.equal(await listJson(h, '--all'), '[]\n');
    await v.bulkInsert(records(600));
    (v as unknown as { store(create: boolean): { compact(fromRecords: boolean, wait?: boolean): void } }).store(false).compact(false, true);
    assert.equal(readdirSync(join(storeDir(h), 'x')).includes('log'), false, 'the log was folded');
    assert.equal(await listJson(h, '--all'), expected(vaultAt(h, NOKC).list()));
  });

  test('rows another version rendered are not printed as stored: the base is rebuilt, log rows are read from their records', async () => {
    const h = home();
    const v = vaultAt(h, NOKC);
    const recs = records(300);
    await v.bulkInsert(recs);
    v.update(recs[7]!.opId, (r) => (r.labels.late = 'yes'));
    const x = join(storeDir(h), 'x');
    // The same rows under another renderer's fingerprint, as an older or newer mcp-tasks leaves them.
    const base = readFileSync(join(x, 'base'));
    assert.deepEqual(base.subarray(4, 20), LIST_JSON_ROWS.fingerprint);
    base[4]! ^= 0xff;
    writeFileSync(join(x, 'base'), base);
    const truth = vaultAt(h, NOKC).list();
    assert.equal(await listJson(h, '--all'), expected(truth));
    assert.deepEqual(readFileSync(join(x, 'base')).subarray(4, 20), LIST_JSON_ROWS.fingerprint, 'rebuilt with this version\'s rows');
    assert.equal(await listJson(h, '--all', '--limit', '5'), expected(truth.slice(-5)));
  });

  test('a vault created without a renderer (a sign-in\'s key source) is listed as list --json renders it: nothing it stored is trusted', async () => {
    const h = home();
    const recs = records(40);
    const keyOnly = new Vault(h, NOKC, KEY_ONLY_ROWS);
    keyOnly.prepare();
    const x = join(storeDir(h), 'x');
    assert.notDeepEqual(readFileSync(join(x, 'base')).subarray(4, 20), LIST_JSON_ROWS.fingerprint, 'no renderer\'s mark on its base');
    keyOnly.put(recs[0]!); // a row it cannot render ('{}'), under no renderer's fingerprint
    const v = vaultAt(h, NOKC);
    for (const r of recs.slice(1)) v.put(r);
    const truth = vaultAt(h, NOKC).list();
    assert.equal(truth.length, 40);
    assert.equal(await listJson(h, '--all'), expected(truth));
    assert.equal(await listJson(h, '--all', '--limit', '3'), expected(truth.slice(-3)));
    assert.deepEqual(readFileSync(join(x, 'base')).subarray(4, 20), LIST_JSON_ROWS.fingerprint, 'rebuilt with this version\'s rows');
  });

  test('a bulk insert killed (SIGKILL) between linking a batch and its listing frame: one intent covers the batch, list shows it, the next writer folds it in', async () => {
    const h = home();
    const v = vaultAt(h, NOKC);
    const first = records(3);
    await v.bulkInsert(first);
    const batch = records(40);
    const child = runNodeScript(
      `const { vaultAt } = await import(${JSON.stringify(modUrl('app/open-vault.js'))});
       const { ListingIndex } = await import(${JSON.stringify(modUrl('vault/listing-index.js'))});
       ListingIndex.prototype.append = () => process.kill(process.pid, 'SIGKILL');
       await vaultAt(process.argv[1], { MCP_TASKS_NO_KEYCHAIN: '1' }).bulkInsert(JSON.parse(process.argv[2]));`,
      [h, JSON.stringify(batch)],
    );
    assert.equal((await child.done).signal, 'SIGKILL', child.stderr());
    const intents = readdirSync(join(storeDir(h), 'p'));
    assert.equal(intents.length, 1, `one intent file for the batch: ${intents.join(', ')}`);
    const truth = vaultAt(h, NOKC).list();
    assert.equal(truth.length, 43, 'the batch was linked');
    assert.equal(await listJson(h, '--all'), expected(truth), 'list shows the batch from its record files');
    assert.equal(await listJson(h, '--all', '--limit', '10'), expected(truth.slice(-10)));
    // The next writing process folds the dead writer's batch into the listing and drops its intent.
    vaultAt(h, NOKC).put(makeRecord({ taskId: fakeTaskId() }));
    assert.deepEqual(readdirSync(join(storeDir(h), 'p')), []);
    assert.equal(await listJson(h, '--all'), expected(vaultAt(h, NOKC).list()));
  });
});
