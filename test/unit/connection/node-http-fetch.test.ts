// The node:http fetch the HTTP transport uses on Node 20, against a real HTTP server: what the
// SDK reads from a fetch (status, headers, a JSON or SSE web-stream body) is there, aborts and
// network failures look like the global fetch's, and the size bounds hold over it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { nodeHttpFetch } from '../../../src/connection/node-http-fetch.js';
import { boundedFetch, RESPONSE_BOUNDS, ResponseTooLargeError } from '../../../src/connection/bounded-fetch.js';
import { deadUrl } from '../../helpers/cli.js';

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

async function serve(handle: (req: IncomingMessage, res: ServerResponse, seen: Seen) => void): Promise<{ url: string; seen: Seen[]; close: () => Promise<void> }> {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (d: string) => (body += d));
    req.on('end', () => {
      const s = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body };
      seen.push(s);
      handle(req, res, s);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}/mcp`,
    seen,
    close: () => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }),
  };
}

test('a JSON POST: method, headers (a Headers object too), body and length reach the server; status, headers and body come back as a global Response', async () => {
  const s = await serve((_req, res) => {
    res.writeHead(200, 'Fine', [['content-type', 'application/json'], ['set-cookie', 'a=1'], ['set-cookie', 'b=2'], ['mcp-session-id', 'sess-1']]);
    res.end('{"jsonrpc":"2.0","id":1,"result":{}}');
  });
  try {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tasks/get', params: { taskId: 'é' } });
    const r = await nodeHttpFetch(new URL(s.url), { method: 'POST', headers: new Headers({ 'content-type': 'application/json', 'mcp-method': 'tasks/get' }), body, redirect: 'manual' });
    assert.ok(r instanceof Response);
    assert.equal(r.status, 200);
    assert.equal(r.statusText, 'Fine');
    assert.equal(r.ok, true);
    assert.equal(r.headers.get('mcp-session-id'), 'sess-1');
    assert.deepEqual(r.headers.getSetCookie(), ['a=1', 'b=2']);
    assert.deepEqual(await r.json(), { jsonrpc: '2.0', id: 1, result: {} });
    const [seen] = s.seen;
    assert.equal(seen!.method, 'POST');
    assert.equal(seen!.url, '/mcp');
    assert.equal(seen!.body, body);
    assert.equal(seen!.headers['content-length'], String(Buffer.byteLength(body)));
    assert.equal(seen!.headers['content-type'], 'application/json');
    assert.equal(seen!.headers['mcp-method'], 'tasks/get');
    assert.equal(seen!.headers.accept, '*/*');
  } finally {
    await s.close();
  }
});

test('a form body (a token request) is sent url-encoded with its content type; a string URL works', async () => {
  const s = await serve((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
  try {
    const r = await nodeHttpFetch(s.url, { method: 'POST', body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: 'r t' }), redirect: 'manual' });
    await r.body?.cancel();
    assert.equal(s.seen[0]!.headers['content-type'], 'application/x-www-form-urlencoded;charset=UTF-8');
    assert.equal(s.seen[0]!.body, 'grant_type=refresh_token&refresh_token=r+t');
  } finally {
    await s.close();
  }
});

test('an SSE answer is readable event by event while the stream is open; cancelling it closes the connection', async () => {
  let closed!: () => void;
  const connectionClosed = new Promise<void>((r) => (closed = r));
  const s = await serve((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write('event: message\ndata: {"n":1}\n\n');
    res.on('close', () => closed());
    // Never ends on its own: only the client's cancel ends it.
  });
  try {
    const r = await nodeHttpFetch(s.url, { method: 'GET', headers: { accept: 'text/event-stream' }, redirect: 'manual' });
    assert.equal(r.headers.get('content-type'), 'text/event-stream');
    const reader = r.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = '';
    while (!text.includes('\n\n')) {
      const { value, done } = await reader.read();
      assert.equal(done, false, 'the first event arrives before the stream ends');
      text += value;
    }
    assert.equal(text, 'event: message\ndata: {"n":1}\n\n');
    await reader.cancel();
    await connectionClosed;
  } finally {
    await s.close();
  }
});

test('abort: before sending nothing is sent; while waiting for the answer and while reading the body, the reason is what rejects', async () => {
  const before = await serve((_req, res) => res.end('{}'));
  try {
    await assert.rejects(nodeHttpFetch(before.url, { method: 'POST', body: '{}', redirect: 'manual', signal: AbortSignal.abort() }), { name: 'AbortError' });
    assert.equal(before.seen.length, 0);
  } finally {
    await before.close();
  }

  let arrived!: () => void;
  const requestArrived = new Promise<void>((r) => (arrived = r));
  const silent = await serve(() => arrived()); // never answers
  try {
    const controller = new AbortController();
    const pending = nodeHttpFetch(silent.url, { method: 'POST', body: '{}', redirect: 'manual', signal: controller.signal });
    await requestArrived;
    controller.abort();
    await assert.rejects(pending, { name: 'AbortError' });
  } finally {
    await silent.close();
  }

  const streaming = await serve((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write('data: 1\n\n');
  });
  try {
    const controller = new AbortController();
    const r = await nodeHttpFetch(streaming.url, { method: 'POST', body: '{}', redirect: 'manual', signal: controller.signal });
    const reader = r.body!.getReader();
    await reader.read();
    const reason = new Error('stop now');
    controller.abort(reason);
    await assert.rejects(reader.read(), (e: unknown) => e === reason);
  } finally {
    await streaming.close();
  }
});

test('a connection that fails fails as the global fetch does: TypeError "fetch failed" with the same system error as its cause', async () => {
  const url = await deadUrl(); // resets every connection: ECONNRESET
  const causeOf = async (f: typeof fetch) => {
    const e = await f(url, { method: 'POST', body: '{}', redirect: 'manual' }).then(() => assert.fail('no answer expected'), (err: unknown) => err);
    assert.ok(e instanceof TypeError);
    assert.equal(e.message, 'fetch failed');
    return (e.cause as NodeJS.ErrnoException).code;
  };
  const code = await causeOf(nodeHttpFetch);
  assert.equal(code, 'ECONNRESET');
  assert.equal(code, await causeOf(fetch));
});

test('redirects: manual hands back the 3xx with its Location; error refuses it; follow (not what the SDK sends) is the global fetch following it', async () => {
  const s = await serve((req, res) => {
    if (req.url === '/mcp') res.writeHead(307, { location: '/moved' }).end();
    else res.writeHead(200, { 'content-type': 'application/json' }).end('{"moved":true}');
  });
  try {
    const manual = await nodeHttpFetch(s.url, { method: 'POST', body: '{}', redirect: 'manual' });
    assert.equal(manual.status, 307);
    assert.equal(manual.headers.get('location'), '/moved');
    await assert.rejects(nodeHttpFetch(s.url, { method: 'POST', body: '{}', redirect: 'error' }), TypeError);
    const followed = await nodeHttpFetch(s.url, { method: 'POST', body: '{}' });
    assert.equal(followed.status, 200);
    assert.deepEqual(await followed.json(), { moved: true });
  } finally {
    await s.close();
  }
});

test('bodiless answers (202, 204) come back without a body, as the SDK expects of a notification\'s answer', async () => {
  const s = await serve((req, res) => res.writeHead(req.url === '/mcp' ? 202 : 204).end());
  try {
    const accepted = await nodeHttpFetch(s.url, { method: 'POST', body: '{}', redirect: 'manual' });
    assert.equal(accepted.status, 202);
    assert.equal(await accepted.text(), '');
    const none = await nodeHttpFetch(s.url.replace('/mcp', '/none'), { method: 'DELETE', redirect: 'manual' });
    assert.equal(none.status, 204);
    assert.equal(none.body, null);
  } finally {
    await s.close();
  }
});

test('the size bounds hold over it: one SSE event past its bound, a JSON body past its bound (declared or not)', async () => {
  const MiB = 1024 * 1024;
  const sse = await serve((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const line = `data: ${'z'.repeat(MiB)}\n`;
    for (let l = 0; l < 17; l++) res.write(line);
    res.end('\n');
  });
  try {
    const faults: Array<string | undefined> = [];
    const r = await boundedFetch('t', nodeHttpFetch, (id) => faults.push(id))(sse.url, { method: 'POST', body: JSON.stringify({ jsonrpc: '2.0', id: 'req-1', method: 'x' }), redirect: 'manual' });
    await assert.rejects(r.arrayBuffer(), (e: unknown) => e instanceof ResponseTooLargeError && /one SSE event/.test(e.message));
    assert.deepEqual(faults, ['req-1']);
  } finally {
    await sse.close();
  }
  const body = Buffer.alloc(RESPONSE_BOUNDS.jsonBodyBytes + 1, 0x20);
  for (const declared of [true, false]) {
    const json = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', ...(declared ? { 'content-length': String(body.length) } : {}) });
      res.end(body);
    });
    try {
      await assert.rejects(
        boundedFetch('t', nodeHttpFetch)(json.url, { method: 'POST', body: '{}', redirect: 'manual' }).then((r) => r.arrayBuffer()),
        (e: unknown) => e instanceof ResponseTooLargeError && /16 MiB/.test(e.message),
      );
    } finally {
      await json.close();
    }
  }
});

