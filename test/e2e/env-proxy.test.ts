// The environment's HTTP proxy (NODE_USE_ENV_PROXY=1 with HTTP_PROXY) is honoured: the transport's
// fetch is a node:http request, not undici's, and Node 24 applies the variable to node:http's
// global agent too, so nothing bypasses the proxy. A real forward proxy in front of a real demo
// server; the proxy records what passed through it. Lines before 24 have no NODE_USE_ENV_PROXY.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, request, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { homeWithServer, startDemo, type DemoServer } from '../helpers/cli.js';

const ENV_PROXY_FETCH = Number(process.versions.node.split('.')[0]) >= 24;

/** A forward proxy: absolute-form requests are forwarded, CONNECT opens a tunnel (undici tunnels plain http too). */
async function startForwardProxy(): Promise<{ url: string; seen: string[]; close(): Promise<void> }> {
  const seen: string[] = [];
  const server: Server = createServer((req, res) => {
    seen.push(req.url ?? '');
    const up = request(req.url ?? '', { method: req.method, headers: req.headers }, (ur) => {
      res.writeHead(ur.statusCode ?? 502, ur.headers);
      ur.pipe(res);
    });
    up.on('error', () => res.destroy());
    req.pipe(up);
  });
  server.on('connect', (req, client, head) => {
    seen.push(`CONNECT ${req.url ?? ''}`);
    const [host, port] = (req.url ?? '').split(':');
    const upstream = connect(Number(port), host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () => new Promise<void>((r) => {
      server.closeAllConnections();
      server.close(() => r());
    }),
  };
}

describe('the environment\'s HTTP proxy', () => {
  let demo: DemoServer;
  before(async () => {
    demo = await startDemo();
  });
  after(() => demo?.stop());

  test('with NODE_USE_ENV_PROXY=1 every request to the server goes through HTTP_PROXY', { skip: ENV_PROXY_FETCH ? false : 'this Node line\'s fetch has no NODE_USE_ENV_PROXY' }, async () => {
    const proxy = await startForwardProxy();
    try {
      const h = await homeWithServer('web', demo.url);
      const env = { NODE_USE_ENV_PROXY: '1', HTTP_PROXY: proxy.url, http_proxy: proxy.url, NO_PROXY: '', no_proxy: '' };
      // A real process: Node reads NODE_USE_ENV_PROXY when it starts.
      const r = await h.run(['--json', 'call', 'web', 'greet', 'name=Ada'], { env, spawn: true });
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /Hello, Ada!/);
      assert.ok(proxy.seen.length > 0, 'the proxy saw the requests');
      const origin = new URL(demo.url);
      assert.ok(proxy.seen.every((u) => u.startsWith(demo.url.replace(/\/mcp$/, '')) || u === `CONNECT ${origin.host}`), `every request named the server: ${proxy.seen.join(', ')}`);
    } finally {
      await proxy.close();
    }
  });
});
