// The kill -9 soak: 48 `call --detach` processes at once against one HTTP demo server, a third of
// them killed with SIGKILL at random moments (before the intent, while the request is out, after
// the handle), three rounds in one home. A proxy holds each answer a random while (so kills land
// inside the request) and notes which operation id each server task was created for.
// Afterwards every task the server created is named by a record (its task, or the in-doubt
// record of the operation it was created for), and every in-doubt record is either attachable
// (a server task carries its operation id) or provably not created (none does): the attachable
// ones are attached with `recover --attach -`, and then every server task is a record's task.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { homeWithServer, parseJsonDoc, sleep, startDemo, type CliProcess } from '../helpers/cli.js';
import { readStore } from '../helpers/demo-server.js';
import { methodOf, startProxy } from '../helpers/proxy.js';
import { randInt } from '../helpers/seeded.js';

const META = 'io.github.mcp-tasks/idempotency-key';
const N = 48;
const ROUNDS = 3;

test(`${N} concurrent calls, a third kill -9ed at random, ${ROUNDS} rounds: every server task is named by a record`, { timeout: 900_000 }, async () => {
  const demo = await startDemo({ spawn: true });
  /** taskId → the operation id its tools/call carried (the server's duplicate-prevention key). */
  const opOfTask = new Map<string, string>();
  const proxy = await startProxy(demo.url, {
    replace: async (req, up) => {
      if (methodOf(req.body) !== 'tools/call') return undefined;
      const body = JSON.parse(req.body.toString('utf8')) as { params?: { _meta?: Record<string, unknown> } };
      const taskId = (up.message?.result as { taskId?: string } | undefined)?.taskId;
      const opId = body.params?._meta?.[META];
      if (taskId && typeof opId === 'string') opOfTask.set(taskId, opId);
      await sleep(randInt(0, 1500));
      return undefined;
    },
  });
  try {
    const h = await homeWithServer('pay', proxy.url, ['--idempotency-meta', META]);
    for (let round = 0; round < ROUNDS; round++) {
      const procs: CliProcess[] = Array.from({ length: N }, (_, i) => h.spawn(['call', 'pay', 'send_payment', `to=r${round}-${i}`, 'amount=1', '--detach', '--json'], { timeoutMs: 600_000 }));
      const victims = new Set<number>();
      while (victims.size < N / 3) victims.add(randInt(0, N - 1));
      await Promise.all(
        procs.map(async (p, i) => {
          if (victims.has(i)) {
            await sleep(randInt(100, 4000));
            p.kill('SIGKILL');
          }
          const r = await p.done.catch((err: unknown) => ({ code: -1, stderr: String(err), stdout: '', signal: null }));
          if (!victims.has(i)) assert.equal(r.code, 0, `call ${round}/${i} (not killed) exits 0: ${r.stderr.slice(0, 400)}`);
        }),
      );
    }

    const serverTasks = Object.keys(readStore(demo.store).tasks).length;
    assert.equal(opOfTask.size, serverTasks, 'the proxy saw every task the server created');
    const rows = parseJsonDoc((await h.run(['--json', 'list', '--all'], { timeoutMs: 120_000 })).stdout) as Array<{ opId: string; taskId: string | null; phase: string }>;
    const byTask = new Set(rows.filter((r) => r.taskId).map((r) => r.taskId));
    const inDoubt = new Map(rows.filter((r) => !r.taskId).map((r) => [r.opId, r]));
    for (const r of inDoubt.values()) assert.equal(r.phase, 'in-doubt', `a record without a handle, its writer dead, is in doubt: ${r.opId}`);
    const attachable: Array<[string, string]> = [];
    for (const [taskId, opId] of opOfTask) {
      if (byTask.has(taskId)) continue;
      assert.ok(inDoubt.has(opId), `server task for operation ${opId.slice(0, 8)} is named by no record`);
      attachable.push([opId, taskId]);
    }
    const created = new Set(opOfTask.values());
    const notCreated = [...inDoubt.keys()].filter((op) => !created.has(op));
    assert.equal(attachable.length + notCreated.length, inDoubt.size, 'each in-doubt record is attachable or provably not created');

    for (const [opId, taskId] of attachable) {
      const r = await h.run(['recover', opId.slice(0, 8), '--attach', '-'], { input: taskId, timeoutMs: 120_000 });
      assert.equal(r.code, 0, `attach ${opId.slice(0, 8)}: ${r.stderr}`);
    }
    const after = parseJsonDoc((await h.run(['--json', 'list', '--all'], { timeoutMs: 120_000 })).stdout) as Array<{ taskId: string | null }>;
    const named = new Set(after.map((r) => r.taskId).filter(Boolean));
    for (const taskId of opOfTask.keys()) assert.ok(named.has(taskId), 'after attaching, every server task is a record\'s task');
    assert.equal(after.filter((r) => r.taskId).length, serverTasks, 'one record per server task, none twice');
  } finally {
    await proxy.close();
    await demo.stop();
  }
});
