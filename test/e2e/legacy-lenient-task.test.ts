// The one rule for submissions on the 2025-11-25 generation too (issue 9): a CreateTaskResult that
// cannot be validated but names a readable taskId is kept as that task, with what was wrong
// reported; one without a readable taskId is kept in doubt (exit 10). The real
// @modelcontextprotocol/server-everything (npm) over Streamable HTTP creates the task
// (`simulate-research-query`, taskSupport required); a real proxy forwards the tools/call, sees
// the taskId the server created, and hands the client a damaged answer.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { homeWithServer, parseJsonDoc } from '../helpers/cli.js';
import { methodOf, startProxy, type ProxyReply, type UpstreamAnswer } from '../helpers/proxy.js';
import { startEverythingServer, type RunningServer } from '../helpers/third-party-http.js';

const TOOL = 'simulate-research-query';

/** The upstream CreateTaskResult ({task: {...}}) with its task changed by `edit`, as a JSON answer. */
function editedTask(up: UpstreamAnswer, edit: (task: Record<string, unknown>) => void): ProxyReply {
  const msg = structuredClone(up.message!) as { result: { task: Record<string, unknown> } };
  edit(msg.result.task);
  return { status: 200, body: JSON.stringify(msg) };
}

const CELLS: Array<{ name: string; edit: (t: Record<string, unknown>) => void; keepsTask: boolean; problem?: RegExp }> = [
  { name: 'an unknown status', edit: (t) => (t.status = 'running-ish'), keepsTask: true, problem: /status "running-ish" is not a task status/ },
  { name: 'a non-number pollInterval', edit: (t) => (t.pollInterval = 'soon'), keepsTask: true, problem: /pollInterval is not a number/ },
  { name: 'a missing createdAt', edit: (t) => delete t.createdAt, keepsTask: true, problem: /createdAt is missing/ },
  { name: 'a task without a taskId', edit: (t) => delete t.taskId, keepsTask: false },
];

describe('2025-11-25: a malformed CreateTaskResult keeps its readable taskId', { concurrency: 2 }, () => {
  let server: RunningServer;
  before(async () => {
    server = await startEverythingServer();
  });
  after(async () => {
    await server?.stop();
  });

  for (const cell of CELLS) {
    test(`${cell.name}: ${cell.keepsTask ? 'kept as the task the server created (exit 0)' : 'kept in doubt (exit 10)'}`, async (t) => {
      const created: string[] = [];
      const proxy = await startProxy(server.url, {
        replace: (req, up) => {
          if (methodOf(req.body) !== 'tools/call') return undefined;
          const id = (up.message?.result as { task?: { taskId?: unknown } } | undefined)?.task?.taskId;
          if (typeof id === 'string') created.push(id);
          return editedTask(up, cell.edit);
        },
      });
      t.after(() => proxy.close());
      const h = await homeWithServer('ev', proxy.url);
      const r = await h.run(['call', 'ev', TOOL, 'topic=tides', '--detach', '--label', 'job=lenient']);
      assert.equal(created.length, 1, 'the server created the task');
      assert.doesNotMatch(r.stderr, /unexpected error|Nothing was changed locally|nothing was started/i);
      const rows = parseJsonDoc((await h.ok(['--json', 'list', '--all'])).stdout) as Array<{ taskId?: string | null; phase: string }>;
      assert.equal(rows.length, 1, `one record: ${JSON.stringify(rows)}`);
      if (cell.keepsTask) {
        assert.equal(r.code, 0, r.stderr);
        assert.match(r.stderr, /CreateTaskResult was malformed.*the handle was kept/);
        assert.match(r.stderr, cell.problem!);
        assert.equal(rows[0]!.taskId, created[0], 'the record names the task the server created');
        assert.equal(rows[0]!.phase, 'active');
        // The next poll, in the same session, reads the task's real state.
        const g = await h.run(['--json', 'get', 'lenient']);
        assert.equal(g.code, 0, g.stderr);
        assert.ok(['working', 'completed'].includes(parseJsonDoc(g.stdout).status), g.stdout);
      } else {
        assert.equal(r.code, 10, r.stderr);
        assert.match(r.stderr, /in doubt/);
        assert.equal(rows[0]!.phase, 'in-doubt');
      }
    });
  }
});
