// The size bounds count the bytes a real HTTP server sends: many events may add up past one
// event's bound (only each event is bounded), one event made of many `data:` lines may not.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type ServerResponse } from 'node:http';
import { boundedFetch, RESPONSE_BOUNDS, ResponseTooLargeError } from '../../../src/connection/bounded-fetch.js';

const MiB = 1024 * 1024;

async function serve(write: (res: ServerResponse) => void): Promise<{ url: string; close: () => Promise<void> }> {
  const server = createServer((_req, res) => write(res));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}/`,
    close: () => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }),
  };
}

function sse(res: ServerResponse, events: number, lineBytes: number, linesPerEvent: number, newline: string): void {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  const line = `data: ${'z'.repeat(lineBytes)}${newline}`;
  for (let e = 0; e < events; e++) {
    for (let l = 0; l < linesPerEvent; l++) res.write(line);
    res.write(newline);
  }
  res.end();
}

const readAll = async (r: Response): Promise<number> => (await r.arrayBuffer()).byteLength;

test('events that add up past one event\'s bound pass, with CRLF, LF and CR line ends', async () => {
  for (const nl of ['\r\n', '\n', '\r']) {
    const s = await serve((res) => sse(res, 40, MiB / 2, 1, nl));
    try {
      const r = await boundedFetch('t')(s.url, { method: 'POST', body: '{}' });
      assert.ok((await readAll(r)) > RESPONSE_BOUNDS.sseEventBytes, `all of it read (${JSON.stringify(nl)})`);
    } finally {
      await s.close();
    }
  }
});

test('one event of many data: lines past the bound fails, naming the bound and the request', async () => {
  const s = await serve((res) => sse(res, 1, MiB, 17, '\n'));
  const faults: Array<string | undefined> = [];
  try {
    const r = await boundedFetch('t', fetch, (id) => faults.push(id))(s.url, { method: 'POST', body: JSON.stringify({ jsonrpc: '2.0', id: 'req-1', method: 'x' }) });
    await assert.rejects(readAll(r), (e: unknown) => e instanceof ResponseTooLargeError && /16 MiB.*one SSE event/.test(e.message) && e.requestMayHaveArrived);
    assert.deepEqual(faults, ['req-1']);
  } finally {
    await s.close();
  }
});

test('a JSON body past the bound fails whether or not it declares its length', async () => {
  const body = Buffer.alloc(RESPONSE_BOUNDS.jsonBodyBytes + 1, 0x20);
  for (const declared of [true, false]) {
    const s = await serve((res) => {
      res.writeHead(200, { 'content-type': 'application/json', ...(declared ? { 'content-length': String(body.length) } : {}) });
      res.end(body);
    });
    try {
      await assert.rejects(
        boundedFetch('t')(s.url, { method: 'POST', body: '{}' }).then(readAll),
        (e: unknown) => e instanceof ResponseTooLargeError && /16 MiB/.test(e.message),
      );
    } finally {
      await s.close();
    }
  }
});

test('past a bound the server\'s connection is let go, not read on; a reader that stops early lets it go too', async () => {
  for (const stopEarly of [false, true]) {
    let closed!: () => void;
    const serverSawClose = new Promise<void>((r) => (closed = r));
    // An endless event stream, one 1 MiB event after another: only its reader's end stops it.
    const s = await serve((res) => {
      res.on('close', closed);
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const event = `data: ${'z'.repeat(MiB)}\n\n`;
      const more = () => {
        while (!res.destroyed && res.write(event));
        if (!res.destroyed) res.once('drain', more);
      };
      more();
    });
    try {
      const r = await boundedFetch('t')(s.url, { method: 'POST', body: '{}' });
      if (stopEarly) {
        const reader = r.body!.getReader();
        assert.equal((await reader.read()).done, false);
        await reader.cancel();
      } else {
        await assert.rejects(readAll(r), (e: unknown) => e instanceof ResponseTooLargeError && /one request's stream/.test(e.message));
      }
      await serverSawClose;
    } finally {
      await s.close();
    }
  }
});
