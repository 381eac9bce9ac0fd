// Issue 9: a request that may have created work always leaves a vault record. A real proxy in
// front of the demo server forwards each tools/call (the server really creates the task; the
// proxy sees its taskId) and then answers the client with something broken. In every cell:
// the server created a task ⇒ the vault holds a record naming it (a task, or in doubt), and
// the exit code is the contract's.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { homeWithServer, newHome, parseJsonDoc, runCli, startDemo, tempDir, type DemoServer, type Home } from '../helpers/cli.js';
import { fakeTaskId, makeRecord } from '../helpers/vault-helpers.js';
import { vaultAt } from '../../src/app/open-vault.js';
import { encodeSealed, sealWithPassphrase } from '../../src/vault/vault-crypto.js';
import { methodOf, startProxy, type ProxyReply, type UpstreamAnswer } from '../helpers/proxy.js';

interface VaultRow {
  taskId?: string;
  status?: string;
  phase?: string;
  operation?: { name?: string };
}

async function vaultRows(h: Pick<Home, 'run'>): Promise<VaultRow[]> {
  const r = await h.run(['--json', 'list', '--all']);
  assert.equal(r.code, 0, r.stderr);
  return parseJsonDoc(r.stdout) as VaultRow[];
}

/** The upstream CreateTaskResult, changed by `edit`, as a JSON answer. */
function editedTask(up: UpstreamAnswer, edit: (task: Record<string, unknown>) => void): ProxyReply {
  const msg = structuredClone(up.message!) as { result: Record<string, unknown> };
  edit(msg.result);
  return { status: 200, body: JSON.stringify(msg) };
}

type Cell = {
  name: string;
  answer: (up: UpstreamAnswer) => ProxyReply | null;
  /** A readable taskId: the handle is kept as a task. Else the record is kept in doubt. */
  keepsTask: boolean;
};

const MALFORMED: Cell[] = [
  { name: 'an unknown status', keepsTask: true, answer: (up) => editedTask(up, (t) => (t.status = 'running-ish')) },
  { name: 'a non-number pollIntervalMs', keepsTask: true, answer: (up) => editedTask(up, (t) => (t.pollIntervalMs = 'soon')) },
  { name: 'a missing createdAt', keepsTask: true, answer: (up) => editedTask(up, (t) => delete t.createdAt) },
  { name: 'a wrong resultType with a taskId', keepsTask: true, answer: (up) => editedTask(up, (t) => (t.resultType = 'taks')) },
  { name: 'truncated JSON', keepsTask: false, answer: (up) => ({ status: 200, body: JSON.stringify(up.message).slice(0, 40) }) },
  { name: '200 text/html', keepsTask: false, answer: () => ({ status: 200, headers: { 'content-type': 'text/html' }, body: '<html><body>Bad gateway, but 200</body></html>' }) },
  { name: 'a task without a taskId', keepsTask: false, answer: (up) => editedTask(up, (t) => delete t.taskId) },
  { name: 'the connection cut after the server acted (in flight)', keepsTask: false, answer: () => null },
];

