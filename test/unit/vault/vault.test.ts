// The Vault class on real files: put / update / resolve / merge / remove, a second instance
// seeing the first one's writes, the key sources (key file, passphrase), and refusals that leave
// the file byte for byte as it was.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { vaultPath, MIN_REF_PREFIX } from '../../../src/vault/vault.js';
import { vaultAt } from '../../../src/app/open-vault.js';
import { decodeSealed, encodeSealed, keyFilePath } from '../../../src/vault/vault-crypto.js';
import { CliError, ExitCode } from '../../../src/errors.js';
import { toCliError } from '../../../src/app/remote-error.js';
import { fakeTaskId, fileMode, makeRecord, modUrl, octal, runNodeScript, sha256 } from '../../helpers/vault-helpers.js';
import { removeAtExit, tempDir } from '../../helpers/temp-dirs.js';

/** The OS keychain is opted out of (as with CI=1), so these tests always use the key file. */
const NOKC: NodeJS.ProcessEnv = { MCP_TASKS_NO_KEYCHAIN: '1' };

const home = () => tempDir('mcp-tasks-vault-unit-');

// What a person sees: the vault's typed error as app/ presents it.
const isVaultError = (pattern: RegExp) => (thrown: unknown) => {
  const err = toCliError(thrown);
  assert.ok(err instanceof CliError, `expected a vault error, got ${String(thrown)}`);
  assert.equal(err.kind, 'vault');
  assert.equal(err.exitCode, ExitCode.VaultError);
  assert.match(err.message, pattern);
  return true;
};

