// Issue 9's fault matrix: every fault × every moment of a submission, end to end. One demo server
// for the file; in front of it, per cell, a real proxy (test/helpers/proxy.ts) that forwards each
// request before it misbehaves (so the server really acts, and the proxy sees each taskId it
// created); each cell is a fresh home and a real `mcp-tasks call … slow_compute seconds=600`.
//
// In EVERY cell: the server created a task ⇒ the vault holds a record naming it (the task by its
// taskId, or the operation in doubt), and every exit code is the contract's (docs/reference.md).
// When the server created nothing, nothing may be left in doubt either.
//
// The moments (a fresh home's `call` sends server/discover at `server add`, then tools/list,
// then tools/call; the intent is written between the last two):
//   before the send   the fault hits before tools/call reaches the server: the tools/list answer
//                     (malformed / oversized), or while tools/list is held unanswered (signals),
//                     or the disk is already full.
//   in flight         the server has acted on tools/call; the fault hits before (or as) its
//                     answer reaches the client.
//   after the handle  the handle is stored and `call` is watching; the fault hits its first
//                     tasks/get.
//
// | fault                      | before the send           | in flight                           | after the handle            |
// |----------------------------|---------------------------|-------------------------------------|-----------------------------|
// | kill -9                    | no record; recover → 0    | intent kept; recover → 10 (in doubt) | task kept; get → 0          |
// | SIGTERM                    | 130, no record            | 10, in doubt                        | 130, task kept              |
// | disk full (ENOSPC)         | 9, nothing sent           | 9, taskId printed, intent kept      | 0, result printed, task kept (2) |
// | unknown status             | 7, nothing sent (1)       | 0, kept as a task (lenient read)    | 7, task kept                |
// | non-number pollIntervalMs  | 7, nothing sent (1)       | 0, kept as a task (lenient read)    | 7, task kept                |
// | missing createdAt          | 7, nothing sent (1)       | 0, kept as a task (lenient read)    | 7, task kept                |
// | truncated JSON             | 7, nothing sent           | 10, in doubt                        | 7, task kept                |
// | 200 text/html              | 7, nothing sent           | 10, in doubt                        | 7, task kept                |
// | invalid JSON-RPC envelope  | 7, nothing sent           | 10, in doubt                        | 7, task kept                |
// | oversized answer (20 MiB)  | 7, nothing sent           | 10, in doubt                        | 7, task kept                |
// (1) These three defects only exist in a task: before the send, tools/list is answered with
//     such a defective task instead of a tool list (a wrong answer that validates as neither).
// (2) The result was fetched and cannot be stored: it is printed with a warning, the task's own
//     exit code is kept (follow-full-disk.test.ts), and the record stays active for a later get.
// "Task kept" cells then run `get` once the fault is gone: the handle works (exit 0, working).
// "In doubt" cells run `recover`: it lists the operation (exit 10).
//
// Disk full is a write failure injected at the CLI's file layer (test/helpers/full-disk-preload.ts,
// loaded with NODE_OPTIONS=--import), so the matrix runs the same without root; never-lose.test.ts
// covers the same moments on a real full tmpfs where one can be mounted.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL, fileURLToPath } from 'node:url';
import { homeWithServer, parseJsonDoc, startDemo, tempDir, type CliResult, type DemoServer, type TestHome } from '../helpers/cli.js';
import { methodOf, startProxy, type ProxiedRequest, type ProxyReply, type UpstreamAnswer } from '../helpers/proxy.js';
import { storeTasks } from '../helpers/vault-helpers.js';

const PRELOAD = pathToFileURL(fileURLToPath(new URL('../helpers/full-disk-preload.js', import.meta.url))).href;
const TOOL = 'slow_compute';
/** No transport retries: a broken answer is reported at once (the retry policy is tested elsewhere). */
const NO_RETRY = { MCP_TASKS_RETRY: '1,10' };

type Phase = 'before the send' | 'in flight' | 'after the handle';
const PHASES: Phase[] = ['before the send', 'in flight', 'after the handle'];
/** The request each moment's fault hits (signals and answers). */
const METHOD_AT: Record<Phase, string> = { 'before the send': 'tools/list', 'in flight': 'tools/call', 'after the handle': 'tasks/get' };

type Kept = 'none' | 'task' | 'in-doubt';

interface VaultRow {
  taskId?: string | null;
  phase?: string;
  status?: string;
  opId?: string;
  operation?: { name?: string };
}