describe('the one admission rule: only proof that nothing was admitted drops the record', { concurrency: 2 }, () => {
  let demo: DemoServer;
  before(async () => {
    demo = await startDemo();
  });
  after(async () => {
    await demo?.stop();
  });

  for (const cell of MALFORMED) {
    test(`${cell.name}: the created task is kept (${cell.keepsTask ? 'as a task, exit 0' : 'in doubt, exit 10'})`, async () => {
      const created: string[] = [];
      const proxy = await startProxy(demo.url, {
        replace: (req, up) => {
          if (methodOf(req.body) !== 'tools/call') return undefined;
          const taskId = (up.message?.result as { taskId?: string } | undefined)?.taskId;
          if (taskId) created.push(taskId);
          return cell.answer(up);
        },
      });
      try {
        const h = await homeWithServer('hostile', proxy.url);
        const r = await h.run(['call', 'hostile', 'slow_compute', 'seconds=60', '--detach']);
        assert.equal(created.length, 1, 'the server created exactly one task');
        assert.doesNotMatch(r.stderr, /Nothing was changed locally|unexpected error/i);
        const rows = await vaultRows(h);
        assert.equal(rows.length, 1, `one record is kept: ${JSON.stringify(rows)}`);
        if (cell.keepsTask) {
          assert.equal(r.code, 0, r.stderr);
          assert.match(r.stderr, /CreateTaskResult was malformed.*the handle was kept/);
          assert.equal(rows[0]!.taskId, created[0], 'the record names the task the server created');
          // The next poll reads the task's real state.
          const g = await h.run(['--json', 'get', '--', created[0]!.slice(0, 8)]);
          assert.equal(g.code, 0, g.stderr);
          assert.equal(parseJsonDoc(g.stdout).status, 'working');
        } else {
          assert.equal(r.code, 10, `${r.stdout}\n${r.stderr}`);
          assert.match(r.stderr, /in doubt/);
          assert.equal(rows[0]!.phase, 'in-doubt');
          assert.equal(rows[0]!.operation?.name, 'slow_compute');
        }
      } finally {
        await proxy.close();
      }
    });
  }

  test('a JSON-RPC refusal before execution (-32602) proves nothing was created: the record leaves the vault', async () => {
    let calls = 0;
    const proxy = await startProxy(demo.url, {
      answer: (req) => {
        if (methodOf(req.body) !== 'tools/call') return undefined;
        calls++;
        const { id } = JSON.parse(req.body.toString('utf8')) as { id: unknown };
        return { status: 200, body: JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32602, message: 'refused here' } }) };
      },
    });
    try {
      const h = await homeWithServer('refusing', proxy.url);
      const r = await h.run(['call', 'refusing', 'slow_compute', 'seconds=60', '--detach']);
      assert.equal(calls, 1);
      assert.notEqual(r.code, 10, r.stderr);
      assert.notEqual(r.code, 0, r.stderr);
      assert.deepEqual(await vaultRows(h), []);
    } finally {
      await proxy.close();
    }
  });
});

/** A small tmpfs, where this machine lets us mount one (root on Linux); undefined elsewhere. */
function smallTmpfs(): string | undefined {
  if (process.platform !== 'linux' || process.getuid?.() !== 0) return undefined;
  const dir = tempDir('mcp-tasks-tmpfs-');
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=2m', 'tmpfs', dir], { stdio: 'ignore' });
    return dir;
  } catch {
    return undefined;
  }
}

/** Fill the file system at `dir` until a write fails with ENOSPC. */
function fillUp(dir: string): string {
  const filler = join(dir, 'filler');
  mkdirSync(filler, { recursive: true });
  const chunk = Buffer.alloc(64 * 1024, 1);
  for (let i = 0; ; i++) {
    try {
      writeFileSync(join(filler, `f${i}`), chunk);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
      // The last bytes too: small writes must fail as well.
      try {
        for (let j = 0; ; j++) writeFileSync(join(filler, `s${j}`), Buffer.alloc(512, 1));
      } catch {
        return filler;
      }
    }
  }
}

