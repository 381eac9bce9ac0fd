// `tools <server> [<tool>]` (issue 14): a tool's arguments as a table, sanitised and fitted to the
// terminal; did-you-mean for tool names (tools, call) and argument names (call). Against the
// built-in demo server (a real stdio server process); the CLI runs in process.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parseJsonDoc, tempHome } from '../helpers/cli.js';
import { runInProcess } from '../helpers/in-process.js';
import { makeStyle, renderArgumentTable } from '../../src/output/render.js';
import { vaultAt } from '../../src/app/open-vault.js';

describe('tools', { timeout: 120_000 }, () => {
  const home = tempHome();

  test("a tool's arguments: name, type, required, default, range, description", async () => {
    const r = await runInProcess(['tools', 'demo', 'slow_compute'], { home, stdoutColumns: 120 });
    assert.equal(r.code, 0, r.stderr);
    const lines = r.stdout.split('\n');
    assert.match(lines[0]!, /^slow_compute +\[read-only idempotent\] Sleep for `seconds`/);
    const header = lines.findIndex((l) => l.startsWith('NAME'));
    assert.match(lines[header]!, /^NAME +TYPE +REQUIRED +DEFAULT +RANGE +DESCRIPTION$/);
    assert.match(lines[header + 1]!, /^seconds +number +yes +0\.\.3600 +How long to work$/);
    const report = await runInProcess(['tools', 'demo', 'generate_report'], { home, stdoutColumns: 120 });
    assert.match(report.stdout, /^title +string +no +Quarterly report$/m, 'the default is shown');
  });

  test('--json with a tool name: that tool, with its inputSchema', async () => {
    const r = await runInProcess(['--json', 'tools', 'demo', 'slow_compute'], { home });
    const doc = parseJsonDoc(r.stdout);
    assert.equal(doc.name, 'slow_compute');
    assert.equal(doc.inputSchema.properties.seconds.type, 'number');
  });

  test('an unknown tool name gets a did-you-mean, in tools and in call (nothing is submitted)', async () => {
    const t = await runInProcess(['tools', 'demo', 'slow_compte'], { home });
    assert.notEqual(t.code, 0);
    assert.match(t.stderr, /server "demo" has no tool "slow_compte"; did you mean "slow_compute"\?/);
    const c = await runInProcess(['call', 'demo', 'slow_compte', 'seconds=1'], { home });
    assert.notEqual(c.code, 0);
    assert.match(c.stderr, /has no tool "slow_compte"; did you mean "slow_compute"\?/);
  });

  test('an unknown argument name in call gets a did-you-mean and the command that shows the arguments; nothing is submitted', async () => {
    const c = await runInProcess(['call', 'demo', 'slow_compute', 'secnds=1'], { home });
    assert.equal(c.code, 1, c.stderr);
    assert.match(c.stderr, /the tool has no argument "secnds"; did you mean "seconds"\? \(its arguments: seconds, label\)/);
    assert.match(c.stderr, /next: Run `mcp-tasks tools demo slow_compute` to see the tool's arguments\./);
    assert.deepEqual(vaultAt(home, { MCP_TASKS_NO_KEYCHAIN: '1' }).list().filter((r) => r.operation.name === 'slow_compute'), []);
    // A name far from every argument is still sent where the schema allows extra arguments.
    const extra = await runInProcess(['--json', 'call', 'demo', 'greet', 'name=Ada', 'unrelated_flag=1'], { home });
    assert.equal(extra.code, 0, extra.stderr);
  });

  test('the tool list fits the terminal width; into a pipe descriptions are whole', async () => {
    const narrow = await runInProcess(['tools', 'demo'], { home, stdoutColumns: 70 });
    for (const l of narrow.stdout.split('\n')) assert.ok(l.length <= 70, `${l.length}: ${l}`);
    const wide = await runInProcess(['tools', 'demo'], { home, stdoutColumns: 250 });
    const piped = await runInProcess(['tools', 'demo'], { home });
    const full = 'Sleep for `seconds`, then return. Runs as a task when the client supports tasks; cancellable.';
    assert.ok(wide.stdout.includes(full), 'a wide terminal shows what fits (it cut at ~90 before)');
    assert.ok(piped.stdout.includes(full));
    assert.match(piped.stdout, /\na tool's arguments: mcp-tasks tools demo greet\n$/);
    const check = await runInProcess(['server', 'check', 'demo'], { home, stdoutColumns: 70 });
    assert.equal(check.code, 0, check.stderr);
    for (const l of check.stdout.split('\n').filter((x) => x.startsWith('    '))) assert.ok(l.length <= 70, `server check: ${l.length}: ${l}`);
  });
});

describe('the argument table', () => {
  test('server text is sanitised: escapes, controls and newlines never reach the terminal', () => {
    const schema = {
      type: 'object',
      required: ['evil\x1b[31mname'],
      properties: {
        'evil\x1b[31mname': { type: 'string', description: 'line one\nline two \x1b]0;title\x07 \x9b2J end', default: '\x1b[2Jx', enum: ['a\x1bb', 'c'] },
        count: { type: 'integer', minimum: 1, maximum: 10 },
        ratio: { type: 'number', exclusiveMinimum: 0 },
        tags: { type: 'array', items: { type: 'string', enum: ['x', 'y'] }, maxItems: 3 },
        either: { anyOf: [{ type: 'string' }, { type: 'null' }] },
      },
    };
    const out = renderArgumentTable(schema, makeStyle(false), 100);
    assert.doesNotMatch(out, /[\x00-\x08\x0b-\x1f\x7f-\x9f]/, JSON.stringify(out));
    assert.match(out, /^evilname +string +yes +x +a\|c +line one line two +end$/m);
    assert.match(out, /^count +integer +no +1\.\.10 *$/m);
    assert.match(out, /^ratio +number +no +>0 *$/m);
    assert.match(out, /^tags +array<string> +no +items <=3, x\|y *$/m);
    assert.match(out, /^either +string\|null +no *$/m);
    for (const l of out.split('\n')) assert.ok(l.length <= 100, l);
  });
});
