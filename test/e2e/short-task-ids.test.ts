// Task ids are bearer handles: human output and -v diagnostics never hold one whole, even when
// the server makes them short (8 characters) and quotes them back in its own text (a status
// message, a -32603 or -32602 error). The ref printed instead runs as printed; `show` and --json
// are the documented ways to the whole id. A real proxy in front of the demo server gives each
// task a short alias in both directions (bodies and the Mcp-Name header) and, on demand, answers
// with errors that echo it.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { newHome, parseJsonDoc, startDemo, type CliResult, type DemoServer, type TestHome } from '../helpers/cli.js';
import { startProxy, type Proxy } from '../helpers/proxy.js';

/** Short ids the proxy hands out, in order: 8 characters, none of them hex-only (an opId prefix never looks like one). */
const ALIASES = ['k7Qx2mPz', 'Rt5wNqbY'];

interface ShortIdServer {
  proxy: Proxy;
  /** The alias of the n-th task created through the proxy. */
  alias(n: number): string;
  /** Answer this method with this JSON-RPC error (its message may quote the alias), instead of forwarding it. */
  fail: Map<string, (alias: string) => { code: number; message: string }>;
  /** Put the alias into every tasks/get's statusMessage. */
  echoInStatus: boolean;
}

async function shortIdServer(demo: DemoServer): Promise<ShortIdServer> {
  const toShort = new Map<string, string>();
  const toLong = new Map<string, string>();
  const state: Omit<ShortIdServer, 'proxy'> = { alias: (n) => ALIASES[n]!, fail: new Map(), echoInStatus: false };
  const shorten = (text: string): string => {
    for (const m of text.matchAll(/"taskId":"([A-Za-z0-9_-]{32})"/g)) {
      if (toShort.has(m[1]!)) continue;
      const alias = ALIASES[toShort.size]!;
      toShort.set(m[1]!, alias);
      toLong.set(alias, m[1]!);
    }
    let out = text;
    for (const [long, short] of toShort) out = out.split(long).join(short);
    return out;
  };
  const lengthen = (text: string): string => {
    let out = text;
    for (const [short, long] of toLong) out = out.split(short).join(long);
    return out;
  };
  const rpc = (body: Buffer): { id?: unknown; method?: string; params?: { taskId?: string } } => {
    try {
      return JSON.parse(body.toString('utf8'));
    } catch {
      return {};
    }
  };
  const withStatus = (method: string | undefined) => (text: string) => {
    const short = shorten(text);
    if (!state.echoInStatus || method !== 'tasks/get') return short;
    const msg = JSON.parse(short) as { result?: { taskId?: string; statusMessage?: string } };
    if (msg.result?.taskId) msg.result.statusMessage = `still working on task ${msg.result.taskId}`;
    return JSON.stringify(msg);
  };
  const proxy = await startProxy(demo.url, {
    answer: (req) => {
      const m = rpc(req.body);
      const failure = m.method ? state.fail.get(m.method) : undefined;
      if (!failure || !m.params?.taskId) return undefined;
      return { status: 200, body: JSON.stringify({ jsonrpc: '2.0', id: m.id, error: failure(m.params.taskId) }) };
    },
    rewriteRequest: (req) => {
      const name = req.headers['mcp-name'];
      const headers = { ...req.headers, ...(typeof name === 'string' ? { 'mcp-name': lengthen(name) } : {}) };
      return { body: Buffer.from(lengthen(req.body.toString('utf8'))), headers };
    },
    rewrite: (req) => withStatus(rpc(req.body).method),
    rewriteEvents: (req) => withStatus(rpc(req.body).method),
  });
  // The hooks read `state` on every request: the test changes it between commands.
  return Object.assign(state, { proxy });
}

/** No whole id anywhere in what these runs printed. */
function assertShortOnly(id: string, runs: CliResult[]): void {
  for (const r of runs) {
    assert.ok(!r.stdout.includes(id), `the whole id ${id} on stdout:\n${r.stdout}`);
    assert.ok(!r.stderr.includes(id), `the whole id ${id} on stderr:\n${r.stderr}`);
  }
}

/** The words after `mcp-tasks <command>` in the first printed hint for that command. */
function hinted(r: CliResult, command: string): string[] {
  const m = new RegExp(`mcp-tasks (${command} [^\`\\n]+)`).exec(r.stdout + r.stderr);
  assert.ok(m, `no \`mcp-tasks ${command} …\` hint in:\n${r.stdout}${r.stderr}`);
  return m[1]!.trim().split(/\s+/);
}