describe('Vault records', () => {
  test('put, get, list; a second instance reads what the first wrote; files are 0600', () => {
    const h = home();
    const notices: string[] = [];
    const v = vaultAt(h, NOKC, (t) => notices.push(t));
    assert.deepEqual(v.list(), [], 'a missing vault reads as empty');
    assert.equal(existsSync(vaultPath(h)), false, 'reading never creates the vault');
    const a = makeRecord({ taskId: fakeTaskId(), labels: { run: 'nightly' } });
    v.put(a);
    assert.equal(notices.length, 1, 'one notice when the key file is created');
    assert.match(notices[0]!, /created a vault key/);
    assert.deepEqual(v.get(a.opId), a);
    const b = makeRecord({ taskId: fakeTaskId() });
    v.put(b);
    assert.equal(notices.length, 1, 'the key file is created once');
    const fresh = vaultAt(h, NOKC);
    assert.deepEqual(
      fresh.list().map((r) => r.opId).sort(),
      [a.opId, b.opId].sort(),
    );
    assert.equal(fresh.get('constructor'), undefined, 'prototype names are not records');
    assert.equal(octal(fileMode(vaultPath(h))), '0600');
    assert.equal(octal(fileMode(keyFilePath(h))), '0600');
    const text = readFileSync(vaultPath(h));
    assert.ok(!text.includes(a.taskId!), 'the taskId is not in the file in clear');
    assert.ok(!text.includes('nightly'), 'labels are not in the file in clear');
  });

  test('update re-reads under the lock: a stale instance does not lose a peer\'s write', () => {
    const h = home();
    const one = vaultAt(h, NOKC);
    const two = vaultAt(h, NOKC);
    const a = makeRecord({ taskId: fakeTaskId() });
    one.put(a);
    assert.equal(two.list().length, 1); // two now has a cached copy
    const b = makeRecord({ taskId: fakeTaskId() });
    one.put(b);
    // two's cache is stale (it lacks b); its write must still keep b.
    const updated = two.update(a.opId, (r) => {
      r.phase = 'terminal';
      r.labels.seen = 'yes';
    });
    assert.equal(updated?.phase, 'terminal');
    assert.equal(updated?.labels.seen, 'yes');
    assert.equal(two.update('no-such-op', () => assert.fail('not called')), undefined);
    const all = vaultAt(h, NOKC).list();
    assert.equal(all.length, 2, 'the peer\'s record survived');
    assert.equal(all.find((r) => r.opId === a.opId)?.phase, 'terminal');
  });

  test('remove deletes only the named records', () => {
    const h = home();
    const v = vaultAt(h, NOKC);
    const recs = [1, 2, 3].map(() => makeRecord({ taskId: fakeTaskId() }));
    for (const r of recs) v.put(r);
    assert.equal(v.remove([recs[0]!.opId, 'unknown']), 1);
    assert.deepEqual(
      vaultAt(h, NOKC).list().map((r) => r.opId).sort(),
      [recs[1]!.opId, recs[2]!.opId].sort(),
    );
  });

  test('merge adds only records whose opId and (server, taskId) are new', () => {
    const h = home();
    const v = vaultAt(h, NOKC);
    const a = makeRecord({ taskId: fakeTaskId(), server: 'web' });
    v.put(a);
    const sameOp = { ...makeRecord({ taskId: fakeTaskId() }), opId: a.opId };
    const sameHandle = makeRecord({ taskId: a.taskId!, server: 'web' });
    const sameIdOtherServer = makeRecord({ taskId: a.taskId!, server: 'other' });
    const fresh1 = makeRecord({ taskId: fakeTaskId() });
    const inDoubt = makeRecord({});
    assert.equal(v.merge([sameOp, sameHandle, sameIdOtherServer, fresh1, inDoubt, fresh1]), 3);
    const all = vaultAt(h, NOKC).list();
    assert.equal(all.length, 4);
    assert.deepEqual(all.find((r) => r.opId === a.opId), a, 'an existing record is never overwritten by an import');
    assert.equal(v.merge([sameOp, sameHandle, sameIdOtherServer, fresh1, inDoubt]), 0, 'merging again adds nothing');
  });

  test('resolve: taskId, opId, label value, unique prefix of at least 6, ambiguity', () => {
    const h = home();
    const v = vaultAt(h, NOKC);
    const a = makeRecord({ taskId: 'abcdef1' + fakeTaskId().slice(7), labels: { run: 'nightly-42' } });
    const b = makeRecord({ taskId: 'abcdef2' + fakeTaskId().slice(7), labels: { run: 'shared' } });
    const c = makeRecord({ taskId: 'zzzzzz' + fakeTaskId().slice(6), labels: { other: 'shared' } });
    const d = makeRecord({ opId: 'op-in-doubt-0001' });
    for (const r of [a, b, c, d]) v.put(r);
    assert.equal(MIN_REF_PREFIX, 6);
    assert.equal(v.resolve(a.taskId!)?.opId, a.opId, 'full taskId');
    assert.equal(v.resolve(a.opId)?.opId, a.opId, 'full opId');
    assert.equal(v.resolve('nightly-42')?.opId, a.opId, 'label value');
    assert.equal(v.resolve('abcdef1')?.opId, a.opId, 'unique 7-character prefix');
    assert.equal(v.resolve('zzzzzz')?.opId, c.opId, 'unique 6-character prefix');
    assert.equal(v.resolve('zzzzz'), undefined, '5 characters are not a ref');
    assert.equal(v.resolve('op-in-doubt')?.opId, d.opId, 'a unique opId prefix');
    assert.equal(v.resolve('nothing-like-it'), undefined);
    assert.throws(() => v.resolve('abcdef'), (thrown: unknown) => {
      const err = toCliError(thrown);
      assert.ok(err instanceof CliError);
      assert.equal(err.exitCode, ExitCode.Usage);
      assert.match(err.message, /"abcdef" matches 2 vault records/);
      assert.ok(!err.message.includes(a.taskId!), 'the full handle is not echoed');
      return true;
    });
    assert.throws(() => v.resolve('shared'), /"shared" matches 2 vault records/);
  });
});