describe('disk full (a real tmpfs)', { concurrency: 1 }, () => {
  let demo: DemoServer;
  let mount: string | undefined;
  before(async () => {
    demo = await startDemo();
    mount = smallTmpfs();
  });
  after(async () => {
    await demo?.stop();
    if (mount) execFileSync('umount', ['-l', mount], { stdio: 'ignore' });
  });

  test('ENOSPC when the handle arrives: the taskId is printed (the only copy), exit 9, and can be adopted later', async (t) => {
    if (!mount) return t.skip('no tmpfs can be mounted here (needs root on Linux)');
    const home = join(mount, 'after-handle');
    const created: string[] = [];
    let filler: string | undefined;
    const proxy = await startProxy(demo.url, {
      replace: (req, up) => {
        if (methodOf(req.body) !== 'tools/call') return undefined;
        const taskId = (up.message?.result as { taskId?: string } | undefined)?.taskId;
        if (taskId) created.push(taskId);
        // The intent is on disk; the disk fills up before the handle arrives.
        filler = fillUp(mount!);
        return undefined;
      },
    });
    try {
      mkdirSync(home, { recursive: true });
      const onTmpfs = { run: (args: string[], opts: { input?: string; spawn?: boolean } = {}) => runCli(args, { ...opts, home }) };
      const added = await onTmpfs.run(['server', 'add', 'full', '--url', proxy.url]);
      assert.equal(added.code, 0, added.stderr);
      // A process of its own: once it has exited, its intent record (left submitting) is in doubt.
      const r = await onTmpfs.run(['call', 'full', 'slow_compute', 'seconds=60', '--detach'], { spawn: true });
      assert.equal(created.length, 1, 'the server created the task');
      assert.equal(r.code, 9, r.stderr);
      assert.doesNotMatch(r.stderr, /unexpected error/);
      assert.ok(r.stderr.includes(created[0]!), `the whole taskId is printed: ${r.stderr}`);
      assert.match(r.stderr, /only copy of the taskId/);
      const hint = /printf %s '([^']+)' \| mcp-tasks recover ([0-9a-f]{8}) --attach -/.exec(r.stderr);
      assert.ok(hint, `the hint attaches the handle to its submission: ${r.stderr}`);
      assert.equal(hint[1], created[0]);
      // Space again: the printed handle is attached to the intent record, as the message says.
      rmSync(filler!, { recursive: true, force: true });
      const attached = await onTmpfs.run(['recover', hint[2]!, '--attach', '-'], { input: created[0]! });
      assert.equal(attached.code, 0, attached.stderr);
      const rows = await vaultRows(onTmpfs);
      assert.equal(rows.length, 1, `one record for the one call, not a second "(unknown operation)" one: ${JSON.stringify(rows)}`);
      assert.equal(rows[0]!.taskId, created[0]);
      assert.equal(rows[0]!.operation?.name, 'slow_compute', 'the record keeps its operation');
    } finally {
      await proxy.close();
      if (filler) rmSync(filler, { recursive: true, force: true });
    }
  });

  test('EROFS when the handle arrives (the file system turns read-only): the taskId is printed, exit 9', async (t) => {
    if (!mount) return t.skip('no tmpfs can be mounted here (needs root on Linux)');
    const home = join(mount, 'erofs');
    const created: string[] = [];
    const proxy = await startProxy(demo.url, {
      replace: (req, up) => {
        if (methodOf(req.body) !== 'tools/call') return undefined;
        const taskId = (up.message?.result as { taskId?: string } | undefined)?.taskId;
        if (taskId) created.push(taskId);
        execFileSync('mount', ['-o', 'remount,ro', mount!]);
        return undefined;
      },
    });
    try {
      mkdirSync(home, { recursive: true });
      const added = await runCli(['server', 'add', 'ro', '--url', proxy.url], { home });
      assert.equal(added.code, 0, added.stderr);
      const r = await runCli(['call', 'ro', 'slow_compute', 'seconds=60', '--detach'], { home });
      assert.equal(created.length, 1);
      assert.equal(r.code, 9, r.stderr);
      assert.ok(r.stderr.includes(created[0]!), `the whole taskId is printed: ${r.stderr}`);
      assert.match(r.stderr, /only copy of the taskId/);
    } finally {
      execFileSync('mount', ['-o', 'remount,rw', mount]);
      await proxy.close();
    }
  });

  test('ENOSPC in flight (the disk fills and the answer is lost): exit 9, the intent stays on record for recover', async (t) => {
    if (!mount) return t.skip('no tmpfs can be mounted here (needs root on Linux)');
    const home = join(mount, 'in-flight');
    let calls = 0;
    let filler: string | undefined;
    const proxy = await startProxy(demo.url, {
      replace: (req) => {
        if (methodOf(req.body) !== 'tools/call') return undefined;
        calls++;
        filler = fillUp(mount!);
        return null;
      },
    });
    try {
      mkdirSync(home, { recursive: true });
      const added = await runCli(['server', 'add', 'flight', '--url', proxy.url], { home });
      assert.equal(added.code, 0, added.stderr);
      // A real process: recover below must find the writer gone, as after any ended CLI.
      const r = await runCli(['call', 'flight', 'slow_compute', 'seconds=60', '--detach'], { home, spawn: true });
      assert.equal(calls, 1, 'the server got the request');
      assert.equal(r.code, 9, r.stderr);
      assert.match(r.stderr, /the request was sent but no handle came back, and the vault could not record that/);
      assert.doesNotMatch(r.stderr, /unexpected error/);
      rmSync(filler!, { recursive: true, force: true });
      filler = undefined;
      const rows = await vaultRows({ run: (args: string[]) => runCli(args, { home }) });
      assert.equal(rows.length, 1, 'the intent record is still there');
      assert.equal(rows[0]!.operation?.name, 'slow_compute');
      // Its writer is gone: recover lists it as in doubt at once (exit 10).
      const rec = await runCli(['recover'], { home });
      assert.equal(rec.code, 10, rec.stdout + rec.stderr);
    } finally {
      await proxy.close();
      if (filler) rmSync(filler, { recursive: true, force: true });
    }
  });

  test('an unusable --home: exit 9 naming the path, never "unexpected error"', async () => {
    const file = join(tempDir(), 'a-file');
    writeFileSync(file, 'not a directory');
    for (const home of [join(file, 'home'), '/proc/no-such-dir/home']) {
      const r = await runCli(['--home', home, 'call', 'demo', 'greet', 'name=x']);
      assert.equal(r.code, 9, r.stderr);
      assert.ok(r.stderr.includes(home), `names the path: ${r.stderr}`);
      assert.doesNotMatch(r.stderr, /unexpected error/);
    }
  });

  test('ENOSPC before the send: nothing is sent, exit 9 naming the home', async (t) => {
    if (!mount) return t.skip('no tmpfs can be mounted here (needs root on Linux)');
    const home = join(mount, 'before-send');
    let calls = 0;
    const proxy = await startProxy(demo.url, {
      replace: (req) => {
        if (methodOf(req.body) === 'tools/call') calls++;
        return undefined;
      },
    });
    let filler: string | undefined;
    try {
      mkdirSync(home, { recursive: true });
      const added = await runCli(['server', 'add', 'full', '--url', proxy.url], { home });
      assert.equal(added.code, 0, added.stderr);
      filler = fillUp(mount);
      const r = await runCli(['call', 'full', 'slow_compute', 'seconds=60', '--detach'], { home });
      assert.equal(r.code, 9, r.stderr);
      assert.doesNotMatch(r.stderr, /unexpected error/);
      assert.ok(r.stderr.includes(home), `the path is named: ${r.stderr}`);
      assert.equal(calls, 0, 'no tools/call was sent without its intent on disk');
    } finally {
      await proxy.close();
      if (filler) rmSync(filler, { recursive: true, force: true });
    }
  });
});

