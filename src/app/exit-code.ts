// The one exit-code decision: an outcome or a thrown error → the contract's exit code.
// Task states map through tasks/outcome.ts; typed remote failures through toCliError.
import { CliError, ExitCode, type ExitCodeValue } from '../errors.js';
import { combineExitCodes, exitCodeForEnd, exitCodeForSnapshot, resolutionExitCode } from '../tasks/outcome.js';
import { isTerminalStatus } from '../session/task-session.js';
import type { Outcome } from './outcomes.js';
import { toCliError } from './remote-error.js';

const OUTCOME_KINDS = new Set<string>(['task', 'cancel-requested', 'cancel-not-sent', 'many', 'task-failure', 'direct-result', 'input-before-task', 'detached', 'in-doubt', 'answer-template', 'record-shown', 'pruned', 'exported', 'records-imported', 'store-status', 'store-initialised', 'store-pushed', 'in-doubt-list', 'in-doubt-record', 'resolved', 'resolved-record', 'resubmit-declined', 'server-added', 'servers-listed', 'server-shown', 'server-removed', 'servers-imported', 'server-checked', 'tools-listed', 'signed-in', 'signed-out', 'remote-tasks-listed', 'tasks-listed']);
const isOutcome = (x: unknown): x is Outcome => typeof x === 'object' && x !== null && !(x instanceof Error) && OUTCOME_KINDS.has((x as { kind?: string }).kind ?? '');

/** An outcome's code, or a thrown error's: a typed failure's own code, anything unexpected 1. */
export function exitCodeOf(outcome: Outcome | unknown): ExitCodeValue {
  if (!isOutcome(outcome)) {
    const err = toCliError(outcome) ?? outcome;
    return err instanceof CliError ? err.exitCode : ExitCode.Usage;
  }
  const o = outcome;
  switch (o.kind) {
    case 'task': {
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
    case 'cancel-not-sent':
      return exitCodeForSnapshot(o.snapshot);
    case 'cancel-requested':
    case 'detached':
    case 'answer-template':
      return ExitCode.Ok;
    case 'task-failure':
      return o.error.exitCode;
    case 'many':
      return combineExitCodes(o.reports.map(exitCodeOf));
    case 'direct-result':
      return o.result.isError === true ? ExitCode.ToolError : ExitCode.Ok;
    case 'input-before-task':
      return ExitCode.NeedsInput;
    case 'in-doubt':
      return ExitCode.InDoubt;
    case 'in-doubt-list':
      return o.records.length ? ExitCode.InDoubt : ExitCode.Ok;
    case 'in-doubt-record':
    case 'resubmit-declined':
      return ExitCode.InDoubt;
    case 'resolved-record':
      return resolutionExitCode(o.record.resolution?.outcome);
    case 'resolved':
    case 'record-shown':
    case 'pruned':
    case 'exported':
    case 'records-imported':
    case 'store-status':
    case 'store-initialised':
    case 'store-pushed':
    case 'server-added':
    case 'servers-listed':
    case 'server-shown':
    case 'server-removed':
    case 'server-checked':
    case 'tools-listed':
    case 'signed-in':
    case 'signed-out':
    case 'remote-tasks-listed':
    case 'tasks-listed':
      return ExitCode.Ok;
    case 'servers-imported':
      // Nothing imported and something refused: the file was not what was meant.
      return o.skipped.length && !o.imported.length ? ExitCode.Usage : ExitCode.Ok;
  }
}