/** What the file's one demo server created, by its store key (sha256 of "id:<taskId>", as the demo files it). */
const storeKeyOf = (taskId: string) => createHash('sha256').update(`id:${taskId}`).digest('base64url');

interface CellRun {
  /** The call's result (for kill -9: the killed process). */
  call: CliResult;
  /** taskIds the server created for this cell (seen in its answers to tools/call). */
  created: string[];
  /** tools/call requests the proxy forwarded to the server. */
  forwardedCalls: number;
  /** The cell's home (one server, "web", through the cell's proxy). */
  home: TestHome;
  /** Close the cell's proxy (after the follow-up commands, which go through it once the fault is over). */
  close(): Promise<void>;
}

interface Fault {
  name: string;
  run(demo: DemoServer, phase: Phase, label: string): Promise<CellRun>;
  /** The exit code of the call, or 'killed'. */
  expect(phase: Phase): { code: number | 'killed'; kept: Kept; status?: string };
}

/** A promise and its resolver. */
function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

const taskIdIn = (up: UpstreamAnswer): string | undefined => {
  const id = (up.message?.result as { taskId?: unknown } | undefined)?.taskId;
  return typeof id === 'string' ? id : undefined;
};

const callArgs = (phase: Phase, label: string, seconds = 600) => ['call', 'web', TOOL, `seconds=${seconds}`, '--label', `cell=${label}`, ...(phase === 'after the handle' ? [] : ['--detach'])];

/**
 * The proxy of one cell: counts what the server created, and hands `hit` each request of the
 * cell's method (with the upstream answer when the request was forwarded). `hit` says what to do.
 */
interface CellProxyHooks {
  /** Before forwarding (only the "before the send" moment uses it): 'hold' keeps the request from the server. */
  early?: (req: ProxiedRequest) => ProxyReply | 'hold' | undefined;
  /** After the server answered: replace the answer ('hold', null to cut, undefined to pass). */
  late?: (req: ProxiedRequest, up: UpstreamAnswer) => ProxyReply | 'hold' | null | undefined;
}

async function cellProxy(demo: DemoServer, method: string, hooks: CellProxyHooks) {
  const created: string[] = [];
  let forwardedCalls = 0;
  let healed = false;
  const proxy = await startProxy(demo.url, {
    answer: (req) => {
      if (healed || methodOf(req.body) !== method) return undefined;
      return hooks.early?.(req);
    },
    replace: (req, up) => {
      const m = methodOf(req.body);
      if (m === 'tools/call') {
        forwardedCalls++;
        const id = taskIdIn(up);
        if (id) created.push(id);
      }
      if (healed || m !== method) return undefined;
      return hooks.late?.(req, up);
    },
  });
  return {
    proxy,
    /** Run the cell's call in a fresh home; then the fault is over: everything passes (for the follow-up commands). */
    async settle(runCall: (home: TestHome) => Promise<CliResult>): Promise<CellRun> {
      try {
        const home = await homeWithServer('web', proxy.url);
        const call = await runCall(home);
        healed = true;
        return { home, call, created: [...created], forwardedCalls, close: () => proxy.close() };
      } catch (err) {
        await proxy.close();
        throw err;
      }
    },
  };
}

// ------------------------------------------------------------------------------------------
// Signals: the request of the moment is held (not forwarded before the send; forwarded and its
// answer withheld in flight and after the handle), then the CLI gets the signal.

function signalFault(name: string, signal: 'SIGKILL' | 'SIGTERM'): Fault {
  return {
    name,
    expect: (phase) => {
      if (signal === 'SIGKILL') return { code: 'killed', kept: phase === 'before the send' ? 'none' : phase === 'in flight' ? 'in-doubt' : 'task' };
      return phase === 'in flight' ? { code: 10, kept: 'in-doubt' } : { code: 130, kept: phase === 'before the send' ? 'none' : 'task' };
    },
    async run(demo, phase, label) {
      const held = deferred();
      const hold = () => (held.resolve(), 'hold' as const);
      const p = await cellProxy(demo, METHOD_AT[phase], phase === 'before the send' ? { early: hold } : { late: hold });
      return p.settle(async (home) => {
        const child = home.spawn(callArgs(phase, label));
        await Promise.race([held.promise, child.done]);
        child.kill(signal);
        return child.done;
      });
    },
  };
}

// ------------------------------------------------------------------------------------------
// Disk full: from the moment the fault hits, every write under the CLI's home fails with ENOSPC.

