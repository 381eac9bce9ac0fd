// A hostile server (demo-server --fault hostile-text: status messages, prompts, errors and results
// carry ESC/CSI/OSC sequences, BEL, an 8-bit CSI and 5,000-character lines). No control character
// may reach the terminal in human mode; --json stays parseable with nothing raw in it.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { KEY, spawnPty } from '../helpers/pty.js';
import { addHttpServer, firstUnsafe, newHome, parseJsonDoc, parseJsonLines, startDemo, type CliResult, type DemoServer, type Home } from '../helpers/cli.js';

const MAX_LINE = 2200;

function assertTerminalSafe(r: CliResult, what: string): void {
  for (const [stream, text] of [
    ['stdout', r.stdout],
    ['stderr', r.stderr],
  ] as const) {
    assert.ok(!text.includes('\x1b'), `${what}: ESC on ${stream}`);
    assert.ok(!text.includes('\x9b'), `${what}: 8-bit CSI on ${stream}`);
    assert.ok(!text.includes('\x07'), `${what}: BEL on ${stream}`);
    const bad = firstUnsafe(text);
    assert.equal(bad, undefined, `${what}: control character on ${stream}: ${bad}`);
    assert.ok(!text.includes('owned'), `${what}: the OSC title payload leaked on ${stream}`);
    const longest = Math.max(0, ...text.split('\n').map((l) => l.length));
    assert.ok(longest <= MAX_LINE, `${what}: a ${longest}-character line on ${stream}`);
  }
}

/** --json output: parseable, and nothing raw that a terminal would interpret. */
function assertJsonSafe(r: CliResult, what: string): void {
  assert.ok(!/[\x00-\x09\x0b-\x1f\x7f-\x9f]/.test(r.stdout), `${what}: a raw control character in the JSON on stdout: ${firstUnsafe(r.stdout)}`);
  const bad = firstUnsafe(r.stderr);
  assert.equal(bad, undefined, `${what}: control character on stderr: ${bad}`);
}

