// The record store on real files: upgrading a format-1 vault.json in place (also when the
// upgrading process is SIGKILLed halfway), what the store's files reveal, the writer stamp of
// submitting records, and locks that no mcp-tasks process would leave.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { vaultPath } from '../../../src/vault/vault.js';
import { vaultAt } from '../../../src/app/open-vault.js';
import { decodeSealed } from '../../../src/vault/vault-crypto.js';
import { writerGone } from '../../../src/vault/writer.js';
import { inDoubtRecords } from '../../../src/app/recover.js';
import { CliError, ExitCode } from '../../../src/errors.js';
import { toCliError } from '../../../src/app/remote-error.js';
import { renderHint } from '../../../src/hint.js';

/** The vault's typed error as app/ presents it (kind, exit code, message, next step). */
const shown = (err: unknown) => toCliError(err);
import { deadPid, fakeTaskId, killHard, leaks, makeRecord, modUrl, runNodeScript, sha256, writeFormat1Vault } from '../../helpers/vault-helpers.js';
import type { VaultRecord } from '../../../src/vault/vault-record.js';
import { tempDir } from '../../helpers/temp-dirs.js';

const NOKC: NodeJS.ProcessEnv = { MCP_TASKS_NO_KEYCHAIN: '1' };
const home = () => tempDir('mcp-tasks-vault-upgrade-');

/** Every file under `dir`, recursively. */
function allFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath ?? (e as unknown as { path: string }).path, e.name));
}

const storeDirs = (h: string) => readdirSync(h).filter((n) => /^vault-[0-9a-f]{16}\.d$/.test(n));
const byOpId = (recs: VaultRecord[]) => [...recs].sort((a, b) => (a.opId < b.opId ? -1 : 1));

function records(n: number): VaultRecord[] {
  return Array.from({ length: n }, (_, i) => makeRecord({ taskId: fakeTaskId(), labels: { run: `r${i}` }, args: { secret: `ARG-${i}-${fakeTaskId()}` }, ageMs: (n - i) * 1000 }));
}

test('a format-1 vault is upgraded in place once: every record kept, found by ref, nothing in clear', async () => {
  const h = home();
  const recs = records(40);
  const old = await writeFormat1Vault(h, recs);
  const v = vaultAt(h, NOKC);
  assert.deepEqual(byOpId(v.list()), byOpId(recs), 'every record survives the upgrade as it was');
  assert.notDeepEqual(readFileSync(vaultPath(h)), old, 'vault.json is now the manifest');
  assert.equal(decodeSealed(readFileSync(vaultPath(h)))!.key.kind, 'keyfile', 'with the same key source');
  assert.equal(storeDirs(h).length, 1);
  const manifest = sha256(vaultPath(h));
  const again = vaultAt(h, NOKC);
  assert.equal(again.resolve(recs[7]!.taskId!)?.opId, recs[7]!.opId, 'by taskId');
  assert.equal(again.resolve('r12')?.opId, recs[12]!.opId, 'by label value');
  assert.equal(again.resolve(recs[3]!.taskId!.slice(0, 8))?.opId, recs[3]!.opId, 'by prefix');
  assert.deepEqual(again.get(recs[0]!.opId), recs[0]);
  assert.equal(sha256(vaultPath(h)), manifest, 'the upgrade happens once');
  const needles = recs.flatMap((r) => [r.taskId!, r.taskId!.slice(0, 12), String(r.operation.arguments.secret)]);
  for (const f of allFiles(h)) assert.deepEqual(leaks(readFileSync(f), needles), [], `${f} holds a secret`);
  for (const f of allFiles(h)) assert.deepEqual(leaks(Buffer.from(f), needles), [], `the name ${f} holds a secret`);
});

test('an upgrade killed with SIGKILL halfway loses nothing: the old file stays until the new store is verified, a re-run completes it', { timeout: 120_000 }, async () => {
  const h = home();
  const recs = records(1500);
  const old = await writeFormat1Vault(h, recs);
  const upgrader = runNodeScript(
    `import { vaultAt } from ${JSON.stringify(modUrl('app/open-vault.js'))};
     process.stdout.write(String(vaultAt(process.argv[1], { MCP_TASKS_NO_KEYCHAIN: '1' }).list().length) + '\\n');`,
    [h],
  );
  // Kill it as soon as it has written some, not all, records into the new store.
  let written: number;
  for (;;) {
    const dirs = storeDirs(h);
    try {
      written = dirs.length ? readdirSync(join(h, dirs[0]!, 'r')).length : 0;
    } catch {
      written = 0;
    }
    if (written > 0 || upgrader.child.exitCode !== null) break;
    await new Promise((r) => setImmediate(r));
  }
  await killHard(upgrader);
  assert.equal(upgrader.stdout(), '', 'killed before it finished');
  assert.ok(written < recs.length, `killed halfway (${written} of ${recs.length} written)`);
  assert.deepEqual(readFileSync(vaultPath(h)), old, 'the format-1 vault is untouched until the new store is verified');
  const v = vaultAt(h, NOKC);
  assert.deepEqual(byOpId(v.list()), byOpId(recs), 'the re-run completes the upgrade with every record');
  assert.equal(storeDirs(h).length, 1, 'into the same store');
  assert.notDeepEqual(readFileSync(vaultPath(h)), old);
});