describe('Vault keys and refusals', () => {
  test('passphrase mode: no key file; another or no passphrase is a vault error and nothing changes', () => {
    const h = home();
    const v = vaultAt(h, { MCP_TASKS_VAULT_KEY: 'correct horse battery staple' });
    v.put(makeRecord({ taskId: fakeTaskId() }));
    assert.equal(existsSync(keyFilePath(h)), false, 'no key file in passphrase mode');
    const sealed = decodeSealed(readFileSync(vaultPath(h)))!;
    assert.equal(sealed.key.kind, 'passphrase');
    const before = sha256(vaultPath(h));
    const wrong = vaultAt(h, { MCP_TASKS_VAULT_KEY: 'Tr0ub4dor&3' });
    assert.throws(() => wrong.list(), isVaultError(/wrong MCP_TASKS_VAULT_KEY/));
    assert.throws(() => wrong.put(makeRecord({ taskId: fakeTaskId() })), isVaultError(/wrong MCP_TASKS_VAULT_KEY/));
    assert.throws(() => vaultAt(h, NOKC).list(), isVaultError(/MCP_TASKS_VAULT_KEY is not set/));
    assert.throws(() => vaultAt(h, NOKC).put(makeRecord({})), isVaultError(/MCP_TASKS_VAULT_KEY is not set/));
    assert.equal(sha256(vaultPath(h)), before);
    assert.equal(existsSync(keyFilePath(h)), false, 'a refused write did not create a key file');
    assert.equal(vaultAt(h, { MCP_TASKS_VAULT_KEY: 'correct horse battery staple' }).list().length, 1);
  });

  test('a missing or foreign key file is a vault error; the key file is not recreated', () => {
    const h = home();
    vaultAt(h, NOKC).put(makeRecord({ taskId: fakeTaskId() }));
    const before = sha256(vaultPath(h));
    const key = readFileSync(keyFilePath(h));
    unlinkSync(keyFilePath(h));
    assert.throws(() => vaultAt(h, NOKC).list(), isVaultError(/vault\.key .*missing/));
    assert.throws(() => vaultAt(h, NOKC).put(makeRecord({})), isVaultError(/missing/));
    assert.equal(existsSync(keyFilePath(h)), false, 'a new key would orphan the vault');
    writeFileSync(keyFilePath(h), Buffer.alloc(32, 7).toString('base64') + '\n', { mode: 0o600 });
    assert.throws(() => vaultAt(h, NOKC).list(), isVaultError(/cannot be decrypted with vault\.key/));
    writeFileSync(keyFilePath(h), 'c2hvcnQ=\n', { mode: 0o600 });
    assert.throws(() => vaultAt(h, NOKC).list(), isVaultError(/damaged/));
    assert.equal(sha256(vaultPath(h)), before);
    writeFileSync(keyFilePath(h), key);
    assert.equal(vaultAt(h, NOKC).list().length, 1);
  });

  test('a vault written by a newer version is refused, and a write does not touch it', () => {
    const h = home();
    vaultAt(h, NOKC).put(makeRecord({ taskId: fakeTaskId() }));
    const sealed = decodeSealed(readFileSync(vaultPath(h)))!;
    writeFileSync(vaultPath(h), encodeSealed({ ...sealed, version: 2 }));
    const before = sha256(vaultPath(h));
    assert.throws(() => vaultAt(h, NOKC).list(), isVaultError(/newer mcp-tasks \(format 2\)/));
    assert.throws(() => vaultAt(h, NOKC).put(makeRecord({})), isVaultError(/newer/));
    assert.equal(sha256(vaultPath(h)), before);
  });

  test('corrupt and truncated files are refused and left as they were', () => {
    const h = home();
    vaultAt(h, NOKC).put(makeRecord({ taskId: fakeTaskId() }));
    const good = readFileSync(vaultPath(h));
    const flipped = Buffer.from(good);
    flipped.writeUInt8(flipped.readUInt8(flipped.length - 3) ^ 0x01, flipped.length - 3);
    const variants: Array<[string, Buffer, RegExp]> = [
      ['one ciphertext bit flipped', flipped, /cannot be decrypted/],
      ['truncated to half', good.subarray(0, Math.floor(good.length / 2)), /corrupt|cannot be decrypted/],
      ['truncated inside the header', good.subarray(0, 30), /corrupt/],
      ['empty', Buffer.alloc(0), /corrupt/],
      ['not a vault', Buffer.from('{"records":{}}\n'), /corrupt/],
    ];
    for (const [name, bytes, message] of variants) {
      writeFileSync(vaultPath(h), bytes);
      const before = sha256(vaultPath(h));
      assert.throws(() => vaultAt(h, NOKC).list(), isVaultError(message), name);
      assert.throws(() => vaultAt(h, NOKC).put(makeRecord({})), isVaultError(message), name);
      assert.equal(sha256(vaultPath(h)), before, `${name}: bytes unchanged`);
    }
  });
});

interface KeyringEntry {
  deletePassword(): boolean;
}
const keyring = () => createRequire(import.meta.url)('@napi-rs/keyring') as { Entry: new (s: string, a: string) => KeyringEntry };

