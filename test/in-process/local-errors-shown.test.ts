// The vault's, the servers file's and the connection set-up's failures as a person reads them:
// exit code, the one-line message, the `next:` line and the --json error document. Those layers
// throw typed errors; app/local-error.ts names the next step (these lines are what they printed
// when they still built the CliError themselves).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseJsonDoc, startDemo, tempHome, type DemoServer } from '../helpers/cli.js';
import { interruptingPrompter, runInProcess } from '../helpers/in-process.js';

let demo: DemoServer;
before(async () => {
  demo = await startDemo();
});
after(() => demo.stop());

test('an unknown server: exit 1, the known ones and how to add it', async () => {
  const home = tempHome();
  const r = await runInProcess(['call', 'nope', 'slow_compute'], { home });
  assert.equal(r.code, 1, r.stderr);
  assert.equal(r.stderr, 'mcp-tasks: no server named "nope"\n  next: Known servers: demo. Add one with `mcp-tasks server add nope --url <url>`.\n');
  const j = await runInProcess(['--json', 'call', 'nope', 'slow_compute'], { home });
  assert.equal(j.code, 1);
  assert.deepEqual(parseJsonDoc(j.stdout), { error: { kind: 'not-found', message: 'no server named "nope"', next: 'Known servers: demo. Add one with `mcp-tasks server add nope --url <url>`.' } });
});

test('an invalid server name and the demo server\'s name: exit 1, what a name may be', async () => {
  const home = tempHome();
  const bad = await runInProcess(['server', 'add', 'a b', '--url', demo.url], { home });
  assert.equal(bad.code, 1, bad.stderr);
  assert.equal(bad.stderr, 'mcp-tasks: invalid server name "a b"\n  next: Use letters, digits, ".", "_" or "-" (up to 64 characters), starting with a letter or digit.\n');
  const reserved = await runInProcess(['server', 'add', 'demo', '--url', demo.url], { home });
  assert.equal(reserved.code, 1, reserved.stderr);
  assert.equal(reserved.stderr, 'mcp-tasks: "demo" is the built-in demo server and cannot be redefined\n  next: Pick another name.\n');
});

test('servers.json that is not JSON: exit 1, left untouched', async () => {
  const home = tempHome();
  writeFileSync(join(home, 'servers.json'), '{');
  const r = await runInProcess(['call', 'web', 'slow_compute'], { home });
  assert.equal(r.code, 1, r.stderr);
  assert.equal(r.stderr, `mcp-tasks: ${join(home, 'servers.json')} is not valid JSON; it was left untouched\n  next: Fix or move the file aside, then add the servers again.\n`);
});

test('a corrupt vault: exit 9, restore or move aside', async () => {
  const home = tempHome();
  writeFileSync(join(home, 'vault.json'), 'not a vault');
  const r = await runInProcess(['--json', 'list'], { home });
  assert.equal(r.code, 9, r.stderr);
  assert.deepEqual(parseJsonDoc(r.stdout), {
    error: {
      kind: 'vault',
      message: `the vault ${join(home, 'vault.json')} is corrupt, truncated or not an mcp-tasks vault; it was left untouched`,
      next: 'Restore it from a backup, or move it aside to start an empty vault (its handles would be lost).',
    },
  });
});

test('a bearer token variable that is not set: exit 8, export it', async () => {
  const home = tempHome();
  assert.equal((await runInProcess(['server', 'add', 'web', '--url', demo.url, '--bearer-env', 'E8_UNSET_TOKEN'], { home })).code, 0);
  const r = await runInProcess(['call', 'web', 'slow_compute', 'seconds=1'], { home, env: { E8_UNSET_TOKEN: undefined } });
  assert.equal(r.code, 8, r.stderr);
  // (after the notice of the vault key created for the call's record)
  assert.ok(r.stderr.endsWith('\nmcp-tasks: server "web" takes its bearer token from $E8_UNSET_TOKEN, which is not set\n  next: Export E8_UNSET_TOKEN in this shell, then retry.\n'), r.stderr);
});

test('interrupted before the retry is sent: exit 130, nothing was sent', async () => {
  const home = tempHome();
  assert.equal((await runInProcess(['server', 'add', 'web', '--url', demo.url], { home })).code, 0);
  const interrupt = new AbortController();
  const prompter = interruptingPrompter(interrupt);
  const r = await runInProcess(['call', 'web', 'preflight_check'], { home, stdinIsTTY: true, env: { CI: undefined }, prompter, interrupt: interrupt.signal });
  assert.equal(r.code, 130, r.stderr);
  assert.match(r.stderr, /mcp-tasks: interrupted before tools\/call was sent; nothing was sent\n {2}next: Run the command again when you are ready; nothing was started\.\n$/);
});
