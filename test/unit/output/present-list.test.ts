// The list presenter (issue 8): `list` returns a tasks-listed outcome whose rows the one presenter
// reads from a real vault while it prints them. --json is the vault's records as one JSON array
// (the same bytes as serialising the records read from their files), written in pieces and with
// the listing's stored runs of rows copied out whole; the table and the empty-vault lines come
// from the same outcome; exitCodeOf decides its code.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { tempHome } from '../../helpers/cli.js';
import { fakeTaskId, makeRecord } from '../../helpers/vault-helpers.js';
import { vaultAt } from '../../../src/app/open-vault.js';
import type { ProcessIO } from '../../../src/context.js';
import { buildContext } from '../../../src/build-context.js';
import { listTasks, type ListOptions } from '../../../src/app/list.js';
import { openVault } from '../../../src/app/open-vault.js';
import { present } from '../../../src/output/present.js';
import { exitCodeOf } from '../../../src/app/exit-code.js';
import type { TasksListed } from '../../../src/app/outcomes.js';
import { jsonLine, taskJson } from '../../../src/output/render.js';
import { typeableRef } from '../../../src/vault/vault-record.js';

const ENV = { MCP_TASKS_NO_KEYCHAIN: '1', NO_COLOR: '1', CI: '1' };

/** A Context on `home` whose stdout and stderr keep every write. */
function captured(home: string, json: boolean) {
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  const stream = (into: Buffer[]) => ({ isTTY: false, write: (t: string | Uint8Array) => (into.push(Buffer.from(t)), true), on: () => undefined, once: () => undefined }) as unknown as NodeJS.WriteStream;
  const io: ProcessIO = { stdout: stream(out), stderr: stream(err), stdinIsTTY: false, readStdin: () => '', env: { ...ENV }, platform: process.platform, interrupt: new AbortController().signal };
  return { ctx: buildContext({ json, home }, io), writes: out, stdout: () => Buffer.concat(out).toString('utf8'), stderr: () => Buffer.concat(err).toString('utf8') };
}

async function listed(home: string, opts: ListOptions, json: boolean) {
  const c = captured(home, json);
  const outcome = await listTasks(c.ctx, openVault(c.ctx), opts);
  // Counted, not replaced: how the presenter took the rows (one at a time, or stored runs whole).
  const counts = { rows: 0, runs: 0 };
  const eachRow = outcome.eachRow;
  const counted: TasksListed = {
    ...outcome,
    eachRow: (row, runs) => eachRow((r) => (counts.rows++, row(r)), runs && ((b) => (counts.runs++, runs(b)))),
  };
  present(c.ctx, counted);
  return { ...c, outcome, counts };
}

describe('list presenter', () => {
  // Rows of about 8 KB: 400 of them pass the 1 MiB the JSON form writes at once, and the 2 MiB of
  // listing log past which the bulk insert folds them into the listing's base (its stored runs).
  const bulk = Array.from({ length: 400 }, (_, i) => makeRecord({ taskId: fakeTaskId('b'), status: 'completed', args: { i, pad: 'x'.repeat(8000) }, ageMs: (1000 - i) * 60_000 }));
  const newest = makeRecord({ taskId: fakeTaskId('n'), status: 'working', labels: { job: 'late' }, ageMs: 1000 });
  const home = tempHome();
  const ready = (async () => {
    const v = vaultAt(home, ENV);
    await v.bulkInsert(bulk);
    v.put(newest);
    return v;
  })();

  test('--all --json: the records as one JSON array, in pieces, stored runs copied whole', async () => {
    const vault = await ready;
    const r = await listed(home, { all: true }, true);
    const expected = jsonLine(vault.list().map((rec) => Object.assign(taskJson(rec), { opId: rec.opId, phase: rec.phase })));
    assert.equal(r.stdout(), expected, 'the same bytes as the records read from their files, serialised');
    assert.ok(r.writes.length >= 2, `written in pieces, not held whole (${r.writes.length} write)`);
    assert.ok(r.counts.runs > 0, 'the listing base went out as runs of stored rows');
    assert.ok(r.counts.rows >= 1 && r.counts.rows < bulk.length, `only rows outside whole runs one by one (${r.counts.rows})`);
    assert.equal(exitCodeOf(r.outcome), 0);
  });

  test('the same outcome into a pipe: one tab-separated line per record, oldest first', async () => {
    const vault = await ready;
    const r = await listed(home, { all: true }, false);
    const [header, ...lines] = r.stdout().trimEnd().split('\n');
    assert.equal(header, 'ref\tstatus\tserver\ttool\tcreated\tlast_seen\tlabels', 'one header row names the columns');
    const refs = lines.map((l) => l.split('\t')[0]);
    assert.deepEqual(refs, vault.list().map((rec) => typeableRef(rec)));
    assert.equal(r.counts.runs, 0, 'the table parses each row');
    const active = await listed(home, {}, false);
    assert.equal(active.stdout(), `ref\tstatus\tserver\ttool\tcreated\tlast_seen\tlabels\n${typeableRef(newest)}\tworking\tweb\tslow_compute\t${newest.createdAt}\t${newest.updatedAt}\tjob=late\n`);
  });

  test('filters that match nothing are named, with what the vault holds', async () => {
    await ready;
    const total = bulk.length + 1;
    assert.equal((await listed(home, { status: 'in-doubt' }, false)).stdout(), `no records match --status in-doubt (${total} in the vault)\n`);
    assert.equal((await listed(home, { all: true, status: 'in-doubt' }, false)).stdout(), `no records match --status in-doubt (${total} in the vault)\n`);
    assert.equal((await listed(home, { server: 'nope', label: ['a=b'] }, false)).stdout(), `no active records match --server nope --label a=b (${total} in the vault; use --all to include finished ones)\n`);
    assert.equal((await listed(home, { all: true, server: 'nope' }, true)).stdout(), '[]\n', '--json: still an empty array');
  });

  test('--limit: the newest records, as the same JSON rows', async () => {
    const vault = await ready;
    const r = await listed(home, { all: true, limit: 2 }, true);
    const lastTwo = vault.list().slice(-2);
    assert.equal(r.stdout(), jsonLine(lastTwo.map((rec) => Object.assign(taskJson(rec), { opId: rec.opId, phase: rec.phase }))));
  });

  test('an empty vault: its own line for --all, another for the default view, [] for --json', async () => {
    const empty = tempHome();
    assert.equal((await listed(empty, { all: true }, false)).stdout(), 'the vault is empty\n');
    assert.equal((await listed(empty, {}, false)).stdout(), 'the vault is empty\n');
    assert.equal((await listed(empty, { status: 'in-doubt' }, false)).stdout(), 'the vault is empty\n');
    const json = await listed(empty, {}, true);
    assert.equal(json.stdout(), '[]\n');
    assert.equal(json.stderr(), '');
    assert.equal(exitCodeOf(json.outcome), 0);
  });
});
