// The pure parts of `recover`: whether an in-doubt operation may be sent again without risking a
// duplicated effect, and which vault records are in doubt at all.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { inDoubtRecords, resubmitVerdict } from '../../../src/app/recover.js';
import { fakeTaskId, makeRecord } from '../../helpers/vault-helpers.js';

const META = 'io.github.mcp-tasks/idempotency-key';

describe('resubmitVerdict', () => {
  test('a server that deduplicates on the operation id makes any tool safe, even a destructive one', () => {
    const v = resubmitVerdict(makeRecord({ tool: 'send_payment', idempotencyMeta: META, annotations: { destructiveHint: true, idempotentHint: false, readOnlyHint: false } }));
    assert.equal(v.safe, true);
    assert.match(v.why, /deduplicates on _meta\["io\.github\.mcp-tasks\/idempotency-key"\]/);
  });

  test('read-only or idempotent annotations are the server\'s claim: shown, never a reason to resubmit', () => {
    const ro = resubmitVerdict(makeRecord({ tool: 'slow_compute', annotations: { readOnlyHint: true, idempotentHint: true } }));
    assert.equal(ro.safe, false);
    assert.match(ro.why, /annotates it read-only and idempotent, a hint from the server, not proof/);
    const idem = resubmitVerdict(makeRecord({ tool: 'set_flag', annotations: { idempotentHint: true, destructiveHint: true } }));
    assert.equal(idem.safe, false);
    assert.match(idem.why, /set_flag, which may be destructive; the server annotates it idempotent/);
  });

  test('a destructive, non-idempotent tool without the contract is not safe', () => {
    const v = resubmitVerdict(makeRecord({ tool: 'send_payment', annotations: { destructiveHint: true, idempotentHint: false, readOnlyHint: false } }));
    assert.equal(v.safe, false);
    assert.match(v.why, /the server declares no duplicate-prevention contract for send_payment, which may be destructive$/);
  });

  test('no annotations at all is not safe (hints default to destructive, non-idempotent)', () => {
    assert.equal(resubmitVerdict(makeRecord({ tool: 'mystery' })).safe, false);
    assert.equal(resubmitVerdict(makeRecord({ tool: 'mystery', annotations: {} })).safe, false);
  });

  test('explicit false hints are not safe; destructiveHint false drops the "may be destructive"', () => {
    const v = resubmitVerdict(makeRecord({ tool: 'append_log', annotations: { readOnlyHint: false, idempotentHint: false, destructiveHint: false } }));
    assert.equal(v.safe, false);
    assert.equal(v.why, 'the server declares no duplicate-prevention contract for append_log');
  });
});

describe('inDoubtRecords', () => {
  const now = Date.now();
  test('in-doubt records without a handle, and submitting records older than two minutes, oldest first', () => {
    const inDoubtNew = makeRecord({ phase: 'in-doubt', ageMs: 1_000 });
    const inDoubtOld = makeRecord({ phase: 'in-doubt', ageMs: 60 * 60_000 });
    const staleSubmitting = makeRecord({ phase: 'submitting', ageMs: 3 * 60_000 });
    const freshSubmitting = makeRecord({ phase: 'submitting', ageMs: 30_000 });
    const active = makeRecord({ taskId: fakeTaskId(), ageMs: 60 * 60_000 });
    const terminal = makeRecord({ taskId: fakeTaskId(), status: 'completed', ageMs: 60 * 60_000 });
    const lost = makeRecord({ taskId: fakeTaskId(), phase: 'lost', ageMs: 60 * 60_000 });
    // A handle arrived: whatever the phase says, the outcome is not in doubt.
    const inDoubtWithHandle = makeRecord({ taskId: fakeTaskId(), phase: 'in-doubt', ageMs: 60 * 60_000 });
    const got = inDoubtRecords([inDoubtNew, active, freshSubmitting, staleSubmitting, terminal, lost, inDoubtWithHandle, inDoubtOld], now);
    assert.deepEqual(
      got.map((r) => r.opId),
      [inDoubtOld.opId, staleSubmitting.opId, inDoubtNew.opId],
    );
  });

  test('the two-minute boundary for a submitting record', () => {
    const rec = makeRecord({ phase: 'submitting' });
    const t = Date.parse(rec.updatedAt);
    assert.equal(inDoubtRecords([rec], t + 120_000).length, 0);
    assert.equal(inDoubtRecords([rec], t + 120_001).length, 1);
  });

  test('an empty vault has nothing in doubt', () => {
    assert.deepEqual(inDoubtRecords([], now), []);
  });
});
