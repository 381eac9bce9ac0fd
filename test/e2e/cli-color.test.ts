// Colour is the only thing chalk is loaded for (lazily, on a TTY; the architecture check forbids a
// static import): on a terminal the status is coloured, with NO_COLOR or --json it is plain.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnPty } from '../helpers/pty.js';
import { tempHome } from '../helpers/cli.js';

const greetOnPty = async (args: string[], env: Record<string, string | undefined>) => {
  const pty = spawnPty([...args, 'call', 'demo', 'greet', 'name=x'], { home: tempHome(), env });
  try {
    const end = await pty.done;
    assert.equal(end.code, 0, end.text);
    return end.raw;
  } finally {
    pty.kill();
  }
};

test('on a terminal the outcome is coloured; NO_COLOR and --json print no colour codes', async () => {
  const coloured = await greetOnPty([], { NO_COLOR: undefined });
  assert.ok(coloured.includes('\x1b[32mcompleted\x1b[39m'), JSON.stringify(coloured.slice(0, 400)));
  const plain = await greetOnPty([], { NO_COLOR: '1' });
  assert.match(plain, /completed/);
  assert.ok(!plain.includes('\x1b[32m'), JSON.stringify(plain.slice(0, 400)));
  const json = await greetOnPty(['--json'], { NO_COLOR: undefined });
  assert.match(json, /"status":\s*"completed"/);
  assert.ok(!json.includes('\x1b[32m'), JSON.stringify(json.slice(0, 400)));
});
