// The one exit-code decision: an outcome or a thrown error → the contract's exit code.
// Task states map through tasks/outcome.ts; typed remote failures through toCliError.
import { CliError, ExitCode, type ExitCodeValue } from '../errors.js';
import { combineExitCodes, exitCodeForEnd, exitCodeForSnapshot, resolutionExitCode } from '../tasks/outcome.js';
import { isTerminalStatus } from '../session/task-session.js';
import type { Outcome, TaskReport } from './outcomes.js';
import { toCliError } from './remote-error.js';

type Rule<K extends Outcome['kind']> = (o: Extract<Outcome, { kind: K }>) => ExitCodeValue;
const ok = (): ExitCodeValue => ExitCode.Ok;

function taskReportCode(o: TaskReport): ExitCodeValue {
  const end = o.end;
  if (end.kind === 'observed') {
    if (isTerminalStatus(end.snapshot.status)) return exitCodeForSnapshot(end.snapshot);
    return end.stillPending?.length ? ExitCode.NeedsInput : ExitCode.Ok;
  }
  if (end.kind === 'stored-terminal') return exitCodeForSnapshot(end.snapshot);
  // Another principal's task: signing in as that one is the way on (never lost, exit 6).
  if (end.kind === 'not-visible') return ExitCode.AuthRefused;
  return exitCodeForEnd(end);
}

/**
 * Every outcome kind's exit code, keyed by the Outcome union itself: a new kind without a rule
 * here is a compile error, never a silent exit 1 (docs/reference.md's table lists the codes).
 */
export const OUTCOME_EXIT: { readonly [K in Outcome['kind']]: Rule<K> } = {
  task: taskReportCode,
  'cancel-not-sent': (o) => exitCodeForSnapshot(o.snapshot),
  // A task that had already ended exits with its end's code, as without --force.
  'cancel-requested': (o) => (o.ended ? exitCodeForSnapshot(o.ended.snapshot) : ExitCode.Ok),
  // Damage found and left as it is: 9. Repaired (or nothing found): 0.
  'vault-checked': (o) => (o.findings.length > 0 && !o.repaired ? ExitCode.VaultError : ExitCode.Ok),
  detached: ok,
  'answer-template': ok,
  'task-failure': (o) => o.error.exitCode,
  many: (o) => combineExitCodes(o.reports.map(exitCodeOf)),
  'nothing-to-watch': ok,
  'watch-interrupted': () => ExitCode.Interrupted,
  'direct-result': (o) => (o.result.isError === true ? ExitCode.ToolError : ExitCode.Ok),
  'input-before-task': () => ExitCode.NeedsInput,
  'in-doubt': () => ExitCode.InDoubt,
  'in-doubt-list': (o) => (o.records.length ? ExitCode.InDoubt : ExitCode.Ok),
  'in-doubt-record': () => ExitCode.InDoubt,
  'resubmit-declined': () => ExitCode.InDoubt,
  'resolved-record': (o) => resolutionExitCode(o.record.resolution?.outcome),
  resolved: ok,
  'record-shown': ok,
  pruned: ok,
  exported: ok,
  'records-imported': ok,
  'store-status': ok,
  'store-initialised': ok,
  'store-key-generated': ok,
  'store-key-saved': ok,
  'store-key-forgotten': ok,
  'store-pushed': ok,
  'server-added': ok,
  'servers-listed': ok,
  'server-shown': ok,
  'server-removed': ok,
  'server-checked': ok,
  'tools-listed': ok,
  'signed-in': ok,
  'signed-out': ok,
  'remote-tasks-listed': ok,
  'tasks-listed': ok,
  // Nothing imported and something refused: the file was not what was meant.
  'servers-imported': (o) => (o.skipped.length && !o.imported.length ? ExitCode.Usage : ExitCode.Ok),
};

const isOutcome = (x: unknown): x is Outcome => typeof x === 'object' && x !== null && !(x instanceof Error) && Object.hasOwn(OUTCOME_EXIT, (x as { kind?: unknown }).kind as PropertyKey);

/** An outcome's code, or a thrown error's: a typed failure's own code, anything unexpected 1. */
export function exitCodeOf(outcome: Outcome | unknown): ExitCodeValue {
  if (!isOutcome(outcome)) {
    const err = toCliError(outcome) ?? outcome;
    return err instanceof CliError ? err.exitCode : ExitCode.Usage;
  }
  return (OUTCOME_EXIT[outcome.kind] as (o: Outcome) => ExitCodeValue)(outcome);
}