// First among the keychain tests, so that this process has not yet touched (and created) a kernel
// session keyring that the writer and reader below would both inherit.
describe('Vault key in the OS keychain, across processes', () => {
  test(
    'a key kept in the keychain by one process opens the vault in the next process',
    {
      timeout: 30_000,
    },
    async (t) => {
      const h = home();
      const writer = runNodeScript(
        `import { mkdtempSync } from 'node:fs';
         import { tmpdir } from 'node:os';
         import { join } from 'node:path';
         import { readFileSync } from 'node:fs';
         import { vaultPath } from ${JSON.stringify(modUrl('vault/vault.js'))};
         import { vaultAt } from ${JSON.stringify(modUrl('app/open-vault.js'))};
         import { decodeSealed } from ${JSON.stringify(modUrl('vault/vault-crypto.js'))};
         const target = process.argv[1];
         const rec = (opId) => ({ opId, taskId: 'T' + opId, server: { name: 'web', identity: { kind: 'http', url: 'http://127.0.0.1:9/mcp' } }, auth: { kind: 'none' },
           operation: { method: 'tools/call', name: 'slow_compute', arguments: {}, submittedAt: new Date().toISOString() }, phase: 'active',
           history: [], inputKeysSeen: [], inputKeysAnswered: [], labels: {}, createdAt: new Date().toISOString(), updatedAt: new Date().toISOString() });
         const warm = mkdtempSync(join(tmpdir(), 'mcp-tasks-kc-warm-'));
         vaultAt(warm, {}).put(rec('warm-up'));
         vaultAt(target, {}).put(rec('the-one'));
         process.stdout.write(JSON.stringify({ warm, warmKey: decodeSealed(readFileSync(vaultPath(warm))).key, key: decodeSealed(readFileSync(vaultPath(target))).key }) + '\\n');`,
        [h],
      );
      const end = await writer.done;
      assert.equal(end.code, 0, writer.stderr());
      const info = JSON.parse(writer.stdout()) as { warm: string; warmKey: { kind: string; service?: string; account?: string }; key: { kind: string; service?: string; account?: string } };
      removeAtExit(info.warm);
      for (const k of [info.key, info.warmKey]) {
        if (k.kind === 'keychain') t.after(() => void new (keyring().Entry)(k.service!, k.account!).deletePassword());
      }
      if (info.key.kind !== 'keychain') {
        t.skip(`no usable OS keychain here (the vault uses ${info.key.kind})`);
        return;
      }
      const reader = runNodeScript(
        `import { vaultAt } from ${JSON.stringify(modUrl('app/open-vault.js'))};
         try { process.stdout.write(String(vaultAt(process.argv[1], {}).list().length)); }
         catch (err) { process.stdout.write('ERROR ' + err.message); }`,
        [h],
      );
      await reader.done;
      assert.equal(reader.stdout(), '1', 'the next process reads the vault');
    },
  );
});

describe('Vault key in the OS keychain (only where one is usable)', () => {
  /**
   * Creates a vault without opting out of the keychain; undefined (and the test skipped) when none
   * is usable. The first keychain write of a process can fail where a later one works, so two tries.
   */
  function keychainVault(t: { skip(msg: string): void; after(fn: () => void): void }): { h: string; account: string } | undefined {
    let kind = 'none';
    for (let attempt = 0; attempt < 2; attempt++) {
      const h = home();
      vaultAt(h, {}).put(makeRecord({ taskId: fakeTaskId() }));
      const sealed = decodeSealed(readFileSync(vaultPath(h)))!;
      kind = sealed.key.kind;
      if (sealed.key.kind !== 'keychain') continue;
      const { service, account } = sealed.key;
      t.after(() => {
        try {
          new (keyring().Entry)(service, account).deletePassword();
        } catch {
          /* already gone */
        }
      });
      return { h, account };
    }
    t.skip(`no usable OS keychain here (the vault uses ${kind})`);
    return undefined;
  }

  test('no key file is written; the vault reads back', (t) => {
    const kv = keychainVault(t);
    if (!kv) return;
    assert.equal(existsSync(keyFilePath(kv.h)), false);
    assert.equal(vaultAt(kv.h, {}).list().length, 1);
    assert.ok(!readFileSync(vaultPath(kv.h)).includes(kv.h), 'the header names an account, not the home path');
  });

  test('a missing keychain entry is a vault error and the vault is left as it was', (t) => {
    const kv = keychainVault(t);
    if (!kv) return;
    const before = sha256(vaultPath(kv.h));
    new (keyring().Entry)('mcp-tasks', kv.account).deletePassword();
    assert.throws(() => vaultAt(kv.h, {}).list(), isVaultError(/missing from the OS keychain/));
    assert.throws(() => vaultAt(kv.h, {}).put(makeRecord({})), isVaultError(/missing from the OS keychain/));
    assert.equal(sha256(vaultPath(kv.h)), before);
  });

  test(
    'a vault moved aside (as the corrupt-vault message advises) stays readable after a new vault is created in the same home',
    {
    },
    (t) => {
      const kv = keychainVault(t);
      if (!kv) return;
      const backup = readFileSync(vaultPath(kv.h));
      unlinkSync(vaultPath(kv.h));
      vaultAt(kv.h, {}).put(makeRecord({ taskId: fakeTaskId() }));
      const second = decodeSealed(readFileSync(vaultPath(kv.h)))!;
      if (second.key.kind === 'keychain' && second.key.account !== kv.account) {
        const { service, account } = second.key;
        t.after(() => void new (keyring().Entry)(service, account).deletePassword());
      }
      writeFileSync(vaultPath(kv.h), backup);
      assert.equal(vaultAt(kv.h, {}).list().length, 1, 'the backed-up vault can still be opened');
    },
  );
});

