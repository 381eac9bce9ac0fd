// export → import carries every kind of record the vault holds: adopted by taskId, in doubt,
// submitting, lost, resolved by hand, terminal with its result, and a 2025-11-25 record with its
// session. The other home's `list --all --json` and `show --json` agree with the source's, record
// for record. Bundles from older versions (adopted records with `adhoc-` opIds) are imported too.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { addHttpServer, newHome, parseJsonDoc, startDemo, tempDir, type DemoServer, type Home, type TestHome } from '../helpers/cli.js';
import { fakeTaskId, makeRecord } from '../helpers/vault-helpers.js';
import { vaultAt } from '../../src/app/open-vault.js';
import { encodeSealed, sealWithPassphrase } from '../../src/vault/vault-crypto.js';
import { UNKNOWN_OPERATION, type VaultRecord } from '../../src/vault/vault-record.js';

const EXPORT_KEY = 'a long shared export passphrase';
const KEY_ENV = { MCP_TASKS_EXPORT_KEY: EXPORT_KEY };
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** `operation` is null for a task adopted by taskId (its call was never seen here). */
type Listed = { opId: string; taskId: string | null; phase: string; status: string; operation: { name: string } | null };

async function listAll(h: Home): Promise<Listed[]> {
  const r = await h.run(['list', '--all', '--json']);
  assert.equal(r.code, 0, r.stderr);
  return (parseJsonDoc(r.stdout) as Listed[]).sort((a, b) => a.opId.localeCompare(b.opId));
}

async function showJson(h: Home, opId: string): Promise<unknown> {
  const r = await h.run(['show', opId, '--json']);
  assert.equal(r.code, 0, r.stderr);
  return parseJsonDoc(r.stdout);
}

/** A bundle as `export` writes it, holding these records as they are (an older version's, say). */
function bundleOf(records: VaultRecord[]): string {
  const sealed = sealWithPassphrase(Buffer.from(JSON.stringify({ format: 'mcp-tasks-export', records }), 'utf8'), EXPORT_KEY);
  return 'mcp-tasks-export v1\n' + encodeSealed(sealed).toString('base64').replace(/(.{76})/g, '$1\n') + '\n';
}

describe('export and import keep every kind of record', { concurrency: 1, timeout: 180_000 }, () => {
  let demo: DemoServer;
  let dropping: DemoServer;
  before(async () => {
    [demo, dropping] = await Promise.all([startDemo(), startDemo({ faults: ['drop-create-response'] })]);
  });
  after(async () => {
    await Promise.all([demo?.stop(), dropping?.stop()]);
  });

  /** A home holding one record of each kind, made through the CLI where a real server makes them. */
  async function homeWithEveryKind(): Promise<TestHome> {
    const ci = newHome();
    const elsewhere = newHome();
    await addHttpServer(ci, 'web', demo.url);
    await addHttpServer(ci, 'drop', dropping.url);
    await addHttpServer(elsewhere, 'web', demo.url);
    // terminal, with its result
    await ci.ok(['call', 'web', 'slow_compute', 'seconds=0', '--label', 'kind=terminal']);
    // adopted: a task another vault started, saved here by its taskId (from stdin, off argv)
    const other = parseJsonDoc((await elsewhere.ok(['call', 'web', 'slow_compute', 'seconds=600', '--detach', '--json'])).stdout).taskId as string;
    await ci.ok(['get', '-', '--server', 'web', '--save'], { input: other });
    // lost: adopted, and the server does not know it
    const lost = await ci.run(['get', '-', '--server', 'web', '--save'], { input: fakeTaskId() });
    assert.equal(lost.code, 6, lost.stderr);
    // in doubt, twice; one of them resolved by hand
    assert.equal((await ci.run(['call', 'drop', 'slow_compute', 'seconds=1', '--label', 'kind=in-doubt'])).code, 10);
    const second = await ci.run(['call', 'drop', 'slow_compute', 'seconds=2', '--json']);
    assert.equal(second.code, 10, second.stderr);
    const resolvedOp = parseJsonDoc(second.stdout).opId as string;
    await ci.ok(['recover', resolvedOp, '--resolve', 'not-run', '--note', 'checked the server']);
    // No real server leaves these two behind on demand: a submission still being sent, and a
    // 2025-11-25 task with its server session (written as the CLI writes them).
    const v = vaultAt(ci.dir, { MCP_TASKS_NO_KEYCHAIN: '1' });
    v.put({ ...makeRecord({ server: 'web', phase: 'submitting', labels: { kind: 'submitting' } }), writer: { pid: 999_999, startedAtMs: Date.now() } });
    const legacy = makeRecord({ server: 'web', taskId: fakeTaskId(), labels: { kind: 'legacy' } });
    legacy.server.protocolVersion = '2025-11-25';
    legacy.session = { protocolVersion: '2025-11-25', sessionId: 'a1b2c3d4e5f6a7b8c9d0' };
    v.put(legacy);
    return ci;
  }

  test('every kind survives the round trip; list and show agree record for record', async () => {
    const ci = await homeWithEveryKind();
    const source = await listAll(ci);
    assert.equal(source.length, 7);
    const adopted = source.filter((r) => r.operation === null);
    assert.equal(adopted.length, 2, 'the adopted and the lost record');
    for (const r of adopted) assert.match(r.opId, UUID, 'an adopted record gets a random operation id, nothing of its handle');

    const bundle = join(tempDir(), 'all.bundle');
    const exp = await ci.run(['export', ...source.map((r) => r.opId), '--out', bundle], { env: KEY_ENV });
    assert.equal(exp.code, 0, exp.stderr);
    const oncall = newHome();
    const imp = await oncall.run(['import', bundle, '--json'], { env: KEY_ENV });
    assert.equal(imp.code, 0, imp.stdout + imp.stderr);
    assert.equal(parseJsonDoc(imp.stdout).imported, 7);

    assert.deepEqual(await listAll(oncall), source);
    for (const r of source) assert.deepEqual(await showJson(oncall, r.opId), await showJson(ci, r.opId), `show ${r.phase} ${r.operation?.name ?? UNKNOWN_OPERATION}`);
  });

  test("an older version's bundle with adhoc- operation ids is imported, not refused", async () => {
    const taskId = fakeTaskId();
    const old = makeRecord({ server: 'web', taskId, tool: UNKNOWN_OPERATION, args: {} });
    old.opId = `adhoc-${taskId.slice(0, 8)}-${Date.now().toString(36)}`;
    const regular = makeRecord({ server: 'web', taskId: fakeTaskId(), status: 'completed' });
    const file = join(tempDir(), 'old.bundle');
    (await import('node:fs')).writeFileSync(file, bundleOf([old, regular]));
    const oncall = newHome();
    const imp = await oncall.run(['import', file, '--json'], { env: KEY_ENV });
    assert.equal(imp.code, 0, imp.stdout + imp.stderr);
    assert.equal(parseJsonDoc(imp.stdout).imported, 2);
    const listed = await listAll(oncall);
    assert.deepEqual(listed.map((r) => r.taskId).sort(), [taskId, regular.taskId].sort());
    const adopted = listed.find((r) => r.taskId === taskId)!;
    assert.equal(adopted.operation, null, 'still marked as an unknown operation');
    // The old opId carried part of the handle: the record is kept under a fresh one.
    assert.match(adopted.opId, UUID);
    const again = await oncall.run(['import', file, '--json'], { env: KEY_ENV });
    assert.equal(parseJsonDoc(again.stdout).imported, 0, 'importing it again adds nothing');
  });
});
