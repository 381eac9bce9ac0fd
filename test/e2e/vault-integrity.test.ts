// The vault file under attack, with real processes and real files: a wrong passphrase, corrupt,
// truncated or foreign bytes, a vault from a newer version and a missing key file all exit 9 and
// leave the file byte for byte as it was, even when the command would have written (call
// --detach), and before any work reaches the server. Writers killed with SIGKILL mid-write leave
// a readable vault. vault.json and vault.key are 0600, the home 0700.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, copyFileSync, existsSync, readdirSync, readFileSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { addHttpServer, newHome, parseJsonDoc, spawnCli, startDemo, tempDir, tempHome, runCli, type DemoServer, type Home, homeWithServer } from '../helpers/cli.js';
import {
  ageEmptyLock,
  countTool,
  fileMode,
  flipBit,
  killHard,
  modUrl,
  octal,
  randInt,
  runNodeScript,
  sha256,
  sleep,
  vaultHeader,
  withHeader,
} from '../helpers/vault-helpers.js';

const VAULT = 'vault.json';
const KEY = 'vault.key';

describe('vault integrity (exit 9, bytes unchanged)', { concurrency: 4, timeout: 120_000 }, () => {
  let demo: DemoServer;
  before(async () => {
    demo = await startDemo();
  });
  after(async () => {
    await demo?.stop();
  });

  /** A home with server `web` and one detached slow_compute task in a key-file vault. */
  async function homeWithTask(env: Record<string, string> = {}): Promise<{ h: Home; taskId: string }> {
    const h = await homeWithServer('web', demo.url);
    const r = await h.run(['call', 'web', 'slow_compute', 'seconds=600', '--detach', '--json'], { env });
    assert.equal(r.code, 0, r.stderr);
    return { h, taskId: parseJsonDoc(r.stdout).taskId as string };
  }

  /** A copy of `src` (servers.json, vault.key) with `vault` as its vault.json. */
  function variantHome(src: string, vault: Buffer): Home {
    const dir = tempHome();
    for (const f of ['servers.json', KEY]) if (existsSync(join(src, f))) copyFileSync(join(src, f), join(dir, f));
    writeFileSync(join(dir, VAULT), vault, { mode: 0o600 });
    return { dir, run: (args, opts = {}) => runCli(args, { ...opts, home: dir }), spawn: (args, opts = {}) => spawnCli(args, { ...opts, home: dir }) };
  }

  /**
   * Every command, reading or writing, exits 9 with `message`; the vault's bytes and the home's
   * file list are unchanged; `tool` never reached the server.
   */
  async function assertRefused(h: Home, message: RegExp, tool: string, env: Record<string, string> = {}, opts: { ref?: string; full?: boolean } = {}): Promise<void> {
    const path = join(h.dir, VAULT);
    const sum = sha256(path);
    const files = readdirSync(h.dir).sort();
    const runs: Array<[string, string[]]> = [
      ['list', ['list', '--all']],
      ['call --detach', ['call', 'web', tool, '--detach']],
      ...(opts.full === false ? [] : ([
        ['get', ['get', '--', opts.ref ?? 'abcdefgh']],
        ['prune', ['prune']],
      ] as Array<[string, string[]]>)),
    ];
    for (const [name, args] of runs) {
      const r = await h.run(args, { env });
      assert.equal(r.code, 9, `${name}: expected exit 9, got ${r.code}\n${r.stderr}`);
      assert.match(r.stderr, message, name);
      assert.match(r.stderr, /next: /, `${name}: a safe next step is given`);
      assert.equal(sha256(path), sum, `${name}: the vault bytes changed`);
    }
    if (opts.full !== false) {
      const json = await h.run(['list', '--json'], { env });
      assert.equal(json.code, 9);
      assert.equal(parseJsonDoc(json.stdout).error.kind, 'vault');
    }
    assert.deepEqual(readdirSync(h.dir).sort(), files, 'no file was added or removed (no key file, lock or temp file left)');
    assert.equal(sha256(path), sum);
    assert.equal(countTool(demo.store, tool), 0, `${tool} reached the server although the vault was unusable`);
  }

  test('wrong passphrase (MCP_TASKS_VAULT_KEY): exit 9, nothing changed, nothing submitted', async () => {
    const A = 'alpha passphrase for the vault';
    const { h, taskId } = await homeWithTask({ MCP_TASKS_VAULT_KEY: A });
    const bytes = readFileSync(join(h.dir, VAULT));
    assert.equal((vaultHeader(bytes).key as { kind: string }).kind, 'passphrase');
    assert.equal(existsSync(join(h.dir, KEY)), false, 'passphrase mode writes no key file');
    await assertRefused(h, /wrong MCP_TASKS_VAULT_KEY/, 'failing_job', { MCP_TASKS_VAULT_KEY: 'beta passphrase, not the one' }, { ref: taskId });
    const unset = await h.run(['list', '--all']);
    assert.equal(unset.code, 9);
    assert.match(unset.stderr, /MCP_TASKS_VAULT_KEY is not set/);
    const right = await h.run(['list', '--all', '--json'], { env: { MCP_TASKS_VAULT_KEY: A } });
    assert.equal(right.code, 0, right.stderr);
    assert.deepEqual(parseJsonDoc(right.stdout).map((r: { taskId: string }) => r.taskId), [taskId]);
  });

  test('MCP_TASKS_VAULT_KEY set for a vault keyed by its key file: said once, on stderr, naming the key source; the vault still opens', async () => {
    const { h, taskId } = await homeWithTask();
    assert.equal((vaultHeader(readFileSync(join(h.dir, VAULT))).key as { kind: string }).kind, 'keyfile');
    const quiet = await h.run(['list', '--all']);
    assert.doesNotMatch(quiet.stderr, /MCP_TASKS_VAULT_KEY/);
    for (const args of [['list', '--all', '--json'], ['get', taskId.slice(0, 8)]]) {
      const r = await h.run(args, { env: { MCP_TASKS_VAULT_KEY: 'a passphrase nobody uses' } });
      assert.equal(r.code, 0, `${args[0]}: ${r.stderr}`);
      const notes = r.stderr.match(/note: MCP_TASKS_VAULT_KEY is set but ignored: this vault is keyed by its key file \S+vault\.key \(a vault keeps the key source it was created with; the variable keys only a new vault\)\./g) ?? [];
      assert.equal(notes.length, 1, `${args[0]}: said once:\n${r.stderr}`);
    }
  });

  test('corrupt, truncated and foreign vault files: exit 9, bytes unchanged after reads and write attempts', async () => {
    const { h } = await homeWithTask();
    const good = readFileSync(join(h.dir, VAULT));
    const headerEnd = good.indexOf(0x0a, 16) + 1;
    // [name, bytes, message, every command (true) or just list and call --detach (false)]
    const variants: Array<[string, Buffer, RegExp, boolean]> = [
      ['a flipped ciphertext bit', flipBit(good, -5), /cannot be decrypted/, true],
      ['a flipped bit in the first ciphertext byte', flipBit(good, headerEnd), /cannot be decrypted/, false],
      ['an altered tag', withHeader(good, (hd) => (hd.tag = randomBytes(16).toString('base64'))), /cannot be decrypted/, false],
      ['an altered iv', withHeader(good, (hd) => (hd.iv = randomBytes(12).toString('base64'))), /cannot be decrypted/, false],
      ['truncated to half', good.subarray(0, Math.floor(good.length / 2)), /corrupt|cannot be decrypted/, true],
      ['truncated after the header', good.subarray(0, headerEnd), /cannot be decrypted/, false],
      ['truncated inside the header', good.subarray(0, headerEnd - 10), /corrupt, truncated or not an mcp-tasks vault/, false],
      ['truncated inside the magic line', good.subarray(0, 7), /corrupt, truncated or not an mcp-tasks vault/, false],
      ['empty', Buffer.alloc(0), /corrupt, truncated or not an mcp-tasks vault/, true],
      ['random bytes', randomBytes(2048), /corrupt, truncated or not an mcp-tasks vault/, false],
      ['a plain JSON document', Buffer.from('{"records":{}}\n'), /corrupt, truncated or not an mcp-tasks vault/, false],
    ];
    await Promise.all(
      variants.map(async ([name, bytes, message, full]) => {
        const v = variantHome(h.dir, bytes);
        await assertRefused(v, message, 'multi_input', {}, { full }).catch((err: Error) => {
          err.message = `${name}: ${err.message}`;
          throw err;
        });
      }),
    );
    // The original, untouched, still works.
    const ok = await h.run(['list', '--all', '--json']);
    assert.equal(ok.code, 0, ok.stderr);
    assert.equal(parseJsonDoc(ok.stdout).length, 1);
  });

  test('a vault written by a newer version (header version bumped): exit 9 naming it, bytes unchanged', async () => {
    const { h } = await homeWithTask();
    const good = readFileSync(join(h.dir, VAULT));
    assert.equal(vaultHeader(good).version, 1);
    for (const version of [2, 99]) {
      const v = variantHome(h.dir, withHeader(good, (hd) => (hd.version = version)));
      await assertRefused(v, new RegExp(`written by a newer mcp-tasks \\(format ${version}\\)`), 'confirm_delete', {}, { full: version === 2 });
      const r = await v.run(['list']);
      assert.match(r.stderr, /Upgrade mcp-tasks/);
    }
  });

  test('a missing, damaged or foreign vault.key with an existing vault: exit 9; the key file is not recreated', async () => {
    const { h } = await homeWithTask();
    const good = readFileSync(join(h.dir, VAULT));
    const missing = variantHome(h.dir, good);
    unlinkSync(join(missing.dir, KEY));
    await assertRefused(missing, /vault key file .*vault\.key is missing/, 'scan_roots');
    assert.equal(existsSync(join(missing.dir, KEY)), false, 'a fresh key would orphan every handle in the vault');

    const damaged = variantHome(h.dir, good);
    writeFileSync(join(damaged.dir, KEY), 'bm90IGEga2V5\n', { mode: 0o600 });
    await assertRefused(damaged, /vault\.key is damaged/, 'scan_roots', {}, { full: false });

    const foreign = variantHome(h.dir, good);
    writeFileSync(join(foreign.dir, KEY), randomBytes(32).toString('base64') + '\n', { mode: 0o600 });
    await assertRefused(foreign, /cannot be decrypted with vault\.key/, 'scan_roots', {}, { full: false });
  });

  test(
    'a vault header that is JSON null is reported as corrupt (exit 9)',
    async () => {
      const v = variantHome(tempHome(), Buffer.from('mcp-tasks-vault\nnull\n'));
      const r = await v.run(['list', '--all']);
      assert.equal(r.code, 9, r.stderr);
    },
  );

  test(
    'a damaged key source in the header (scrypt N not a power of two, salt missing) is exit 9',
    {
    },
    async () => {
      const { h } = await homeWithTask({ MCP_TASKS_VAULT_KEY: 'gamma passphrase' });
      const good = readFileSync(join(h.dir, VAULT));
      const env = { MCP_TASKS_VAULT_KEY: 'gamma passphrase' };
      const badN = variantHome(h.dir, withHeader(good, (hd) => ((hd.key as { N: number }).N = 3)));
      const noSalt = variantHome(h.dir, withHeader(good, (hd) => delete (hd.key as { salt?: string }).salt));
      for (const v of [badN, noSalt]) {
        const sum = sha256(join(v.dir, VAULT));
        const r = await v.run(['list', '--all'], { env });
        assert.equal(sha256(join(v.dir, VAULT)), sum);
        assert.equal(r.code, 9, r.stderr);
      }
    },
  );
});

