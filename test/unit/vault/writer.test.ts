// A `submitting` record names its writer by pid and start time, and a live writer must never look
// gone: that would put a submission still in flight in doubt, and stop an identical call with
// exit 10 (seen in a fan-out of 64 calls on a loaded machine).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { writerGone, type WriterStamp } from '../../../src/vault/writer.js';

const WRITER = new URL('../../../src/vault/writer.js', import.meta.url).href;

test('a writer whose Node started seconds after its process did is alive while it runs, gone once it exits', { skip: process.platform !== 'linux' && 'the start time is read from /proc' }, async () => {
  // The process starts (a shell), waits 3 s, then becomes Node: as a runner too loaded to start
  // Node for seconds. The stamp it writes must match what the kernel says of it.
  const script = `import { currentWriter } from ${JSON.stringify(WRITER)}; console.log(JSON.stringify(currentWriter())); process.stdin.resume();`;
  const child = spawn('sh', ['-c', 'sleep 3; exec "$0" --input-type=module -e "$1"', process.execPath, script], { stdio: ['pipe', 'pipe', 'inherit'] });
  let writer: WriterStamp;
  try {
    const [line] = (await once(createInterface({ input: child.stdout! }), 'line')) as [string];
    writer = JSON.parse(line) as WriterStamp;
    assert.equal(writer.pid, child.pid, 'the shell became Node: one process');
    assert.equal(writerGone({ writer }), false, 'a live writer is not gone');
  } finally {
    child.stdin!.end();
  }
  await once(child, 'exit');
  assert.equal(writerGone({ writer }), true, 'an exited writer is gone');
});