describe('short task ids stay out of human output and diagnostics', { concurrency: 1, timeout: 180_000 }, () => {
  let demo: DemoServer;
  let server: ShortIdServer;
  let h: TestHome;
  before(async () => {
    demo = await startDemo({ verbose: true });
    server = await shortIdServer(demo);
    h = newHome();
    await h.ok(['server', 'add', 'web', '--url', server.proxy.url]);
  });
  after(async () => {
    await server?.proxy.close();
    await demo?.stop();
  });

  test('call --detach, get, list, watch, show: short ids, refs that run as printed', async () => {
    const call = await h.run(['call', 'web', 'slow_compute', 'seconds=600', '--detach']);
    assert.equal(call.code, 0, call.stderr);
    const id = server.alias(0);
    assert.match(call.stdout, /task k7Qx…/);
    const get = hinted(call, 'get');
    assert.match(get[1]!, /^[0-9a-f]{8}$/, 'the ref of a short id is its operation id prefix');

    server.echoInStatus = true;
    const polled = await h.run(get);
    assert.equal(polled.code, 0, polled.stderr);
    assert.match(polled.stdout, /still working on task k7Qx…/);
    const verbose = await h.run(['-v', ...get]);
    assert.equal(verbose.code, 0, verbose.stderr);
    assert.ok(verbose.stderr.length > 0, 'diagnostics were printed');
    const list = await h.run(['list']);
    // Piped: a header row, then the record's row.
    assert.ok(list.stdout.split('\n')[1]!.startsWith(`${get[1]}\t`), list.stdout);
    const watch = await h.run(['watch', get[1]!, '--timeout', '1s']);
    assert.equal(watch.code, 124, watch.stderr);
    assert.deepEqual(hinted(watch, 'watch'), ['watch', get[1]], 'the timeout hint names the same ref');
    assertShortOnly(id, [call, polled, verbose, list, watch]);

    // The documented ways to the whole id.
    const show = await h.run(['show', get[1]!]);
    assert.match(show.stdout, new RegExp(`^task\\s+${id}$`, 'm'));
    assert.equal(parseJsonDoc((await h.run([...get, '--json'])).stdout).taskId, id);
  });

  test('server errors quoting the id (-32603 on tasks/get and tasks/update, -32602), then lost and recover', async () => {
    const call = await h.run(['call', 'web', 'confirm_delete', 'filename=notes.txt', '--detach']);
    assert.equal(call.code, 0, call.stderr);
    const id = server.alias(1);
    const ref = hinted(call, 'answer')[1]!;
    assert.match(ref, /^[0-9a-f]{8}$/);

    server.fail.set('tasks/get', (taskId) => ({ code: -32603, message: `internal error while reading task ${taskId}` }));
    const internal = await h.run(['get', ref]);
    assert.notEqual(internal.code, 0);
    assert.match(internal.stderr, /internal error while reading task Rt5w…/);
    const internalVerbose = await h.run(['-v', 'get', ref]);
    server.fail.delete('tasks/get');

    server.fail.set('tasks/update', (taskId) => ({ code: -32603, message: `cannot store the answer for task ${taskId}` }));
    const answer = await h.run(['answer', ref, 'confirm=true']);
    assert.equal(answer.code, 7, answer.stderr);
    assert.match(answer.stderr, /cannot store the answer for task Rt5w…/);
    const answerVerbose = await h.run(['-v', 'answer', ref, 'confirm=true']);
    server.fail.delete('tasks/update');
    const refused = await h.run(hinted(answer, 'get'));
    assert.equal(refused.code, 5, `the hint's get runs: ${refused.stderr}`);

    server.fail.set('tasks/get', (taskId) => ({ code: -32602, message: `Task ${taskId} not found` }));
    const lost = await h.run(['get', ref]);
    assert.equal(lost.code, 6, lost.stderr);
    server.fail.delete('tasks/get');
    const recover = await h.run(['recover', ref]);
    assert.equal(recover.code, 10, recover.stderr);
    const resolve = hinted(recover, 'recover').map((w) => (w === 'completed|not-run|failed' ? 'not-run' : w)).slice(0, 4);
    const resolved = await h.run(resolve);
    assert.equal(resolved.code, 0, resolved.stderr);
    assertShortOnly(id, [call, internal, internalVerbose, answer, answerVerbose, refused, lost, recover, resolved]);
  });

  test('a short id adopted from stdin (--server … --save): the printed ref is its operation id prefix', async () => {
    const other = newHome();
    await other.ok(['server', 'add', 'web', '--url', server.proxy.url]);
    const id = server.alias(0);
    const adopt = await other.run(['get', '-', '--server', 'web', '--save'], { input: id });
    assert.equal(adopt.code, 0, adopt.stderr);
    const list = await other.run(['list']);
    const ref = list.stdout.split('\n')[1]!.split('\t')[0]!;
    assert.match(ref, /^[0-9a-f]{8}$/);
    const get = await other.run(['get', ref]);
    assert.equal(get.code, 0, get.stderr);
    assertShortOnly(id, [adopt, list, get]);
  });
});
