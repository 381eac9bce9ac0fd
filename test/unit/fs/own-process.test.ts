// fs/own-process.ts: the work a command leaves running that the process must finish before the
// bin ends it (finishBeforeExit, unfinishedWork).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { finishBeforeExit, unfinishedWork } from '../../../src/fs/own-process.js';

const later = <T>(ms: number, value: T, fail = false) => new Promise<T>((resolve, reject) => setTimeout(() => (fail ? reject(new Error('failed')) : resolve(value)), ms));

test('unfinishedWork waits for every piece of work given, a failed one too, and for work one of them started meanwhile', async () => {
  await unfinishedWork(); // nothing given: settles at once
  const done: string[] = [];
  finishBeforeExit(later(30, 'a').then((v) => void done.push(v)));
  finishBeforeExit(later(10, 'b', true).catch((e: Error) => void done.push(e.message)));
  finishBeforeExit(later(5, 'c', true)); // its failure is only waited for, never thrown here
  finishBeforeExit(
    later(20, 'd').then((v) => {
      done.push(v);
      finishBeforeExit(later(25, 'e').then((w) => void done.push(w)));
    }),
  );
  await unfinishedWork();
  assert.deepEqual(done.sort(), ['a', 'd', 'e', 'failed']);
  await unfinishedWork(); // all settled: nothing left to wait for
});
