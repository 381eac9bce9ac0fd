// `call` arguments: key=value coerced through the tool's inputSchema, key:=json, --args-json,
// --args-file (and - for stdin), and validation before anything is sent: a wrong type names the
// field, exits 1, the server sees no tools/call and the vault keeps no record.
// slow_compute echoes what it received in structuredContent {seconds, label}, with the types
// the server saw (a string "0" would read as the default 1 s, a number label as "slow_compute").
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { addHttpServer, newHome, parseJsonDoc, startDemo, tempDir, type DemoServer, type Home } from '../helpers/cli.js';

describe('call arguments', () => {
  let demo: DemoServer;
  /** Calls that complete. */
  let h: Home;
  /** Calls that must be refused: its vault must stay empty. */
  let hRefused: Home;
  before(async () => {
    demo = await startDemo({ verbose: true });
    h = newHome();
    hRefused = newHome();
    await Promise.all([addHttpServer(h, 'web', demo.url), addHttpServer(hRefused, 'web', demo.url)]);
  });
  after(async () => {
    await demo?.stop();
  });

  /**
   * Run calls that must each be refused before sending anything (in parallel: the tests of this
   * file run one at a time, so the server's tools/call count must not move at all).
   */
  async function refused(cases: Array<[string[], RegExp, { input?: string }?]>): Promise<void> {
    const calls = await demo.count('tools/call');
    await Promise.all(
      cases.map(async ([args, message, opts]) => {
        const r = await hRefused.run(['call', 'web', ...args], opts ?? {});
        assert.equal(r.code, 1, `${args.join(' ')}: exit ${r.code}\n${r.stderr}`);
        assert.match(r.stderr, message, args.join(' '));
        assert.equal(r.stdout, '', args.join(' '));
      }),
    );
    assert.equal(await demo.count('tools/call'), calls, 'a refused call sent a tools/call');
    const vault = await hRefused.run(['--json', 'list', '--all']);
    assert.equal(vault.code, 0, vault.stderr);
    assert.deepEqual(parseJsonDoc(vault.stdout), [], 'a refused call left a vault record');
  }

  /** Run a call that must complete; returns what the server echoed back. */
  async function echoed(args: string[], opts: { input?: string } = {}): Promise<{ sent: Record<string, unknown>; seen: Record<string, unknown> }> {
    const r = await h.run(['--json', 'call', 'web', ...args], opts);
    assert.equal(r.code, 0, `${args.join(' ')}: ${r.stderr}`);
    const doc = parseJsonDoc(r.stdout);
    return { sent: doc.operation.arguments, seen: doc.result.structuredContent };
  }

  test('a wrong type names the field, exits 1 and sends nothing', async () => {
    await refused([
      [['slow_compute', 'seconds=soon'], /seconds.*must be number/],
      [['slow_compute', 'seconds:="3"'], /seconds.*must be number/],
      [['slow_compute', 'seconds=1', 'label:=42'], /label.*must be string/],
      [['slow_compute', 'seconds=-1'], /seconds.*must be >= 0/],
      [['send_payment', 'to=bob', 'amount=0'], /amount/],
    ]);
  });

  test('missing, malformed and unknown arguments are refused before sending', async () => {
    await refused([
      [['slow_compute'], /required property 'seconds'/],
      [['slow_compute', 'seconds'], /"seconds" is not an argument: use key=value or key:=json/],
      [['slow_compute', 'seconds:=[1'], /the value of seconds is not valid JSON/],
      [['failing_job', 'extra=1'], /the tool has no argument "extra" \(it takes no arguments\)\n {2}next: Run `mcp-tasks tools web failing_job`/],
      // Where the schema forbids extras, an argument it does not name is refused from any source.
      [['failing_job', '--args-json', '{"colour":"red"}'], /the tool has no argument "colour" \(it takes no arguments\)\n {2}next: Run `mcp-tasks tools web failing_job`/],
      // A null for a required argument gives it no value.
      [['slow_compute', '--args-json', '{"seconds":null}'], /"seconds" is required, and null gives it no value/],
      [['no_such_tool'], /has no tool "no_such_tool"/],
    ]);
  });

  test('key=value is coerced through the schema; key:=json is typed', async () => {
    const [a, b, c, d] = await Promise.all([
      echoed(['slow_compute', 'seconds=0', 'label=42']),
      echoed(['slow_compute', 'seconds:=0', 'label:="two words"']),
      // A value containing "=" or ":=" after the key stays part of the value.
      echoed(['slow_compute', 'seconds=0', 'label=a=b:=c']),
      echoed(['slow_compute', 'seconds=0.0', 'label=true']),
    ]);
    assert.deepEqual(a.sent, { seconds: 0, label: '42' });
    assert.deepEqual(a.seen, { seconds: 0, label: '42' });
    assert.deepEqual(b.sent, { seconds: 0, label: 'two words' });
    assert.deepEqual(b.seen, { seconds: 0, label: 'two words' });
    assert.equal(c.seen.label, 'a=b:=c');
    assert.deepEqual(d.sent, { seconds: 0, label: 'true' });
    assert.deepEqual(d.seen, { seconds: 0, label: 'true' });
  });

  test('an explicit null for an optional argument is left out: the tool uses its default', async () => {
    const [typed, json] = await Promise.all([echoed(['slow_compute', 'seconds=0', 'label:=null']), echoed(['slow_compute', '--args-json', '{"seconds":0,"label":null}'])]);
    for (const { sent, seen } of [typed, json]) {
      assert.deepEqual(sent, { seconds: 0 });
      assert.deepEqual(seen, { seconds: 0, label: 'slow_compute' }, 'the server saw no label');
    }
  });

  test('an argument the schema does not name, where extras are allowed: sent, with a warning on stderr', async () => {
    const r = await h.run(['--json', 'call', 'web', 'greet', 'name=Ada', 'colour=red']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /warning: the tool has no argument "colour" \(its arguments: name\); it is sent as given and the tool may ignore it\./);
    assert.deepEqual(parseJsonDoc(r.stdout).operation.arguments, { name: 'Ada', colour: 'red' });
  });

  test('--args-json, --args-file and stdin', async () => {
    const file = join(tempDir(), 'args.json');
    writeFileSync(file, JSON.stringify({ seconds: 0, label: 'from-file' }));
    const [j, o, f, s] = await Promise.all([
      echoed(['slow_compute', '--args-json', '{"seconds":0,"label":"from-json"}']),
      // key=value pairs are applied on top of the object.
      echoed(['slow_compute', '--args-json', '{"seconds":30,"label":"base"}', 'seconds=0']),
      echoed(['slow_compute', '--args-file', file]),
      echoed(['slow_compute', '--args-file', '-'], { input: '{"seconds":0,"label":"from-stdin"}' }),
    ]);
    assert.deepEqual(j.seen, { seconds: 0, label: 'from-json' });
    assert.deepEqual(o.seen, { seconds: 0, label: 'base' });
    assert.deepEqual(f.seen, { seconds: 0, label: 'from-file' });
    assert.deepEqual(s.seen, { seconds: 0, label: 'from-stdin' });
  });

  test('bad --args-json / --args-file are refused before sending', async () => {
    const file = join(tempDir(), 'args.json');
    writeFileSync(file, '{"seconds": 0');
    await refused([
      [['slow_compute', '--args-json', '{"seconds":0}', '--args-file', file], /not both/],
      [['slow_compute', '--args-json', '{seconds:0}'], /--args-json is not valid JSON/],
      [['slow_compute', '--args-json', '[0]'], /must be a JSON object/],
      [['slow_compute', '--args-file', file], /is not valid JSON/],
      [['slow_compute', '--args-file', join(tempDir(), 'missing.json')], /cannot read --args-file/],
      [['slow_compute', '--args-json', '{"seconds":"0"}'], /seconds.*must be number/],
      [['slow_compute', '--args-file', '-'], /must be a JSON object/, { input: '"just a string"' }],
    ]);
  });
});
