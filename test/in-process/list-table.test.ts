// `list` as a table (issue 14): headers and aligned columns in a terminal, relative ages, the
// last-seen status flagged as such, tab-separated without colour into a pipe, --json unchanged,
// --status checked with a did-you-mean, `show` in local time with the zone, and --refresh that
// polls each listed active task through the task seam and says what each poll saw.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parseJsonDoc, tempHome, deadUrl } from '../helpers/cli.js';
import { fakeClock, runInProcess } from '../helpers/in-process.js';
import { fakeTaskId, makeRecord } from '../helpers/vault-helpers.js';
import { vaultAt } from '../../src/app/open-vault.js';
import { typeableRef, type VaultRecord } from '../../src/vault/vault-record.js';
import { ago, localTime } from '../../src/output/present-record.js';

const NOKC = { MCP_TASKS_NO_KEYCHAIN: '1' };
const ESC = /\x1b\[/;

function seeded(records: VaultRecord[]): string {
  const home = tempHome();
  const v = vaultAt(home, NOKC);
  for (const r of records) v.put(r);
  return home;
}

describe('list', () => {
  const working = makeRecord({ taskId: fakeTaskId('w'), server: 'alpha', tool: 'slow_compute', status: 'working', labels: { job: 'nightly' }, ageMs: 5 * 60_000 + 1000 });
  const done = makeRecord({ taskId: fakeTaskId('d'), server: 'beta-long-name', tool: 'greet', status: 'completed', ageMs: 3 * 3600_000 });
  const lost = makeRecord({ taskId: fakeTaskId('l'), server: 'alpha', phase: 'lost', reason: 'the server no longer knows this task', ageMs: 2 * 86400_000 });
  const home = seeded([working, done, lost]);
  const clock = () => fakeClock(Date.now());

  test('in a terminal: upper-case headers, aligned columns, relative ages, the last-seen status flagged', async () => {
    const r = await runInProcess(['list', '--all'], { home, clock: clock(), stdoutColumns: 120 });
    assert.equal(r.code, 0, r.stderr);
    const lines = r.stdout.trimEnd().split('\n');
    assert.equal(lines.length, 4);
    assert.match(lines[0]!, /^REF +STATUS +SERVER +TOOL +CREATED +LABELS$/);
    // Every column starts where its header does.
    for (const header of ['STATUS', 'SERVER', 'TOOL', 'CREATED']) {
      const at = lines[0]!.indexOf(header);
      for (const row of lines.slice(1)) assert.ok(row[at - 1] === ' ' && row[at] !== ' ', `${header} column in ${JSON.stringify(row)}`);
    }
    const row = (rec: VaultRecord) => lines.find((l) => l.startsWith(typeableRef(rec)))!;
    assert.match(row(working), /working \(seen 5m ago\)\s+alpha\s+slow_compute\s+5m ago\s+job=nightly$/, 'a working status is only what was last seen');
    assert.match(row(done), /completed\s+beta-long-name\s+greet\s+3h ago$/);
    assert.match(row(lost), /lost\s+alpha\s+slow_compute\s+2d ago$/);
    assert.ok(!r.stdout.includes(working.taskId!), 'short refs, never whole handles');
  });

  test('a narrow terminal cuts the labels, not the columns a person types from', async () => {
    const wide = makeRecord({ taskId: fakeTaskId('x'), labels: { a: 'x'.repeat(80), b: 'y'.repeat(80) } });
    const r = await runInProcess(['list'], { home: seeded([wide]), clock: clock(), stdoutColumns: 80 });
    for (const l of r.stdout.trimEnd().split('\n')) assert.ok(l.length <= 80, `${l.length}: ${l}`);
    assert.match(r.stdout, new RegExp(`^${typeableRef(wide)} `, 'm'));
    assert.match(r.stdout, /a=x+…/);
  });

  test('into a pipe: tab-separated under one header row, no colour, ISO times and the last-seen time in its own column', async () => {
    const r = await runInProcess(['list', '--all'], { home, clock: clock(), env: { FORCE_COLOR: '1', NO_COLOR: undefined } });
    assert.equal(r.code, 0, r.stderr);
    assert.doesNotMatch(r.stdout, ESC);
    const [header, ...rows] = r.stdout.trimEnd().split('\n').map((l) => l.split('\t'));
    assert.deepEqual(header, ['ref', 'status', 'server', 'tool', 'created', 'last_seen', 'labels']);
    assert.equal(rows.length, 3);
    for (const cells of rows) assert.equal(cells.length, 7, JSON.stringify(cells));
    const w = rows.find((c) => c[0] === typeableRef(working))!;
    assert.deepEqual(w, [typeableRef(working), 'working', 'alpha', 'slow_compute', working.createdAt, working.updatedAt, 'job=nightly']);
    assert.equal(rows.find((c) => c[0] === typeableRef(done))![5], '', 'a finished task has no last-seen time: its status is final');
  });

  test('--json is unchanged (the contract shape plus opId and phase), --limit still applies', async () => {
    const r = await runInProcess(['list', '--all', '--json'], { home });
    const docs = parseJsonDoc(r.stdout) as Array<Record<string, unknown>>;
    assert.deepEqual(docs.map((d) => d.opId), [lost.opId, done.opId, working.opId]);
    assert.deepEqual(Object.keys(docs[2]!).sort(), ['createdAt', 'labels', 'lastUpdatedAt', 'opId', 'operation', 'phase', 'server', 'status', 'taskId', 'ttlMs']);
    const limited = await runInProcess(['list', '--all', '--limit', '1'], { home, clock: clock(), stdoutColumns: 120 });
    assert.equal(limited.stdout.trimEnd().split('\n').length, 2, 'a header and one row');
  });

  test('an unknown --status is refused with a did-you-mean (it listed nothing before)', async () => {
    const r = await runInProcess(['list', '--status', 'wroking'], { home });
    assert.equal(r.code, 1);
    assert.match(r.stderr, /--status "wroking" is not a status or phase; did you mean "working"\?/);
    assert.match(r.stderr, /next: Use one of working, input_required/);
    for (const ok of ['in-doubt', 'terminal', 'input_required']) assert.equal((await runInProcess(['list', '--status', ok], { home })).code, 0, ok);
  });

  test('show: local time with the zone offset, how long ago, and the last-seen status named as such', async () => {
    const r = await runInProcess(['show', 'nightly'], { home, clock: clock() });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^submitted +\d{4}-\d\d-\d\d \d\d:\d\d:\d\d [+-]\d\d:\d\d \(5m ago\)$/m);
    assert.match(r.stdout, new RegExp(`^last seen .*: working, as last seen; \`mcp-tasks get ${typeableRef(working)}\` asks the server now$`, 'm'));
    assert.equal(localTime('2026-12-01T10:00:00Z').length, '2026-12-01 10:00:00 +00:00'.length);
    assert.equal(ago(new Date(0).toISOString(), 90 * 60_000), '1h ago');
    assert.equal(ago(new Date(60_000).toISOString(), 0), 'just now', 'a clock ahead of ours is not a negative age');
  });
});

