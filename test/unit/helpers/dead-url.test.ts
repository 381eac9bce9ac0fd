// deadUrl() is what the tests mean by "a server that cannot be reached". It must stay that way for
// the whole test: a port that is only free for a moment can be taken by another test's server
// (parallel test files), which would then answer in its place.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect, createServer } from 'node:net';
import { deadUrl } from '../../helpers/cli.js';

test('deadUrl keeps its port: no other server can listen on it, and every connection is reset', async () => {
  const url = new URL(await deadUrl());
  const port = Number(url.port);
  const other = createServer();
  const listened = await new Promise<NodeJS.ErrnoException | undefined>((resolve) => {
    other.once('error', resolve);
    other.listen(port, '127.0.0.1', () => resolve(undefined));
  });
  if (!listened) await new Promise<void>((r) => other.close(() => r()));
  assert.equal(listened?.code, 'EADDRINUSE', 'another server could take the port of the "dead" URL');

  const failure = await new Promise<NodeJS.ErrnoException | undefined>((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('error', resolve);
    socket.once('close', () => resolve(undefined));
  });
  assert.equal(failure?.code, 'ECONNRESET', 'a connection to the dead URL is reset');

  // The same through fetch, as the CLI reaches a server.
  await assert.rejects(fetch(url, { method: 'POST', body: '{}' }), (err: Error & { cause?: { code?: string } }) => err instanceof TypeError && err.cause?.code === 'ECONNRESET');
});
