// Housekeeping and hand-over: export → import between two homes (MCP_TASKS_EXPORT_KEY), prune
// of terminal records only, list filters, and refs (label values, unique prefixes, ambiguity).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { addHttpServer, newHome, parseJsonDoc, startDemo, tempDir, type DemoServer, type Home, homeWithServer } from '../helpers/cli.js';
import { fakeTaskId, fileMode, leaks, makeRecord, octal, sha256 } from '../helpers/vault-helpers.js';
import { vaultAt } from '../../src/app/open-vault.js';
import { typeableRef, type VaultRecord } from '../../src/vault/vault-record.js';

const EXPORT_KEY = 'a long shared export passphrase';
const NOKC = { MCP_TASKS_NO_KEYCHAIN: '1' };

/** Write crafted records straight into a home's vault (key file, as the CLI with CI=1 uses). */
function seed(h: Home, records: VaultRecord[]): void {
  const v = vaultAt(h.dir, NOKC);
  for (const r of records) v.put(r);
}

async function listJson(h: Home, args: string[] = []): Promise<Array<{ opId: string; taskId: string; phase: string; status: string; server: string; labels: Record<string, string> }>> {
  const r = await h.run(['list', '--json', ...args]);
  assert.equal(r.code, 0, r.stderr);
  return parseJsonDoc(r.stdout);
}

const ids = (recs: Array<{ opId: string }>) => recs.map((r) => r.opId).sort();