const diskFull: Fault = {
  name: 'disk full (ENOSPC)',
  expect: (phase) => ({ code: phase === 'after the handle' ? 0 : 9, kept: phase === 'before the send' ? 'none' : phase === 'in flight' ? 'in-doubt' : 'task', ...(phase === 'after the handle' ? { status: 'completed' } : {}) }),
  async run(demo, phase, label) {
    const flag = join(tempDir('mcp-tasks-full-'), 'disk-is-full');
    const fill = () => (writeFileSync(flag, ''), undefined);
    const p = await cellProxy(demo, METHOD_AT[phase], phase === 'before the send' ? {} : { late: fill });
    const cell = await p.settle(async (home) => {
      if (phase === 'before the send') fill();
      // After the handle, the write that fails is the task's end (a watch writes on a change).
      const call = await home.run(callArgs(phase, label, phase === 'after the handle' ? 2 : 600), { env: { ...NO_RETRY, NODE_OPTIONS: `--import=${PRELOAD}`, MCP_TEST_FULL_DISK_FLAG: flag } });
      assert.ok(existsSync(flag), 'the disk did fill up during the call');
      rmSync(flag);
      return call;
    });
    if (phase === 'in flight') {
      // The handle arrived at a full disk: this message is its only copy.
      assert.equal(cell.created.length, 1);
      assert.ok(cell.call.stderr.includes(cell.created[0]!), `the whole taskId is printed: ${cell.call.stderr}`);
    }
    return cell;
  },
};

// ------------------------------------------------------------------------------------------
// Answers: the server's answer to the moment's request, replaced by a broken one.

const jsonReply = (message: unknown): ProxyReply => ({ status: 200, body: JSON.stringify(message) });
const idOf = (req: ProxiedRequest): unknown => (JSON.parse(req.body.toString('utf8')) as { id: unknown }).id;

/** A task with one defect, where the answer has none to damage (tools/list before the send). */
function defectiveTask(req: ProxiedRequest, up: UpstreamAnswer, edit: (t: Record<string, unknown>) => void): ProxyReply {
  const at = new Date().toISOString();
  const real = up.message && 'result' in up.message && taskIdIn(up) ? structuredClone(up.message.result as Record<string, unknown>) : undefined;
  const result = real ?? { resultType: 'task', taskId: 'not-a-task-of-this-call', status: 'working', createdAt: at, lastUpdatedAt: at, ttlMs: 60_000, pollIntervalMs: 1000 };
  edit(result);
  return jsonReply({ jsonrpc: '2.0', id: idOf(req), result });
}

function answerFault(name: string, damage: (req: ProxiedRequest, up: UpstreamAnswer) => ProxyReply, inFlight: { code: number; kept: Kept }): Fault {
  return {
    name,
    expect: (phase) => (phase === 'before the send' ? { code: 7, kept: 'none' } : phase === 'in flight' ? inFlight : { code: 7, kept: 'task' }),
    async run(demo, phase, label) {
      const p = await cellProxy(demo, METHOD_AT[phase], { late: (req, up) => damage(req, up) });
      return p.settle((home) => home.run(callArgs(phase, label), { env: NO_RETRY }));
    },
  };
}

const LENIENT = { code: 0, kept: 'task' as Kept };
const IN_DOUBT = { code: 10, kept: 'in-doubt' as Kept };
const OVERSIZED_PAD = 'y'.repeat(20 * 1024 * 1024);

const FAULTS: Fault[] = [
  signalFault('kill -9', 'SIGKILL'),
  signalFault('SIGTERM', 'SIGTERM'),
  diskFull,
  answerFault('an unknown status', (req, up) => defectiveTask(req, up, (t) => (t.status = 'running-ish')), LENIENT),
  answerFault('a non-number pollIntervalMs', (req, up) => defectiveTask(req, up, (t) => (t.pollIntervalMs = 'soon')), LENIENT),
  answerFault('a missing createdAt', (req, up) => defectiveTask(req, up, (t) => delete t.createdAt), LENIENT),
  answerFault('truncated JSON', (_req, up) => ({ status: 200, body: up.body.slice(0, Math.max(10, Math.floor(up.body.length / 2))) }), IN_DOUBT),
  answerFault('200 text/html', () => ({ status: 200, headers: { 'content-type': 'text/html' }, body: '<html><body>Bad gateway, but 200</body></html>' }), IN_DOUBT),
  answerFault('an invalid JSON-RPC envelope', (req, up) => jsonReply({ jsonrpc: '1.0', id: idOf(req), result: up.message?.result ?? {} }), IN_DOUBT),
  answerFault('an oversized answer (20 MiB)', (req) => ({ status: 200, body: `{"jsonrpc":"2.0","id":${JSON.stringify(idOf(req))},"result":{"pad":"${OVERSIZED_PAD}"}}` }), IN_DOUBT),
];

