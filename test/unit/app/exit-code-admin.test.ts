// exitCodeOf for the listing and admin commands' outcomes: the exit rules they used to return by
// hand (server import, recover) are decided in the one place, and every other admin outcome is 0.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { exitCodeOf } from '../../../src/app/exit-code.js';
import { ExitCode } from '../../../src/errors.js';
import { makeRecord } from '../../helpers/vault-helpers.js';

describe('exitCodeOf: admin outcomes', () => {
  test('server import: usage error only when everything was refused', () => {
    assert.equal(exitCodeOf({ kind: 'servers-imported', imported: [], skipped: [{ name: 'a', reason: 'x' }] }), ExitCode.Usage);
    assert.equal(exitCodeOf({ kind: 'servers-imported', imported: ['b'], skipped: [{ name: 'a', reason: 'x' }] }), ExitCode.Ok);
    assert.equal(exitCodeOf({ kind: 'servers-imported', imported: [], skipped: [] }), ExitCode.Ok);
  });

  test('recover: in doubt while anything is, also after a declined resubmission; resolved is 0', () => {
    const record = makeRecord({ phase: 'in-doubt' });
    const verdict = { safe: false as const, why: 'not idempotent' };
    assert.equal(exitCodeOf({ kind: 'in-doubt-list', records: [] }), ExitCode.Ok);
    assert.equal(exitCodeOf({ kind: 'in-doubt-list', records: [{ record, verdict }] }), ExitCode.InDoubt);
    assert.equal(exitCodeOf({ kind: 'in-doubt-record', record, verdict }), ExitCode.InDoubt);
    assert.equal(exitCodeOf({ kind: 'resubmit-declined' }), ExitCode.InDoubt);
    assert.equal(exitCodeOf({ kind: 'resolved', before: record, outcome: 'not-run', resolution: null }), ExitCode.Ok);
  });

  test('the other admin outcomes are outcomes (not errors) and exit 0', () => {
    const record = makeRecord({ phase: 'terminal', taskId: 'T1', status: 'completed' });
    for (const o of [
      { kind: 'servers-listed', entries: [] },
      { kind: 'server-removed', name: 'a' },
      { kind: 'record-shown', record },
      { kind: 'pruned', removed: 3 },
      { kind: 'exported', count: 1, bundle: 'x' },
      { kind: 'records-imported', added: 1, alreadyPresent: 0, warnings: [], next: [] },
      { kind: 'signed-out', server: 'a', removed: false, revoked: false },
      { kind: 'remote-tasks-listed', server: 'a', tasks: [] },
    ] as const) {
      assert.equal(exitCodeOf(o), ExitCode.Ok, o.kind);
    }
  });
});