describe('export and import between two homes', { concurrency: 2, timeout: 120_000 }, () => {
  let demo: DemoServer;
  before(async () => {
    demo = await startDemo();
  });
  after(async () => {
    await demo?.stop();
  });

  test('round trip: the other home can follow the tasks; importing twice adds nothing', async () => {
    const ci = newHome();
    const oncall = newHome();
    await addHttpServer(ci, 'web', demo.url);
    await addHttpServer(oncall, 'web', demo.url);
    const a = await ci.run(['call', 'web', 'slow_compute', 'seconds=600', '--detach', '--json', '--label', 'ci.run=build-1']);
    const b = await ci.run(['call', 'web', 'slow_compute', 'seconds=0', '--json', '--label', 'ci.run=build-2']);
    assert.equal(a.code, 0, a.stderr);
    assert.equal(b.code, 0, b.stderr);
    const taskA = parseJsonDoc(a.stdout).taskId as string;
    const taskB = parseJsonDoc(b.stdout).taskId as string;

    const bundle = join(tempDir(), 'handoff.bundle');
    const exp = await ci.run(['export', 'build-1', 'build-2', '--out', bundle], { env: { MCP_TASKS_EXPORT_KEY: EXPORT_KEY } });
    assert.equal(exp.code, 0, exp.stderr);
    assert.match(exp.stderr, /exported 2 task\(s\)/);
    assert.equal(octal(fileMode(bundle)), '0600');
    const text = readFileSync(bundle, 'utf8');
    assert.ok(text.startsWith('mcp-tasks-export v1\n'));
    assert.deepEqual(leaks(Buffer.from(text), [taskA, taskB, taskA.slice(0, 12), 'build-1']), [], 'the bundle is encrypted');
    const bundleSum = sha256(bundle);

    const vaultBefore = (h: Home) => sha256(join(h.dir, 'vault.json'));
    // Seed the on-call vault so its bytes can be compared across refused imports.
    const prior = await oncall.run(['call', 'web', 'slow_compute', 'seconds=600', '--detach']);
    assert.equal(prior.code, 0, prior.stderr);
    const sum = vaultBefore(oncall);

    const wrong = await oncall.run(['import', bundle], { env: { MCP_TASKS_EXPORT_KEY: 'not the export passphrase' } });
    assert.equal(wrong.code, 9, wrong.stderr);
    assert.match(wrong.stderr, /wrong MCP_TASKS_EXPORT_KEY/);
    const missing = await oncall.run(['import', bundle]);
    assert.equal(missing.code, 1, missing.stderr);
    assert.match(missing.stderr, /MCP_TASKS_EXPORT_KEY is not set/);
    const short = await oncall.run(['import', bundle], { env: { MCP_TASKS_EXPORT_KEY: 'short' } });
    assert.equal(short.code, 1);
    assert.equal(vaultBefore(oncall), sum, 'refused imports leave the vault as it was');

    const damaged = join(tempDir(), 'damaged.bundle');
    writeFileSync(damaged, text.slice(0, Math.floor(text.length / 2)));
    const dmg = await oncall.run(['import', damaged], { env: { MCP_TASKS_EXPORT_KEY: EXPORT_KEY } });
    assert.notEqual(dmg.code, 0);
    assert.ok(dmg.code === 1 || dmg.code === 9, `a damaged bundle is refused (${dmg.code}): ${dmg.stderr}`);
    assert.equal(vaultBefore(oncall), sum);

    const first = await oncall.run(['import', bundle, '--json'], { env: { MCP_TASKS_EXPORT_KEY: EXPORT_KEY } });
    assert.equal(first.code, 0, first.stderr);
    assert.deepEqual(parseJsonDoc(first.stdout), { imported: 2, alreadyPresent: 0, warnings: [] });
    const second = await oncall.run(['import', bundle, '--json'], { env: { MCP_TASKS_EXPORT_KEY: EXPORT_KEY } });
    assert.equal(second.code, 0, second.stderr);
    assert.deepEqual(parseJsonDoc(second.stdout), { imported: 0, alreadyPresent: 2, warnings: [] });
    assert.equal(sha256(bundle), bundleSum, 'import does not touch the bundle');

    const recs = await listJson(oncall, ['--all']);
    assert.equal(recs.length, 3);
    assert.ok(recs.some((r) => r.taskId === taskA && r.labels['ci.run'] === 'build-1'));
    assert.ok(recs.some((r) => r.taskId === taskB && r.phase === 'terminal' && r.status === 'completed'), 'the persisted result travels');
    const get = await oncall.run(['get', 'build-1', '--json']);
    assert.equal(get.code, 0, get.stderr);
    assert.equal(parseJsonDoc(get.stdout).taskId, taskA);
    assert.equal(parseJsonDoc(get.stdout).status, 'working');

    // A home without the server is told which server to add.
    const bare = newHome();
    const warn = await bare.run(['import', bundle, '--json'], { env: { MCP_TASKS_EXPORT_KEY: EXPORT_KEY } });
    assert.equal(warn.code, 0, warn.stderr);
    const doc = parseJsonDoc(warn.stdout);
    assert.equal(doc.imported, 2);
    assert.match(doc.warnings[0], /server "web" is not configured here; add it \(http:\/\/127\.0\.0\.1:\d+\/mcp\)/);
  });

  test('export of an unknown ref, or without the key, exits 1 and writes nothing', async () => {
    const h = newHome();
    seed(h, [makeRecord({ taskId: fakeTaskId(), labels: { job: 'known' } })]);
    const out = join(tempDir(), 'x.bundle');
    const unknown = await h.run(['export', 'nope-nope', '--out', out], { env: { MCP_TASKS_EXPORT_KEY: EXPORT_KEY } });
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /no task in the vault matches "nope-nope"/);
    const nokey = await h.run(['export', 'known', '--out', out]);
    assert.equal(nokey.code, 1);
    assert.throws(() => readFileSync(out), /ENOENT/);
    const stdout = await h.run(['export', 'known'], { env: { MCP_TASKS_EXPORT_KEY: EXPORT_KEY } });
    assert.equal(stdout.code, 0, stdout.stderr);
    assert.ok(stdout.stdout.startsWith('mcp-tasks-export v1\n'), 'without --out the bundle goes to stdout');
  });
});