async function rowsOf(home: TestHome): Promise<VaultRow[]> {
  const r = await home.run(['--json', 'list', '--all']);
  assert.equal(r.code, 0, r.stderr);
  return parseJsonDoc(r.stdout) as VaultRow[];
}

describe('fault matrix: a created task always leaves a record, every exit code is the contract\'s', { concurrency: 3 }, () => {
  let demo: DemoServer;
  /** Every taskId the server created, over all cells. */
  const allCreated: string[] = [];
  before(async () => {
    demo = await startDemo();
  });
  after(async () => {
    try {
      // Every creation in the server's store was seen by some cell (and so checked there).
      if (demo) assert.equal(storeTasks(demo.store).filter((t) => t.tool === TOOL).length, allCreated.length, 'the store holds exactly the tasks the cells saw created');
    } finally {
      await demo?.stop();
    }
  });

  let n = 0;
  for (const fault of FAULTS) {
    for (const phase of PHASES) {
      const label = `c${++n}`;
      const want = fault.expect(phase);
      test(`${fault.name} × ${phase}: ${want.code === 'killed' ? 'killed' : `exit ${want.code}`}, ${want.kept === 'none' ? 'nothing created, nothing kept' : want.kept === 'task' ? 'the task kept' : 'kept in doubt'}`, async (t) => {
        const { home, call, created, forwardedCalls, close } = await fault.run(demo, phase, label);
        t.after(close);
        allCreated.push(...created);
        const out = `exit ${call.code} / ${call.signal}\n--- stdout\n${call.stdout.slice(0, 1500)}\n--- stderr\n${call.stderr.slice(0, 1500)}`;
        const rows = await rowsOf(home);
        const storeKeys = new Set(storeTasks(demo.store).map((t) => t.key));

        // The exit code is the contract's.
        if (want.code === 'killed') assert.equal(call.signal, 'SIGKILL', out);
        else assert.equal(call.code, want.code, out);
        assert.doesNotMatch(call.stderr, /unexpected error|^\s+at /m, out);

        // What the server created, confirmed in its own store.
        for (const id of created) assert.ok(storeKeys.has(storeKeyOf(id)), 'the server\'s store holds the task the proxy saw created');
        if (phase === 'before the send') {
          assert.equal(forwardedCalls, 0, 'no tools/call reached the server');
          assert.equal(created.length, 0);
        } else {
          assert.equal(created.length, 1, `the server created the task (${forwardedCalls} tools/call forwarded)`);
        }

        // THE invariant: created ⇒ a record naming it (the task, or the operation in doubt).
        const mine = rows.filter((r) => r.operation?.name === TOOL);
        if (created.length > 0) {
          assert.equal(mine.length, 1, `one record of the call: ${JSON.stringify(rows)}\n${out}`);
          const row = mine[0]!;
          if (row.taskId) assert.equal(row.taskId, created[0], 'the record names the task the server created');
          else assert.ok(row.phase === 'in-doubt' || row.phase === 'submitting', `a record without its taskId is in doubt: ${JSON.stringify(row)}`);
        } else {
          assert.deepEqual(mine, [], `nothing was created, so nothing is kept in doubt: ${JSON.stringify(rows)}`);
        }

        // The cell's own expectation of what is kept, and the follow-up that proves it.
        if (want.kept === 'task') {
          assert.equal(mine[0]?.taskId, created[0], `kept as the task: ${JSON.stringify(mine)}\n${out}`);
          assert.equal(mine[0]?.phase, 'active');
          const g = await home.run(['--json', 'get', label]);
          assert.equal(g.code, 0, `the kept handle works once the fault is gone: ${g.stdout}${g.stderr}`);
          assert.equal(parseJsonDoc(g.stdout).status, want.status ?? 'working');
        } else if (want.kept === 'in-doubt') {
          assert.ok(!mine[0]?.taskId, `no handle came back: ${JSON.stringify(mine)}`);
          const rec = await home.run(['recover']);
          assert.equal(rec.code, 10, `recover lists it as in doubt: ${rec.stdout}${rec.stderr}`);
          assert.match(rec.stdout + rec.stderr, new RegExp(TOOL));
        } else {
          const rec = await home.run(['recover']);
          assert.equal(rec.code, 0, `nothing in doubt: ${rec.stdout}${rec.stderr}`);
        }
      });
    }
  }
});