describe('the identical-call check reads no history', () => {
  /** Every hint file of the vault at `h`, as `<hint>.<hop>` names. */
  const hintFiles = (h: string): Set<string> => {
    const dir = readdirSync(h).find((d) => /^vault-.*\.d$/.test(d));
    assert.ok(dir, 'the vault has its record directory');
    const out = new Set<string>();
    for (const sub of readdirSync(join(h, dir, 'i'))) for (const name of readdirSync(join(h, dir, 'i', sub))) out.add(`${sub}/${name}`);
    return out;
  };
  const added = (before: Set<string>, after: Set<string>) => [...after].filter((n) => !before.has(n));
  const hintOf = (name: string) => name.slice(0, name.indexOf('.'));

  test('only a call without its handle is hinted by its intent; a settled one hinted by 0.2.0 loses the hint at the next check', () => {
    const h = home();
    const v = vaultAt(h, NOKC);
    const same = { tool: 'pay', args: { to: 'acme', amount: 5 } };
    const a = makeRecord({ ...same, phase: 'submitting' });
    v.put(makeRecord({ tool: 'other' })); // the vault exists before the hints are counted
    const start = hintFiles(h);
    v.put(a);
    const ofA = added(start, hintFiles(h));
    const b = makeRecord({ ...same, phase: 'in-doubt' });
    const beforeB = hintFiles(h);
    v.put(b);
    const ofB = added(beforeB, hintFiles(h));
    // The one hint both carry is their intent's (the others are of their own opIds).
    const shared = ofA.filter((n) => ofB.some((m) => hintOf(m) === hintOf(n)));
    assert.equal(shared.length, 1, `one intent hint each: ${ofA.join(', ')} / ${ofB.join(', ')}`);
    const intentOfA = shared[0]!;
    assert.deepEqual(v.unsettledSameIntent(a).map((r) => r.opId).sort(), [a.opId, b.opId].sort());

    // A gets its handle: its intent hint goes, B's stays.
    v.update(a.opId, (r) => {
      r.taskId = fakeTaskId();
      r.phase = 'active';
    });
    const now = hintFiles(h);
    assert.ok(!now.has(intentOfA), 'a record holding its handle carries no intent hint');
    assert.ok(ofB.some((n) => hintOf(n) === hintOf(intentOfA) && now.has(n)), 'the unsettled one keeps its intent hint');
    assert.deepEqual(v.unsettledSameIntent(a).map((r) => r.opId), [b.opId]);

    // As 0.2.0 left it: the settled record still hinted. The next check drops the hint, and answers the same.
    const dir = readdirSync(h).find((d) => /^vault-.*\.d$/.test(d))!;
    writeFileSync(join(h, dir, 'i', intentOfA), '');
    assert.deepEqual(v.unsettledSameIntent(a).map((r) => r.opId), [b.opId]);
    assert.ok(!hintFiles(h).has(intentOfA), 'the stale intent hint was removed');
    assert.ok(v.get(a.opId)?.taskId, 'the settled record itself is untouched');

    // Removing a record removes its intent hint too.
    v.remove([b.opId]);
    assert.ok(![...hintFiles(h)].some((n) => hintOf(n) === hintOf(intentOfA)), 'no intent hint is left behind');
  });
});
