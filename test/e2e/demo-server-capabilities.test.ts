// The CLI against the strict demo server: every request declares what mcp-tasks can answer, so
// input requests still reach it; a server that requires something else gets a one-line -32021
// message naming it (exit 7). Hostile behaviour comes through a real proxy in front of the demo.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { homeWithServer, parseJsonDoc, startDemo, tempDir, type DemoServer } from '../helpers/cli.js';
import { startProxy, type ProxiedRequest, type Proxy } from '../helpers/proxy.js';

const CAPS = 'io.modelcontextprotocol/clientCapabilities';
const parse = (req: ProxiedRequest): any => {
  try {
    return JSON.parse(req.body.toString('utf8'));
  } catch {
    return undefined;
  }
};

describe('the CLI against the strict demo server', { concurrency: true }, () => {
  let demo: DemoServer;
  let recorder: Proxy;
  let stripper: Proxy;
  let silent: Proxy;
  const seen: Array<{ method: string; caps: unknown }> = [];
  before(async () => {
    demo = await startDemo();
    // Records what each request declares, forwards everything unchanged.
    recorder = await startProxy(demo.url, {
      rewriteRequest: (req) => {
        const m = parse(req);
        if (m?.method) seen.push({ method: m.method, caps: m.params?._meta?.[CAPS] });
        return undefined;
      },
    });
    // A client that declares no sampling, as far as the server can tell.
    stripper = await startProxy(demo.url, {
      rewriteRequest: (req) => {
        const m = parse(req);
        const caps = m?.params?._meta?.[CAPS];
        if (!caps?.sampling) return undefined;
        delete caps.sampling;
        return Buffer.from(JSON.stringify(m));
      },
    });
    // A server that answers -32021 to every tools/call.
    silent = await startProxy(demo.url, {
      answer: (req) => {
        const m = parse(req);
        if (m?.method !== 'tools/call') return undefined;
        // send_payment "needs" sampling with tools; everything else names nothing.
        const data = m.params?.name === 'send_payment' ? { data: { requiredCapabilities: { sampling: { tools: {} } } } } : {};
        return { status: 400, body: JSON.stringify({ jsonrpc: '2.0', id: m.id, error: { code: -32021, message: 'Missing required client capability', ...data } }) };
      },
    });
  });
  after(async () => {
    await Promise.all([recorder?.close(), stripper?.close(), silent?.close()]);
    await demo?.stop();
  });

  test('every request declares elicitation (form, url), sampling, roots and the tasks extension; input still arrives', async () => {
    const h = await homeWithServer('rec', recorder.url);
    const answers = join(tempDir(), 'answers.json');
    writeFileSync(answers, JSON.stringify({ confirm: { action: 'accept', content: { confirm: true } } }));
    const r = await h.run(['call', 'rec', 'confirm_delete', 'filename=a.txt', '--answers', answers]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /Deleted a\.txt/);
    const methods = new Set(seen.map((s) => s.method));
    for (const m of ['tools/call', 'tasks/get', 'tasks/update']) assert.ok(methods.has(m), `saw ${m}`);
    for (const s of seen.filter((x) => x.method !== 'server/discover' || x.caps !== undefined)) {
      assert.deepEqual(s.caps, { elicitation: { form: {}, url: {} }, sampling: {}, roots: {}, extensions: { 'io.modelcontextprotocol/tasks': {} } }, s.method);
    }
  });

  test('sampling, roots and URL elicitations reach the CLI from the strict server (they need the declarations)', async () => {
    const h = await homeWithServer('strict', demo.url);
    for (const [tool, args, key] of [
      ['summarize_with_model', ['text=hello'], 'summary'],
      ['approve_deploy', [], 'approval'],
    ] as const) {
      const r = await h.run(['--json', 'call', 'strict', tool, ...args]);
      assert.equal(r.code, 5, `${tool}: ${r.stderr}`);
      assert.ok(parseJsonDoc(r.stdout).inputRequests[key], `${tool} asked for ${key}`);
    }
    // roots/list is answered from the server entry's --root values without asking anyone.
    const roots = await h.run(['call', 'strict', 'scan_roots']);
    assert.equal(roots.code, 0, roots.stderr);
    assert.match(roots.stdout, /Scanned 0 root\(s\)/);
  });

  test('the strict server refusing what mcp-tasks declared (lost on the way): exit 7, one line naming it, a next step', async () => {
    const h = await homeWithServer('nosampling', stripper.url);
    const r = await h.run(['call', 'nosampling', 'summarize_with_model', 'text=hello']);
    assert.equal(r.code, 7, r.stderr);
    assert.match(r.stderr, /^mcp-tasks: the server says the client capability sampling is missing \(server "nosampling"\), but mcp-tasks declares it in every request$/m);
    assert.match(r.stderr, /next: Nothing was run\. .*`mcp-tasks server check nosampling`/);
    const json = await h.run(['--json', 'call', 'nosampling', 'summarize_with_model', 'text=hello']);
    assert.equal(json.code, 7);
    assert.equal(parseJsonDoc(json.stdout).error.kind, 'protocol');
    // Nothing was created, so nothing is waiting in the vault.
    const list = await h.run(['--json', 'list', '--all']);
    assert.deepEqual(parseJsonDoc(list.stdout), []);
  });

  test('a server requiring a capability mcp-tasks does not implement (sampling.tools): exit 7 naming it', async () => {
    const h = await homeWithServer('tooly', silent.url);
    const r = await h.run(['call', 'tooly', 'send_payment', 'to=x', 'amount:=1']);
    assert.equal(r.code, 7, r.stderr);
    assert.match(r.stderr, /^mcp-tasks: the server requires the client capability sampling\.tools \(server "tooly"\), which mcp-tasks does not implement$/m);
    assert.match(r.stderr, /next: Nothing was run\. This tool cannot be used from mcp-tasks/);
  });

  test('-32021 without data: exit 7 saying the server named nothing', async () => {
    const h = await homeWithServer('silent', silent.url);
    const r = await h.run(['call', 'silent', 'slow_compute', 'seconds=1']);
    assert.equal(r.code, 7, r.stderr);
    assert.match(r.stderr, /requires a client capability \(server "silent"\) but did not name it \(error -32021 without data\.requiredCapabilities\)/);
  });
});