describe('list --refresh', { timeout: 120_000 }, () => {
  test('polls each active task through the seam: live, lost and unreachable reported as seen', async () => {
    const home = tempHome();
    const started = await runInProcess(['--json', 'call', 'demo', 'slow_compute', 'seconds=600', '--detach', '--label', 'job=live'], { home });
    assert.equal(started.code, 0, started.stderr);
    const vault = vaultAt(home, NOKC);
    const live = vault.list().find((r) => r.labels.job === 'live')!;
    // The same server, a taskId it never issued: a poll finds it unknown.
    const forgotten = { ...makeRecord({ taskId: fakeTaskId('f'), labels: { job: 'forgotten' }, ageMs: 60_000 }), server: live.server };
    const url = await deadUrl();
    assert.equal((await runInProcess(['server', 'add', 'down', '--url', url], { home })).code, 0);
    const away = makeRecord({ taskId: fakeTaskId('a'), server: 'down', identity: { kind: 'http', url }, labels: { job: 'away' }, ageMs: 10 * 60_000 });
    vault.put(forgotten);
    vault.put(away);

    const r = await runInProcess(['list', '--refresh'], { home, clock: fakeClock(Date.now()), stdoutColumns: 160, env: { MCP_TASKS_RETRY: '0,1' } });
    assert.equal(r.code, 0, r.stderr);
    const row = (job: string) => r.stdout.split('\n').find((l) => l.includes(`job=${job}`)) ?? '';
    assert.match(row('live'), /working \(polled now\)/);
    assert.match(row('forgotten'), /\blost\b/, 'the poll found the task unknown: listed as lost, not working');
    assert.match(row('away'), /working \(seen 10m ago, not reached now\)/);
    assert.match(r.stderr, /^mcp-tasks: polled 2 of 3 active task\(s\); 1 not reached \(.*down.*\): their status is the last one seen$/m);
    // The vault keeps what the polls saw.
    assert.equal(vault.resolve('forgotten')!.phase, 'lost');

    const cancel = await runInProcess(['cancel', 'live'], { home });
    assert.equal(cancel.code, 0, cancel.stderr);
  });

  test('without --refresh nothing is sent (a server that is down changes nothing)', async () => {
    const url = await deadUrl();
    const home = tempHome();
    assert.equal((await runInProcess(['server', 'add', 'down', '--url', url], { home })).code, 0);
    const rec = makeRecord({ taskId: fakeTaskId('a'), server: 'down', identity: { kind: 'http', url }, labels: { job: 'away' } });
    vaultAt(home, NOKC).put(rec);
    // The list's clock stands at the record's own time: "just now" whatever the machine's load.
    const r = await runInProcess(['list'], { home, stdoutColumns: 120, clock: fakeClock(Date.parse(rec.updatedAt)) });
    assert.equal(r.code, 0);
    assert.equal(r.stderr, '');
    assert.match(r.stdout, /working \(seen just now\)/);
  });
});
