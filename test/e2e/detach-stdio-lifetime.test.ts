// `call --detach` on a stdio server mcp-tasks starts itself: the process ends when the CLI exits,
// so the task may end with it, and stderr says so (never stdout, which stays one JSON document
// with --json). The built-in demo keeps a durable store: no warning there.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { BIN, newHome, parseJsonDoc, tempDir } from '../helpers/cli.js';

const LIFETIME = /warning: "local" is a stdio server: .*lives only as long as that process/;

describe('call --detach on a stdio server', { timeout: 120_000 }, () => {
  test('a stdio server that is not the built-in demo: a warning on stderr, in text and --json; none for demo', async () => {
    const h = newHome();
    await h.ok(['server', 'add', 'local', '--', process.execPath, BIN, 'demo-server', '--stdio', '--store', join(tempDir(), 'tasks.json')]);

    const text = await h.run(['call', 'local', 'slow_compute', 'seconds=600', '--detach']);
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /task started/);
    assert.match(text.stderr, LIFETIME);
    assert.doesNotMatch(text.stdout, /warning/);

    const json = await h.run(['call', 'local', 'slow_compute', 'seconds=600', '--detach', '--json']);
    assert.equal(json.code, 0, json.stderr);
    assert.equal(parseJsonDoc(json.stdout).status, 'working', 'stdout is the one JSON document');
    assert.match(json.stderr, LIFETIME);

    // The built-in demo server over stdio keeps a durable store: nothing to warn about.
    const r = await h.run(['call', 'demo', 'slow_compute', 'seconds=600', '--detach']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /task started/);
    assert.doesNotMatch(r.stderr, /stdio server/);
  });
});