describe('hostile server text never reaches the terminal', { concurrency: 4 }, () => {
  let demo: DemoServer;
  let h: Home;
  before(async () => {
    demo = await startDemo({ faults: ['hostile-text'] });
    h = newHome();
    await addHttpServer(h, 'evil', demo.url);
  });
  after(async () => {
    await demo?.stop();
  });

  test('call: progress lines, final state and a long result', async () => {
    // Long enough for progress lines while it works, even on a loaded machine.
    const r = await h.run(['call', 'evil', 'slow_compute', 'seconds=3']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /Computed slow_compute after 3 second\(s\)/);
    assert.match(r.stderr, /slow_compute on evil: working · Computing/);
    assertTerminalSafe(r, 'call slow_compute');
  });

  test('call: a hostile prompt (input_required) and a hostile error', async () => {
    const [input, failed, preflight] = await Promise.all([
      h.run(['call', 'evil', 'confirm_delete', 'filename=x']),
      h.run(['call', 'evil', 'protocol_error_job']),
      h.run(['call', 'evil', 'preflight_check']),
    ]);
    assert.equal(input.code, 5, input.stderr);
    assert.match(input.stderr, /Delete x\?/);
    assertTerminalSafe(input, 'call confirm_delete');
    assert.equal(failed.code, 2, failed.stderr);
    assert.match(failed.stdout, /simulated protocol failure/);
    assertTerminalSafe(failed, 'call protocol_error_job');
    assert.equal(preflight.code, 5, preflight.stderr);
    assert.match(preflight.stderr, /Which environment should be checked\?/);
    assertTerminalSafe(preflight, 'call preflight_check');
  });

  test('get, watch, show and list on a hostile task', async () => {
    const d = await h.run(['call', 'evil', 'generate_report', 'seconds=2', '--detach', '--label', 'job=hostile-report']);
    assert.equal(d.code, 0, d.stderr);
    assertTerminalSafe(d, 'call --detach');
    const get = await h.run(['get', 'hostile-report']);
    assert.equal(get.code, 0, get.stderr);
    assertTerminalSafe(get, 'get');
    const watch = await h.run(['watch', 'hostile-report']);
    assert.equal(watch.code, 0, watch.stderr);
    assert.match(watch.stdout, /is ready: 12 pages/);
    assertTerminalSafe(watch, 'watch');
    const show = await h.run(['show', 'hostile-report']);
    assert.equal(show.code, 0, show.stderr);
    assertTerminalSafe(show, 'show');
    const list = await h.run(['list', '--all']);
    assert.equal(list.code, 0, list.stderr);
    assertTerminalSafe(list, 'list');
  });

  test('cancel --wait on a hostile task', async () => {
    const d = await h.run(['call', 'evil', 'slow_compute', 'seconds=30', '--detach', '--label', 'job=hostile-cancel']);
    assert.equal(d.code, 0, d.stderr);
    const c = await h.run(['cancel', 'hostile-cancel', '--wait']);
    assert.equal(c.code, 3, c.stderr);
    assertTerminalSafe(c, 'cancel --wait');
  });

  test('--json: parseable, escaped, and the data is kept', async () => {
    const call = await h.run(['--json', 'call', 'evil', 'slow_compute', 'seconds=1']);
    assert.equal(call.code, 0, call.stderr);
    assertJsonSafe(call, 'call --json');
    const doc = parseJsonDoc(call.stdout);
    // The JSON carries the server's text faithfully, escaped: a script sees what the server sent.
    const text = doc.result.content[0].text as string;
    assert.ok(text.includes('\x1b[31m') && text.includes('\u009b6n'), 'the JSON result lost the original text');
    assert.ok(call.stdout.includes('\\u001b') && call.stdout.includes('\\u009b'), 'escape characters are not \\u-escaped');

    const d = await h.run(['--json', 'call', 'evil', 'multi_input', '--detach']);
    assert.equal(d.code, 0, d.stderr);
    assertJsonSafe(d, 'call --detach --json');
    const id = parseJsonDoc(d.stdout).taskId as string;
    const get = await h.run(['--json', 'get', '--', id]);
    assert.equal(get.code, 5, get.stderr);
    assertJsonSafe(get, 'get --json');
    // The keys are the server's own (hostile-text puts escapes in them): kept exactly in --json.
    const requests = parseJsonDoc(get.stdout).inputRequests as Record<string, { params: { message: string } }>;
    const nameKey = Object.keys(requests).find((k) => k.includes('name'))!;
    assert.ok(nameKey.includes('\x1b'), 'the hostile key is kept as sent');
    assert.match(requests[nameKey]!.params.message, /What is your name\?/);
    const watch = await h.run(['--json', 'watch', '--', id]);
    assert.equal(watch.code, 5, watch.stderr);
    assertJsonSafe(watch, 'watch --json');
    parseJsonLines(watch.stdout);
    const list = await h.run(['--json', 'list', '--all']);
    assertJsonSafe(list, 'list --json');
    assert.ok(Array.isArray(parseJsonDoc(list.stdout)));
  });
  test('hostile ids and keys: detach, list, show, get, answer --template, recover and the unknown-tool message are clean', async () => {
    const d = await h.run(['call', 'evil', 'multi_input', '--detach', '--label', 'job=hostile-keys']);
    assert.equal(d.code, 0, d.stderr);
    assertTerminalSafe(d, 'call multi_input --detach');
    // The server's id carries controls: the suggested ref is the operation id, which resolves.
    const ref = /mcp-tasks watch (\S+)/.exec(d.stdout)?.[1];
    assert.ok(ref && /^[0-9a-f]{8}$/.test(ref), `a typeable ref is suggested: ${d.stdout}`);
    for (const args of [['get', ref], ['get', 'hostile-keys'], ['show', 'hostile-keys'], ['list'], ['answer', 'hostile-keys', '--template'], ['recover'], ['call', 'evil', 'no_such_tool'], ['tools', 'evil']]) {
      const r = await h.run(args);
      // The template is JSON to fill in and pass back: its keys must stay the server's own, escaped, never raw.
      if (args.includes('--template')) assertJsonSafe(r, args.join(' '));
      else assertTerminalSafe(r, args.join(' '));
      assert.doesNotMatch(r.stderr, /unexpected error/, args.join(' '));
    }
    const get = await h.run(['get', ref]);
    assert.equal(get.code, 5, get.stderr);
    assert.match(get.stdout, /waiting for input: .*name/);
  });

  test('a prompt in a real terminal: hostile keys, messages and a free-text default reach inquirer clean', async () => {
    const ph = newHome();
    await addHttpServer(ph, 'evil', demo.url);
    const d = await ph.run(['call', 'evil', 'multi_input', '--detach', '--label', 'job=pty']);
    assert.equal(d.code, 0, d.stderr);
    const pty = spawnPty(['answer', 'pty'], { home: ph.dir });
    let raw: string;
    try {
      await pty.waitFor('What is your name?');
      // The server's default for the free-text field, cleaned: accepted with Enter.
      await pty.answer(/\? Name\b.*Ada/, KEY.enter);
      await pty.waitFor('What is your favourite colour?');
      await pty.answer(/\? Colou?r[\s\S]*Cancel/, KEY.enter);
      await pty.waitFor(/answered /);
      const end = await pty.done;
      assert.equal(end.code, 0, end.text);
      raw = end.raw;
    } finally {
      pty.kill();
    }
    // inquirer draws with its own CSI codes (NO_COLOR: no colours); the server's bytes are checked.
    assert.ok(!raw.includes('\x1b]0;'), 'an OSC set-title from the server reached the terminal');
    assert.ok(!raw.includes('\x1b[2J'), 'a clear-screen from the server reached the terminal');
    assert.ok(!raw.includes('\x1b[7m'), 'the hostile key\'s reverse video reached the terminal');
    assert.ok(!raw.includes('\x1b[31m'), 'the hostile task id\'s colour reached the terminal');
    assert.ok(!/[\x80-\x9f]/.test(raw), 'a C1 control reached the terminal');
    assert.ok(!raw.includes('owned\x07'), 'a BEL-terminated payload reached the terminal');
  });
});
