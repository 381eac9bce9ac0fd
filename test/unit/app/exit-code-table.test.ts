// The exit codes as docs/reference.md documents them: every code the CLI can return is a row of
// its table and every row is a code; each ExitCode name means what its row says; and every
// outcome kind (OUTCOME_EXIT, keyed by the Outcome union) lands on the documented code for a
// representative case, so a new kind needs a row here as well as a rule there.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { exitCodeOf, OUTCOME_EXIT } from '../../../src/app/exit-code.js';
import type { Outcome } from '../../../src/app/outcomes.js';
import { CliError, ExitCode } from '../../../src/errors.js';
import type { TaskSnapshot } from '../../../src/tasks/task-snapshot.js';
import { makeRecord } from '../../helpers/vault-helpers.js';

const reference = readFileSync(fileURLToPath(new URL('../../../../docs/reference.md', import.meta.url)), 'utf8');

/** docs/reference.md's "Exit codes" table: code → meaning. */
function documentedCodes(): Map<number, string> {
  const section = reference.split(/^## Exit codes$/m)[1]?.split(/^## /m)[0];
  assert.ok(section, 'docs/reference.md has an "## Exit codes" section');
  const rows = [...section.matchAll(/^\| (\d+) \| (.+) \|$/gm)].map((m): [number, string] => [Number(m[1]), m[2]!]);
  assert.ok(rows.length > 5, 'the section holds the table');
  return new Map(rows);
}

/** What each ExitCode name must say in its row. */
const MEANS: Record<keyof typeof ExitCode, RegExp> = {
  Ok: /^success/,
  Usage: /^usage error/,
  TaskFailed: /^task `failed`/,
  TaskCancelled: /^task `cancelled`/,
  ToolError: /tool error/,
  NeedsInput: /needs input/,
  TaskLost: /^task lost/,
  Unreachable: /unreachable/,
  AuthRefused: /^authentication or authorization refused/,
  VaultError: /^vault error/,
  InDoubt: /^in doubt/,
  Timeout: /^`--timeout` reached/,
  Interrupted: /^interrupted/,
};

test('the table and ExitCode hold the same codes, each with its meaning', () => {
  const table = documentedCodes();
  assert.deepEqual([...table.keys()].sort((a, b) => a - b), Object.values(ExitCode).sort((a, b) => a - b));
  for (const [name, code] of Object.entries(ExitCode)) assert.match(table.get(code)!, MEANS[name as keyof typeof ExitCode], `${name} (${code})`);
});

const at = '2026-01-01T00:00:00.000Z';
const snap = (status: TaskSnapshot['status'], extra: Partial<TaskSnapshot> = {}): TaskSnapshot => ({ taskId: 'T1', status, createdAt: at, lastUpdatedAt: at, ttlMs: null, ...extra });
const record = makeRecord({ phase: 'in-doubt' });
const target = { record, persisted: true, entry: { name: 'web', transport: 'http', url: 'http://127.0.0.1:9/mcp' }, taskId: 'T1' } as unknown as Extract<Outcome, { kind: 'task' }>['target'];
const task = (end: Extract<Outcome, { kind: 'task' }>['end']): Outcome => ({ kind: 'task', target, end, notes: [] });
const verdict = { safe: false as const, why: 'not idempotent' };

/** One case (or more) per outcome kind, with the row of the table it must land on. */
const CASES: Array<[Outcome, keyof typeof ExitCode]> = [
  [task({ kind: 'terminal', snapshot: snap('completed', { result: { content: [] } }) }), 'Ok'],
  [task({ kind: 'terminal', snapshot: snap('failed', { error: { code: -1, message: 'x' } }) }), 'TaskFailed'],
  [task({ kind: 'terminal', snapshot: snap('cancelled') }), 'TaskCancelled'],
  [task({ kind: 'terminal', snapshot: snap('completed', { result: { content: [], isError: true } }) }), 'ToolError'],
  [task({ kind: 'needs-input', snapshot: snap('input_required') }), 'NeedsInput'],
  [task({ kind: 'lost', reason: 'gone' }), 'TaskLost'],
  [task({ kind: 'timeout' }), 'Timeout'],
  [task({ kind: 'interrupted' }), 'Interrupted'],
  [task({ kind: 'not-visible', created: { issuer: 'a', subject: 'b' } as never, sent: false }), 'AuthRefused'],
  [task({ kind: 'observed', snapshot: snap('working'), stillPending: ['q'] }), 'NeedsInput'],
  [{ kind: 'cancel-requested', target }, 'Ok'],
  [{ kind: 'cancel-requested', target, ended: { snapshot: snap('cancelled'), by: 'server' } }, 'TaskCancelled'],
  [{ kind: 'cancel-not-sent', target, snapshot: snap('cancelled') }, 'TaskCancelled'],
  [{ kind: 'task-failure', target, error: new CliError('unreachable', 'down', 'retry') }, 'Unreachable'],
  [{ kind: 'many', reports: [task({ kind: 'terminal', snapshot: snap('completed', { result: { content: [] } }) }) as never, { kind: 'task-failure', target, error: new CliError('vault', 'locked', 'unlock') }] }, 'VaultError'],
  [{ kind: 'nothing-to-watch' }, 'Ok'],
  [{ kind: 'watch-interrupted', waiting: [], active: true }, 'Interrupted'],
  [{ kind: 'direct-result', record, server: 'web', result: { content: [], isError: true } }, 'ToolError'],
  [{ kind: 'input-before-task', record, server: 'web', inputRequests: {} }, 'NeedsInput'],
  [{ kind: 'detached', target, snapshot: snap('working') }, 'Ok'],
  [{ kind: 'in-doubt', record, server: 'web', reason: 'no answer', next: 'recover' }, 'InDoubt'],
  [{ kind: 'answer-template', target, template: {} }, 'Ok'],
  [{ kind: 'record-shown', record }, 'Ok'],
  [{ kind: 'pruned', removed: 1 }, 'Ok'],
  [{ kind: 'exported', count: 1, bundle: 'x' }, 'Ok'],
  [{ kind: 'records-imported', added: 1, alreadyPresent: 0, warnings: [], next: [] }, 'Ok'],
  [{ kind: 'tasks-listed', eachRow: () => {}, all: false, filters: [], vaultTotal: () => 0 }, 'Ok'],
  [{ kind: 'in-doubt-list', records: [{ record, verdict }] }, 'InDoubt'],
  [{ kind: 'in-doubt-record', record, verdict }, 'InDoubt'],
  [{ kind: 'resolved', before: record, outcome: 'not-run', resolution: null }, 'Ok'],
  [{ kind: 'resolved-record', record: { ...record, resolution: { outcome: 'failed', at, was: 'in-doubt' } } as never }, 'TaskFailed'],
  [{ kind: 'resubmit-declined' }, 'InDoubt'],
  [{ kind: 'server-added', entry: target.entry }, 'Ok'],
  [{ kind: 'servers-listed', entries: [] }, 'Ok'],
  [{ kind: 'server-shown', entry: target.entry }, 'Ok'],
  [{ kind: 'server-removed', name: 'web' }, 'Ok'],
  [{ kind: 'servers-imported', imported: [], skipped: [{ name: 'a', reason: 'x' }] }, 'Usage'],
  [{ kind: 'server-checked', server: 'web', protocolVersion: '2025-11-25', generation: '2025-11-25', serverInfo: null, tasksExtension: false, tasksExtensionId: 'x', legacyTasks: true, legacyTaskCapabilities: null, capabilities: null, offersTools: true, tools: [] }, 'Ok'],
  [{ kind: 'tools-listed', server: 'web', tools: [] }, 'Ok'],
  [{ kind: 'signed-in', server: 'web', view: {} }, 'Ok'],
  [{ kind: 'signed-out', server: 'web', removed: true, revoked: true }, 'Ok'],
  [{ kind: 'remote-tasks-listed', server: 'web', tasks: [] }, 'Ok'],
  [{ kind: 'vault-checked', exists: true, sound: 3, findings: [{ problem: 'damaged', next: 'repair' }] }, 'VaultError'],
  [{ kind: 'store-status', engine: 'postgres', where: 'postgres://h/db', reachable: true, schemaVersion: 1, records: 2, active: 1, origins: [], pushPending: 0, teamKey: 'env', keeper: { used: true, keepSeconds: 300 } }, 'Ok'],
  [{ kind: 'store-initialised', where: 'postgres://h/db', created: true, schemaVersion: 1 }, 'Ok'],
  [{ kind: 'store-key-generated', key: 'mcptk1_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' }, 'Ok'],
  [{ kind: 'store-key-saved', where: 'postgres://h/db', keychain: 'the macOS Keychain', overridden: false }, 'Ok'],
  [{ kind: 'store-key-forgotten', where: 'postgres://h/db', keychain: 'the macOS Keychain', removed: false }, 'Ok'],
  [{ kind: 'store-pushed', where: 'postgres://h/db', added: 1, alreadyPresent: 0 }, 'Ok'],
  [{ kind: 'vault-checked', exists: true, sound: 3, findings: [{ problem: 'damaged', next: 'moved' }], repaired: { moved: [], listingRebuilt: true } }, 'Ok'],
];

test('every outcome kind has a case here, and each lands on its documented code', () => {
  assert.deepEqual([...new Set(CASES.map(([o]) => o.kind))].sort(), Object.keys(OUTCOME_EXIT).sort(), 'a kind without a case (or a case for no kind)');
  const table = documentedCodes();
  for (const [outcome, name] of CASES) {
    const code = exitCodeOf(outcome);
    assert.equal(code, ExitCode[name], `${outcome.kind}: ${code}, expected ${name}`);
    assert.match(table.get(code) ?? '(not in the table)', MEANS[name], outcome.kind);
  }
});

test('anything that is not an outcome is an error: its own code, or 1', () => {
  assert.equal(exitCodeOf(new CliError('lost', 'x', 'y')), ExitCode.TaskLost);
  assert.equal(exitCodeOf({ kind: 'no-such-kind' }), ExitCode.Usage);
  assert.equal(exitCodeOf({ kind: 'toString' }), ExitCode.Usage, 'a prototype key is no outcome kind');
  assert.equal(exitCodeOf(new Error('boom')), ExitCode.Usage);
});