describe('import: all or nothing, and no credentials from a bundle', { concurrency: 2 }, () => {
  const KEY = 'a long test passphrase for bundles';
  const bundle = (records: unknown[]): string => {
    const sealed = sealWithPassphrase(Buffer.from(JSON.stringify({ format: 'mcp-tasks-export', records }), 'utf8'), KEY);
    return 'mcp-tasks-export v1\n' + encodeSealed(sealed).toString('base64') + '\n';
  };
  const NOKC = { MCP_TASKS_NO_KEYCHAIN: '1' };

  test('a malformed record anywhere: exit 1 naming it, nothing committed, refs still work', async () => {
    const h = newHome();
    const kept = makeRecord({ taskId: fakeTaskId(), labels: { job: 'kept' } });
    const v = vaultAt(h.dir, NOKC);
    v.put(kept);
    const good = makeRecord({ taskId: fakeTaskId(), labels: { job: 'good' } });
    const bad = { ...makeRecord({ taskId: fakeTaskId() }), labels: 5, phase: 'sideways' };
    const file = join(tempDir(), 'bad.bundle');
    writeFileSync(file, bundle([good, bad]));
    const r = await h.run(['import', file], { env: { MCP_TASKS_EXPORT_KEY: KEY } });
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, new RegExp(`record 2 \\(${bad.opId}\\) is not a valid task record: .*nothing was imported`));
    assert.doesNotMatch(r.stderr, /unexpected error/);
    const rows = await vaultRows(h);
    assert.deepEqual(rows.map((x) => x.taskId), [kept.taskId], 'only what was there before');
    const byLabel = await h.run(['--json', 'show', 'kept']);
    assert.equal(byLabel.code, 0, byLabel.stderr);
  });

  test('stored credentials in a bundle are dropped and reported', async () => {
    const h = newHome();
    const withSecret = makeRecord({ taskId: fakeTaskId() });
    withSecret.auth = { kind: 'bearer-env', bearerEnv: 'SOME_TOKEN', secrets: { SOME_TOKEN: 'stolen-or-planted-token' } };
    const file = join(tempDir(), 'secret.bundle');
    writeFileSync(file, bundle([withSecret]));
    const r = await h.run(['import', file], { env: { MCP_TASKS_EXPORT_KEY: KEY } });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /1 record\(s\) carried stored credentials; they were dropped/);
    const [stored] = vaultAt(h.dir, NOKC).list();
    assert.equal(stored?.taskId, withSecret.taskId);
    assert.equal(stored?.auth.secrets, undefined, 'no credential was imported');
    assert.equal(stored?.auth.bearerEnv, 'SOME_TOKEN');
  });
});