describe('prune, list filters and refs', { concurrency: 4, timeout: 120_000 }, () => {
  const HOUR = 3_600_000;

  test('prune removes only terminal records; --older-than keeps recent ones', async () => {
    const h = newHome();
    const oldDone = makeRecord({ taskId: fakeTaskId(), status: 'completed', ageMs: 3 * HOUR });
    const oldFailed = makeRecord({ taskId: fakeTaskId(), status: 'failed', ageMs: 3 * HOUR });
    const oldCancelled = makeRecord({ taskId: fakeTaskId(), status: 'cancelled', ageMs: 3 * HOUR });
    const newDone = makeRecord({ taskId: fakeTaskId(), status: 'completed', ageMs: 60_000 });
    const oldActive = makeRecord({ taskId: fakeTaskId(), status: 'working', ageMs: 3 * HOUR });
    const oldInput = makeRecord({ taskId: fakeTaskId(), status: 'input_required', ageMs: 3 * HOUR });
    const oldLost = makeRecord({ taskId: fakeTaskId(), phase: 'lost', ageMs: 3 * HOUR, reason: 'the server no longer knows this task' });
    const oldInDoubt = makeRecord({ phase: 'in-doubt', ageMs: 3 * HOUR, reason: 'no handle' });
    const oldSubmitting = makeRecord({ phase: 'submitting', ageMs: 3 * HOUR });
    seed(h, [oldDone, oldFailed, oldCancelled, newDone, oldActive, oldInput, oldLost, oldInDoubt, oldSubmitting]);
    const keep = [oldActive, oldInput, oldLost, oldInDoubt, oldSubmitting];

    const r1 = await h.run(['prune', '--older-than', '1h', '--json']);
    assert.equal(r1.code, 0, r1.stderr);
    assert.deepEqual(parseJsonDoc(r1.stdout), { pruned: 3 });
    assert.deepEqual(ids(await listJson(h, ['--all'])), ids([...keep, newDone]));

    const r2 = await h.run(['prune', '--older-than', '2h']);
    assert.equal(r2.code, 0);
    assert.match(r2.stdout, /pruned 0 finished task record\(s\); active, lost and in-doubt records are kept/);

    const r3 = await h.run(['prune', '--terminal', '--json']);
    assert.deepEqual(parseJsonDoc(r3.stdout), { pruned: 1 });
    assert.deepEqual(ids(await listJson(h, ['--all'])), ids(keep), 'nothing without a persisted terminal state is dropped');

    const bad = await h.run(['prune', '--older-than', 'yesterday']);
    assert.equal(bad.code, 1);
  });

  test('list: active by default; --all, --server, --status, --label (ANDed)', async () => {
    const h = newHome();
    const alphaIdentity = { kind: 'http' as const, url: 'http://127.0.0.1:9/alpha' };
    const w1 = makeRecord({ taskId: fakeTaskId(), server: 'alpha', identity: alphaIdentity, status: 'working', labels: { team: 'search', env: 'prod' }, ageMs: 5000 });
    const w2 = makeRecord({ taskId: fakeTaskId(), server: 'beta', status: 'working', labels: { team: 'search', env: 'dev' }, ageMs: 4000 });
    const inp = makeRecord({ taskId: fakeTaskId(), server: 'alpha', identity: alphaIdentity, status: 'input_required', labels: { team: 'ads' }, ageMs: 3000 });
    const done = makeRecord({ taskId: fakeTaskId(), server: 'alpha', identity: alphaIdentity, status: 'completed', labels: { team: 'search', env: 'prod' }, ageMs: 2000 });
    const failed = makeRecord({ taskId: fakeTaskId(), server: 'beta', status: 'failed', labels: {}, ageMs: 1500 });
    const lost = makeRecord({ taskId: fakeTaskId(), server: 'beta', phase: 'lost', labels: { team: 'ads' }, ageMs: 1000 });
    const doubt = makeRecord({ server: 'alpha', identity: alphaIdentity, phase: 'in-doubt', labels: { team: 'search' }, ageMs: 500 });
    seed(h, [done, w1, failed, w2, lost, inp, doubt]);

    const cases: Array<[string[], VaultRecord[]]> = [
      [[], [w1, w2, inp, lost, doubt]],
      [['--all'], [w1, w2, inp, done, failed, lost, doubt]],
      [['--server', 'alpha'], [w1, inp, doubt]],
      [['--server', 'alpha', '--all'], [w1, inp, done, doubt]],
      [['--status', 'working'], [w1, w2]],
      [['--status', 'completed'], [done]],
      [['--status', 'failed', '--server', 'beta'], [failed]],
      [['--status', 'input_required'], [inp]],
      [['--status', 'lost'], [lost]],
      [['--status', 'in-doubt'], [doubt]],
      [['--status', 'terminal'], [done, failed]],
      [['--label', 'team=search'], [w1, w2, doubt]],
      [['--label', 'team=search', '--all'], [w1, w2, done, doubt]],
      [['--label', 'team=search', '--label', 'env=prod', '--all'], [w1, done]],
      [['--label', 'team=search', '--server', 'beta'], [w2]],
      [['--label', 'team=nobody', '--all'], []],
      [['--server', 'gamma', '--all'], []],
    ];
    await Promise.all(
      cases.map(async ([args, expected]) => {
        const got = await listJson(h, args);
        assert.deepEqual(got.map((r) => r.opId), expected.map((r) => r.opId), `list ${args.join(' ')}`);
      }),
    );
    const text = await h.run(['list', '--all']);
    assert.equal(text.code, 0);
    assert.equal(text.stdout.trim().split('\n').length, 8, 'a header row and the seven records');
    // A base64url id that begins with "-" would read as an option: the list shows an opId prefix for it.
    assert.ok(text.stdout.includes(typeableRef(w1, 10)), 'each row shows a ref a person can type');
    assert.ok(!text.stdout.includes(w1.taskId!), 'human output shows short prefixes, not whole handles');
    const empty = newHome();
    assert.match((await empty.run(['list'])).stdout, /the vault is empty/);
    assert.match((await empty.run(['list', '--all'])).stdout, /the vault is empty/);
    const badLabel = await h.run(['list', '--label', 'novalue']);
    assert.equal(badLabel.code, 1);
  });

  test('refs: full taskId, opId, label value, unique prefix of 6+, too short, ambiguous', async () => {
    const h = newHome();
    const x = makeRecord({ taskId: 'Qx7Lm2' + 'a' + fakeTaskId().slice(7), labels: { run: 'nightly-7' } });
    const y = makeRecord({ taskId: 'Qx7Lm2' + 'b' + fakeTaskId().slice(7), labels: { run: 'shared-label' } });
    const z = makeRecord({ taskId: 'Zz9' + fakeTaskId().slice(3), labels: { other: 'shared-label' } });
    seed(h, [x, y, z]);
    const show = async (ref: string) => h.run(['show', ref, '--json']);
    const resolved = async (ref: string, rec: VaultRecord) => {
      const r = await show(ref);
      assert.equal(r.code, 0, `${ref}: ${r.stderr}`);
      assert.equal(parseJsonDoc(r.stdout).opId, rec.opId, ref);
    };
    await Promise.all([
      resolved(x.taskId!, x),
      resolved(x.opId, x),
      resolved('nightly-7', x),
      resolved('Qx7Lm2a', x),
      resolved('Qx7Lm2b', y),
      resolved(z.taskId!.slice(0, 6), z),
      resolved(y.opId.slice(0, 8), y),
    ]);
    const tooShort = await show(z.taskId!.slice(0, 5));
    assert.equal(tooShort.code, 1);
    assert.match(tooShort.stdout, /no task in the vault matches/);
    const ambiguous = await h.run(['show', 'Qx7Lm2']);
    assert.equal(ambiguous.code, 1);
    assert.match(ambiguous.stderr, /"Qx7Lm2" matches 2 vault records/);
    assert.match(ambiguous.stderr, /Give a longer prefix/);
    assert.ok(!ambiguous.stderr.includes(x.taskId!) && !ambiguous.stderr.includes(y.taskId!), 'whole handles are not echoed');
    const ambiguousLabel = await h.run(['show', 'shared-label']);
    assert.equal(ambiguousLabel.code, 1);
    assert.match(ambiguousLabel.stderr, /"shared-label" matches 2 vault records/);
    const getAmbiguous = await h.run(['get', 'Qx7Lm2']);
    assert.equal(getAmbiguous.code, 1, 'get refuses an ambiguous ref before contacting anything');
    assert.match(getAmbiguous.stderr, /matches 2 vault records/);
  });
});