test('a submitting record names its writer; writerGone is true once that process is gone', async () => {
  const h = home();
  const v = vaultAt(h, NOKC);
  const rec = makeRecord({ phase: 'submitting' });
  v.put(rec);
  const stored = v.get(rec.opId)!;
  assert.equal(stored.writer?.pid, process.pid);
  assert.equal(writerGone(stored), false, 'this process is alive');
  const pid = await deadPid();
  assert.equal(writerGone({ writer: { pid, startedAtMs: stored.writer!.startedAtMs } }), true, 'a dead pid');
  assert.equal(writerGone({ writer: { pid: process.pid, startedAtMs: stored.writer!.startedAtMs - 3_600_000 } }, () => ({ startedAtMs: stored.writer!.startedAtMs })), true, 'the pid was reused by a later process');
  assert.equal(writerGone({ writer: { pid: process.pid, startedAtMs: 1 } }, () => ({})), false, 'alive, start time unknown: not gone');
  assert.equal(writerGone({}), false, 'no writer recorded: unknown, not gone');
  // recover: a fresh submitting record is in doubt only once its writer is gone.
  assert.deepEqual(inDoubtRecords([stored], Date.now()), [], 'its writer (this process) is alive');
  const orphan = { ...stored, writer: { pid, startedAtMs: stored.writer!.startedAtMs } };
  assert.deepEqual(inDoubtRecords([orphan], Date.now()).map((r) => r.opId), [rec.opId], 'its writer is gone: in doubt at once');
  const active = v.update(rec.opId, (r) => (r.phase = 'active'))!;
  assert.equal(active.writer, undefined, 'only submitting records carry a writer');
});

test('a directory at a lock path is a vault error naming it, not a wait', () => {
  const h = home();
  const v = vaultAt(h, NOKC);
  const rec = makeRecord({ taskId: fakeTaskId() });
  v.put(rec);
  const store = join(h, storeDirs(h)[0]!);
  const lock = join(store, 'l', `${readdirSync(join(store, 'r'))[0]}.lock`);
  mkdirSync(lock);
  assert.throws(
    () => v.update(rec.opId, (r) => (r.phase = 'terminal')),
    (thrown: unknown) => { const err = shown(thrown); return err instanceof CliError && err.exitCode === ExitCode.VaultError && err.message.includes(lock) && /directory/.test(err.message) && renderHint(err.next, 'mcp-tasks').includes(`remove ${lock}`); },
  );
  rmSync(lock, { recursive: true });
  assert.equal(v.update(rec.opId, (r) => (r.phase = 'terminal'))?.phase, 'terminal');

  const fresh = home();
  mkdirSync(join(fresh, 'vault.json.lock'));
  assert.throws(() => vaultAt(fresh, NOKC).put(makeRecord({})), (thrown: unknown) => { const err = shown(thrown); return err instanceof CliError && err.exitCode === ExitCode.VaultError && err.message.includes('vault.json.lock'); });
});

test('list by query reads what it needs: the default view, and --limit takes the newest', () => {
  const h = home();
  const v = vaultAt(h, NOKC);
  const recs = Array.from({ length: 30 }, (_, i) => makeRecord({ taskId: fakeTaskId(), status: i % 3 === 0 ? 'working' : 'completed', ageMs: (30 - i) * 60_000 }));
  for (const r of recs) v.put(r);
  assert.deepEqual(v.list().map((r) => r.opId), recs.map((r) => r.opId), 'list: oldest first');
  assert.deepEqual(v.query({ listedByDefault: true }).map((r) => r.opId), recs.filter((_, i) => i % 3 === 0).map((r) => r.opId));
  assert.deepEqual(v.query({ limit: 4 }).map((r) => r.opId), recs.slice(-4).map((r) => r.opId));
  assert.deepEqual(v.query({ limit: 2, match: (r) => r.phase === 'terminal' }).map((r) => r.opId), recs.filter((r) => r.phase === 'terminal').slice(-2).map((r) => r.opId));
  // A record that finishes leaves the default view; one removed leaves every view.
  v.update(recs[0]!.opId, (r) => (r.phase = 'terminal'));
  v.remove([recs[3]!.opId]);
  assert.deepEqual(v.query({ listedByDefault: true }).map((r) => r.opId), recs.filter((_, i) => i % 3 === 0 && i > 3).map((r) => r.opId));
  assert.equal(v.list().length, 29);
});

test('a record file copied over another record\'s name is refused, and left as it was', () => {
  const h = home();
  const v = vaultAt(h, NOKC);
  const a = makeRecord({ taskId: fakeTaskId() });
  const b = makeRecord({ taskId: fakeTaskId() });
  v.put(a);
  v.put(b);
  const dir = join(h, storeDirs(h)[0]!, 'r');
  const [first, second] = readdirSync(dir);
  copyFileSync(join(dir, first!), join(dir, second!));
  const sum = sha256(join(dir, second!));
  assert.throws(() => vaultAt(h, NOKC).list(), (thrown: unknown) => { const err = shown(thrown); return err instanceof CliError && err.exitCode === ExitCode.VaultError && err.message.includes(join(dir, second!)) && /corrupt/.test(err.message); });
  assert.equal(sha256(join(dir, second!)), sum);
});
