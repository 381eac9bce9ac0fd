// Our client against servers we did not write: the reference @modelcontextprotocol/server-everything
// from npm (it speaks the 2025-11-25 generation with its experimental tasks capability), over stdio.
// Over Streamable HTTP, with sessions resumed across processes: legacy-everything-cli.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { newHome, parseJsonDoc } from '../helpers/cli.js';

const require = createRequire(import.meta.url);
const pkgDir = dirname(require.resolve('@modelcontextprotocol/server-everything/package.json'));
const pkg = require('@modelcontextprotocol/server-everything/package.json') as { bin?: string | Record<string, string> };
const binRel = typeof pkg.bin === 'string' ? pkg.bin : Object.values(pkg.bin ?? {})[0]!;
const everything = [process.execPath, join(pkgDir, binRel)];

test('server-everything (2025-11-25) over stdio: check names the generation; a plain call answers; a task runs to completion', async () => {
  const h = newHome();
  await h.ok(['server', 'add', 'everything', '--', ...everything]);

  const check = await h.run(['--json', 'server', 'check', 'everything'], { timeoutMs: 60_000 });
  assert.equal(check.code, 0, check.stderr);
  const report = parseJsonDoc(check.stdout);
  assert.equal(report.era, 'legacy', 'the deprecated alias of generation, kept for this release');
  assert.equal(report.generation, '2025-11-25');
  assert.equal(report.protocolVersion, '2025-11-25');
  assert.equal(report.tasksExtension, false);
  assert.equal(report.legacyTasks, true, 'it advertises the 2025-11-25 tasks capability instead');
  assert.ok(report.tools.some((t: { name: string }) => t.name === 'echo'), 'its tools are listed');

  const human = await h.run(['server', 'check', 'everything'], { timeoutMs: 60_000 });
  assert.match(human.stdout, /2025-11-25 experimental tasks capability/);

  const call = await h.run(['--json', 'call', 'everything', 'echo', 'message=hi'], { timeoutMs: 60_000 });
  assert.equal(call.code, 0, call.stderr);
  assert.match(call.stdout, /Echo: hi/);
  assert.doesNotMatch(call.stderr, /\n\s+at /, 'no stack trace');

  const research = await h.run(['--json', 'call', 'everything', 'simulate-research-query', 'topic=stdio'], { timeoutMs: 60_000 });
  assert.equal(research.code, 0, research.stderr);
  const done = parseJsonDoc(research.stdout);
  assert.equal(done.status, 'completed');
  assert.match(JSON.stringify(done.result), /Research Report: stdio/);
  const list = await h.run(['--json', 'list', '--all']);
  assert.ok(parseJsonDoc(list.stdout).some((r: { taskId: string; status: string }) => r.taskId === done.taskId && r.status === 'completed'), 'the result is in the vault');
});

test('a taskId that is not in the vault, which a 2025-11-25 server answers with -32603: not in the vault, not recognised; no handle kept', async (t) => {
  const { startMcpFrameworkServer } = await import('../helpers/third-party-http.js');
  const server = await startMcpFrameworkServer(t);
  const h = newHome();
  await h.ok(['server', 'add', 'fw', '--url', server.url]);
  const r = await h.run(['get', '-', '--server', 'fw'], { input: 'no-such-task-0123456789abcdef\n' });
  assert.equal(r.code, 7, r.stderr);
  assert.match(r.stderr, /the server answered tasks\/get with error -32603 \(server "fw"\): .*; this taskId is not in the vault, and the server did not recognise it\n/);
  assert.match(r.stderr, /next: Check the taskId and that it was created on this server; nothing was recorded\./);
  assert.doesNotMatch(r.stderr, /handle is kept|Try again later/);
  assert.deepEqual(parseJsonDoc((await h.ok(['--json', 'list', '--all'])).stdout), [], 'nothing was recorded');
});