describe('--rebind never sends a credential recorded for another origin', { concurrency: 1 }, () => {
  let demo: DemoServer;
  before(async () => {
    demo = await startDemo();
  });
  after(async () => {
    await demo?.stop();
  });

  test('after a rebind the token comes from this shell, not from the record; without a TTY it needs --yes', async () => {
    const OLD = 'old-origin-token-0123456789';
    const NEW = 'new-origin-token-9876543210';
    const seenAt = { a: [] as string[], b: [] as string[] };
    const a = await startProxy(demo.url, { answer: (req) => (seenAt.a.push(String(req.headers.authorization ?? '')), undefined) });
    const b = await startProxy(demo.url, { answer: (req) => (seenAt.b.push(String(req.headers.authorization ?? '')), undefined) });
    try {
      const h = await homeWithServer('web', a.url, ['--bearer-env', 'NL_TOKEN']);
      const call = await h.run(['call', 'web', 'slow_compute', 'seconds=600', '--detach', '--label', 'job=moving'], { env: { NL_TOKEN: OLD } });
      assert.equal(call.code, 0, call.stderr);
      assert.ok(seenAt.a.includes(`Bearer ${OLD}`), 'the old origin got its own token');
      const show = parseJsonDoc((await h.run(['--json', 'show', 'moving'])).stdout);
      assert.deepEqual(show.auth.storedCredentials, ['NL_TOKEN'], 'the token was stored for the old origin');

      await h.ok(['server', 'add', 'web', '--url', b.url, '--bearer-env', 'NL_TOKEN', '--force']);
      const unconfirmed = await h.run(['get', 'moving', '--rebind']);
      assert.equal(unconfirmed.code, 1, unconfirmed.stderr);
      assert.match(unconfirmed.stderr, /no terminal to ask in.*\n.*--rebind --yes/);
      // Confirmed, but this shell has no token: the stored one is NOT sent to the new origin.
      const noToken = await h.run(['get', 'moving', '--rebind', '--yes']);
      assert.equal(noToken.code, 8, noToken.stderr);
      assert.match(noToken.stderr, /NL_TOKEN/);
      assert.ok(!seenAt.b.some((x) => x.includes(OLD)), `the old token never reached the new origin: ${JSON.stringify(seenAt.b)}`);
      const after = parseJsonDoc((await h.run(['--json', 'show', 'moving'])).stdout);
      assert.deepEqual(after.auth.storedCredentials, [], 'the old origin\'s credential is forgotten');
      // With this shell's token, the rebound handle works.
      const withToken = await h.run(['--json', 'get', 'moving'], { env: { NL_TOKEN: NEW } });
      assert.equal(withToken.code, 0, withToken.stderr);
      assert.ok(seenAt.b.includes(`Bearer ${NEW}`));
      assert.ok(!seenAt.b.some((x) => x.includes(OLD)));
    } finally {
      await a.close();
      await b.close();
    }
  });
});