describe('refs against a live server', { timeout: 120_000 }, () => {
  let demo: DemoServer;
  before(async () => {
    demo = await startDemo();
  });
  after(async () => {
    await demo?.stop();
  });

  test('get <label value>, get <unique 6-character prefix>, and the ref printed by call --detach', async () => {
    const h = await homeWithServer('web', demo.url);
    const labelled = await h.run(['call', 'web', 'slow_compute', 'seconds=600', '--detach', '--label', 'deploy=release-2026-11']);
    assert.equal(labelled.code, 0, labelled.stderr);
    // The ref printed in the next steps works exactly as printed.
    const printed = /check once: mcp-tasks get (.+)$/m.exec(labelled.stdout)?.[1];
    assert.ok(printed, labelled.stdout);
    const again = await h.run(['get', ...printed.trim().split(/\s+/)]);
    assert.equal(again.code, 0, `get ${printed}: ${again.stderr}`);
    const plain = await h.run(['call', 'web', 'slow_compute', 'seconds=600', '--detach', '--json']);
    const taskId = parseJsonDoc(plain.stdout).taskId as string;

    const byLabel = await h.run(['get', 'release-2026-11', '--json']);
    assert.equal(byLabel.code, 0, byLabel.stderr);
    assert.equal(parseJsonDoc(byLabel.stdout).labels.deploy, 'release-2026-11');
    const byPrefix = await h.run(['--json', 'get', '--', taskId.slice(0, 6)]);
    assert.equal(byPrefix.code, 0, byPrefix.stderr);
    assert.equal(parseJsonDoc(byPrefix.stdout).taskId, taskId);
    const unknown = await h.run(['get', 'nothing-like-this']);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /no task in the vault matches "nothing-like-this"/);
  });
});