describe('file modes', { concurrency: 2, timeout: 60_000 }, () => {
  let demo: DemoServer;
  before(async () => {
    demo = await startDemo();
  });
  after(async () => {
    await demo?.stop();
  });

  test('a home created by mcp-tasks is 0700; vault.json, vault.key and servers.json are 0600', async () => {
    const home = join(tempDir(), 'nested', 'mcp-tasks');
    const add = await runCli(['server', 'add', 'web', '--url', demo.url], { home });
    assert.equal(add.code, 0, add.stderr);
    const call = await runCli(['call', 'web', 'slow_compute', 'seconds=600', '--detach'], { home });
    assert.equal(call.code, 0, call.stderr);
    assert.match(call.stderr, /created a vault key at .*vault\.key \(mode 0600\)/);
    assert.equal(octal(fileMode(home)), '0700', 'home');
    assert.equal(octal(fileMode(join(home, VAULT))), '0600', VAULT);
    assert.equal(octal(fileMode(join(home, KEY))), '0600', KEY);
    assert.equal(octal(fileMode(join(home, 'servers.json'))), '0600', 'servers.json');
  });

  test('an existing home that is too open is tightened to 0700 on the first vault write', async () => {
    const h = newHome();
    chmodSync(h.dir, 0o755);
    await addHttpServer(h, 'web', demo.url);
    const r = await h.run(['call', 'web', 'slow_compute', 'seconds=600', '--detach']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(octal(fileMode(h.dir)), '0700');
    assert.equal(octal(fileMode(join(h.dir, VAULT))), '0600');
    assert.equal(octal(fileMode(join(h.dir, KEY))), '0600');
  });

  test(
    'the home is 0700 from the first command that creates it (server add)',
    {
    },
    async () => {
      const home = join(tempDir(), 'fresh-home');
      const add = await runCli(['server', 'add', 'web', '--url', demo.url], { home });
      assert.equal(add.code, 0, add.stderr);
      assert.equal(octal(fileMode(home)), '0700');
    },
  );
});

describe('writers killed with SIGKILL mid-write', { concurrency: 2, timeout: 120_000 }, () => {
  let demo: DemoServer;
  before(async () => {
    demo = await startDemo();
  });
  after(async () => {
    await demo?.stop();
  });

  test('a vault writer process killed at random moments always leaves a readable vault', async (t) => {
    const h = await homeWithServer('web', demo.url);
    // A loop of real vault writes (about 300 KB each, so kills land inside writes), killed at random.
    const script = `
      import { vaultAt } from ${JSON.stringify(modUrl('app/open-vault.js'))};
      const home = process.argv[1];
      const v = vaultAt(home, { MCP_TASKS_NO_KEYCHAIN: '1' });
      const pad = 'p'.repeat(6000);
      for (let i = 0; ; i++) {
        const at = new Date().toISOString();
        v.put({ opId: 'op-' + process.pid + '-' + (i % 50), taskId: 'task-' + process.pid + '-' + (i % 50), server: { name: 'web', identity: { kind: 'http', url: 'http://127.0.0.1:9/mcp' } },
          auth: { kind: 'none' }, operation: { method: 'tools/call', name: 'slow_compute', arguments: { pad }, submittedAt: at }, phase: 'active',
          history: [], inputKeysSeen: [], inputKeysAnswered: [], labels: { i: String(i) }, createdAt: at, updatedAt: at });
        if (i === 0) process.stdout.write('ready\\n');
      }`;
    let lastCount = 0;
    let emptyLocks = 0;
    for (let round = 0; round < 10; round++) {
      // One looping writer at a time: two tight loops starve each other of the lock (see report).
      const writers = [runNodeScript(script, [h.dir])];
      try {
        await Promise.all(writers.map((w) => w.waitFor('ready', 30_000)));
        await sleep(randInt(5, 150));
      } finally {
        await Promise.all(writers.map(killHard));
      }
      if (ageEmptyLock(join(h.dir, `${VAULT}.lock`))) emptyLocks++;
      const r = await h.run(['list', '--all', '--json']);
      assert.equal(r.code, 0, `round ${round}: the vault is unreadable after a SIGKILL\n${r.stderr}`);
      const count = parseJsonDoc(r.stdout).length as number;
      assert.ok(count >= lastCount, `round ${round}: records were lost (${count} < ${lastCount})`);
      lastCount = count;
    }
    assert.ok(lastCount >= 10, `the writers wrote (${lastCount} records)`);
    t.diagnostic(`kills that left an empty lock file: ${emptyLocks} of 10`);
    // A lock left by a killed writer is taken over: the next real write goes through.
    const call = await h.run(['call', 'web', 'slow_compute', 'seconds=600', '--detach', '--json']);
    assert.equal(call.code, 0, call.stderr);
    const after = parseJsonDoc((await h.run(['list', '--all', '--json'])).stdout) as Array<{ taskId: string }>;
    assert.equal(after.length, lastCount + 1);
    assert.ok(after.some((r) => r.taskId === parseJsonDoc(call.stdout).taskId));
    assert.equal(existsSync(join(h.dir, `${VAULT}.lock`)), false, 'no lock left behind by a live process');
    const leftovers = readdirSync(h.dir).filter((f) => f.endsWith('.tmp'));
    for (const f of leftovers) assert.match(f, /^\.vault\.json\.\d+\.[0-9a-f]+\.tmp$/, 'only temp files of killed writers');
  });

  test('mcp-tasks call processes killed at random moments leave a readable vault and no wedged lock', async () => {
    const h = await homeWithServer('web', demo.url);
    const first = await h.run(['call', 'web', 'slow_compute', 'seconds=600', '--detach']);
    assert.equal(first.code, 0, first.stderr);
    for (let round = 0; round < 4; round++) {
      // --new: an earlier round's killed call may be in doubt, and an identical call would then be refused.
      const procs = [0, 1, 2].map(() => h.spawn(['call', 'web', 'slow_compute', 'seconds=600', '--detach', '--new']));
      await sleep(randInt(150, 900));
      for (const p of procs) p.kill('SIGKILL');
      await Promise.all(procs.map((p) => p.done));
      ageEmptyLock(join(h.dir, `${VAULT}.lock`));
      const r = await h.run(['list', '--all', '--json']);
      assert.equal(r.code, 0, `round ${round}: ${r.stderr}`);
      assert.ok(parseJsonDoc(r.stdout).length >= 1);
    }
    const last = await h.run(['call', 'web', 'slow_compute', 'seconds=600', '--detach', '--new']);
    assert.equal(last.code, 0, `a write after the kills: ${last.stderr}`);
    // Every record is well-formed, whatever moment its writer died at.
    const recs = parseJsonDoc((await h.run(['list', '--all', '--json'])).stdout) as Array<{ phase: string; taskId: string }>;
    for (const r of recs) assert.ok(['submitting', 'active', 'in-doubt'].includes(r.phase), JSON.stringify(r));
  });

  test(
    'an empty lock file left by a writer killed between creating and filling it does not wedge the vault',
    {
      timeout: 30_000,
    },
    async () => {
      const h = await homeWithServer('web', demo.url);
      const first = await h.run(['call', 'web', 'slow_compute', 'seconds=600', '--detach']);
      assert.equal(first.code, 0, first.stderr);
      const lock = join(h.dir, `${VAULT}.lock`);
      writeFileSync(lock, '');
      const old = new Date(Date.now() - 2000);
      utimesSync(lock, old, old); // the holder died two seconds ago
      const r = await h.run(['call', 'web', 'slow_compute', 'seconds=600', '--detach'], { timeoutMs: 25_000 });
      assert.equal(r.code, 0, r.stderr);
    },
  );
});