describe('smaller items (point 10): the vault stays true against a confused server', { concurrency: 2 }, () => {
  let demo: DemoServer;
  before(async () => {
    demo = await startDemo();
  });
  after(async () => {
    await demo?.stop();
  });

  test('invalid JSON from tasks/get: exit 7, the handle kept; the next good answer works', async () => {
    let broken = false;
    const proxy = await startProxy(demo.url, {
      replace: (req, up) => (broken && methodOf(req.body) === 'tasks/get' ? { status: 200, body: JSON.stringify(up.message).slice(0, 30) } : undefined),
    });
    try {
      const h = await homeWithServer('garbled', proxy.url);
      await h.ok(['call', 'garbled', 'slow_compute', 'seconds=60', '--detach', '--label', 'job=garbled']);
      broken = true;
      const r = await h.run(['get', 'garbled'], { env: { MCP_TASKS_RETRY: '1,10' } });
      assert.equal(r.code, 7, r.stderr);
      assert.doesNotMatch(r.stderr, /unexpected error/);
      const [row] = await vaultRows(h);
      assert.deepEqual([row?.phase, row?.status], ['active', 'working'], 'the handle is kept as it was');
      broken = false;
      assert.equal((await h.run(['get', 'garbled'])).code, 0);
    } finally {
      await proxy.close();
    }
  });

  test('a status going backwards after a terminal one: the stored terminal state stands', async () => {
    let regress = false;
    const proxy = await startProxy(demo.url, {
      replace: (req, up) => {
        if (!regress || methodOf(req.body) !== 'tasks/get' || !up.message) return undefined;
        return editedTask(up, (t) => {
          t.status = 'working';
          delete t.result;
        });
      },
    });
    try {
      const h = await homeWithServer('confused', proxy.url);
      const done = await h.run(['call', 'confused', 'slow_compute', 'seconds=0', '--label', 'job=back']);
      assert.equal(done.code, 0, done.stderr);
      regress = true;
      for (const args of [['get', 'back'], ['watch', 'back']]) {
        const r = await h.run(args);
        assert.equal(r.code, 0, `${args.join(' ')}: ${r.stderr}`);
        assert.match(r.stdout, /slow_compute on confused: completed/, args.join(' '));
        assert.doesNotMatch(r.stdout, /: working/, args.join(' '));
      }
      const [row] = await vaultRows(h);
      assert.deepEqual([row?.phase, row?.status], ['terminal', 'completed']);
    } finally {
      await proxy.close();
    }
  });

  test('TTL past by the local clock while the server is unreachable: exit 7, not lost', async () => {
    let down = false;
    const proxy = await startProxy(demo.url, {
      replace: (req, up) => {
        if (down) return null;
        // A server whose clock is far behind ours: by our clock the task's ttl ran out long ago.
        if (!up.message || !['tools/call', 'tasks/get'].includes(methodOf(req.body) ?? '')) return undefined;
        return editedTask(up, (t) => {
          t.createdAt = '2001-01-01T00:00:00Z';
          t.ttlMs = 1000;
        });
      },
    });
    try {
      const h = await homeWithServer('skewed', proxy.url);
      await h.ok(['call', 'skewed', 'slow_compute', 'seconds=600', '--detach', '--label', 'job=skew']);
      const alive = await h.run(['get', 'skew']);
      assert.equal(alive.code, 0, `a server that answers is the truth: ${alive.stderr}`);
      down = true;
      const r = await h.run(['watch', 'skew'], { env: { MCP_TASKS_RETRY: '1,10' } });
      assert.equal(r.code, 7, r.stderr);
      const [row] = await vaultRows(h);
      assert.equal(row?.phase, 'active', 'the handle is not marked lost by our clock');
    } finally {
      await proxy.close();
    }
  });
});

describe('server entries from outside: URL secrets and mcp.json types', () => {
  test('a ?api_key= in a server URL is refused like userinfo, and never echoed', async () => {
    const h = newHome();
    const r = await h.run(['server', 'add', 'q', '--url', 'https://mcp.example.com/mcp?api_key=sk-live-123456789&x=1']);
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /refusing a URL with a credential in its query \(api_key=…\)/);
    assert.ok(!r.stderr.includes('sk-live-123456789') && !r.stdout.includes('sk-live-123456789'), 'the secret is not repeated');
    const list = await h.run(['--json', 'server', 'list']);
    assert.ok(!list.stdout.includes('sk-live'), 'nothing was stored');
  });

  test('server import: wrong types are one-line refusals; hostile names are printed clean', async () => {
    const h = newHome();
    const file = join(tempDir(), 'mcp.json');
    writeFileSync(
      file,
      JSON.stringify({
        mcpServers: {
          five: { command: 5 },
          stringargs: { command: 'node', args: 'a string' },
          '\x1b]0;owned\x07evil\x1b[2J': { command: 'node', args: ['x.js'] },
          good: { command: 'node', args: ['server.js'] },
        },
      }),
    );
    const r = await h.run(['server', 'import', file]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /^skipped five: "command" must be a string, got 5$/m);
    assert.match(r.stderr, /^skipped stringargs: "args" must be an array of strings, got "a string"$/m);
    assert.match(r.stdout, /^imported good$/m);
    for (const text of [r.stdout, r.stderr]) assert.ok(!/[\x00-\x08\x0b-\x1f\x7f-\x9f]/.test(text), `raw control characters: ${JSON.stringify(text)}`);
    assert.doesNotMatch(r.stderr, /unexpected error/);
  });
});
