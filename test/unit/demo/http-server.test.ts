// The HTTP front's pure parts: the status of a task-surface error and the Mcp-Name decoding.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeNameHeader, httpStatusForSurfaceError } from '../../../src/demo/http-server.js';

test('httpStatusForSurfaceError: -32021 is 400, -32601 is 404, handler errors stay in-band', () => {
  assert.equal(httpStatusForSurfaceError(-32021), 400);
  assert.equal(httpStatusForSurfaceError(-32601), 404);
  for (const code of [-32602, -32603, -31429, -32000]) assert.equal(httpStatusForSurfaceError(code), 200, String(code));
});

test('decodeNameHeader: plain values as is, the Base64 form decoded, a malformed one refused', () => {
  assert.equal(decodeNameHeader('slow_compute'), 'slow_compute');
  const id = '\x1b[31mabc\r\u009b0m';
  assert.equal(decodeNameHeader(`=?base64?${Buffer.from(id, 'utf8').toString('base64')}?=`), id);
  assert.equal(decodeNameHeader(`=?base64?${Buffer.from('héllo', 'utf8').toString('base64')}?=`), 'héllo');
  assert.equal(decodeNameHeader('=?base64?not base64!?='), undefined);
  assert.equal(decodeNameHeader('=?base64?YWJj'), undefined, 'no closing ?=');
  assert.equal(decodeNameHeader(`=?base64?${Buffer.from([0xff, 0xfe]).toString('base64')}?=`), undefined, 'not UTF-8');
});
