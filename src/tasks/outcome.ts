// How an observed task state maps to the contract's exit codes. Pure: used by every command.
import { ExitCode, type ExitCodeValue } from '../errors.js';
import { isToolError, type TaskSnapshot } from './task-snapshot.js';

export type WatchEnd =
  | { kind: 'terminal'; snapshot: TaskSnapshot }
  /** `relisted`: the server keeps asking for these keys although they were answered. */
  /** relisted: answered keys the server keeps asking for (stuck); awaiting: answered keys still listed, too soon to tell. */
  | { kind: 'needs-input'; snapshot: TaskSnapshot; relisted?: string[]; awaiting?: string[] }
  /** `snapshot`: the last state seen, when one was. */
  | { kind: 'timeout'; snapshot?: TaskSnapshot | undefined }
  | { kind: 'interrupted'; snapshot?: TaskSnapshot | undefined }
  | { kind: 'lost'; snapshot?: TaskSnapshot | undefined; reason: string }
  | { kind: 'unreachable'; snapshot?: TaskSnapshot | undefined; reason: string };

export function exitCodeForSnapshot(s: TaskSnapshot): ExitCodeValue {
  switch (s.status) {
    case 'completed':
      return isToolError(s) ? ExitCode.ToolError : ExitCode.Ok;
    case 'failed':
      return ExitCode.TaskFailed;
    case 'cancelled':
      return ExitCode.TaskCancelled;
    case 'input_required':
      return ExitCode.NeedsInput;
    case 'working':
      return ExitCode.Ok;
  }
}

export function exitCodeForEnd(end: WatchEnd): ExitCodeValue {
  switch (end.kind) {
    case 'terminal':
      return exitCodeForSnapshot(end.snapshot);
    case 'needs-input':
      return ExitCode.NeedsInput;
    case 'timeout':
      return ExitCode.Timeout;
    case 'interrupted':
      return ExitCode.Interrupted;
    case 'lost':
      return ExitCode.TaskLost;
    case 'unreachable':
      return ExitCode.Unreachable;
  }
}

/** Exit code for several watched tasks: the first non-zero in argument order, else 0. */
export function combineExitCodes(codes: ExitCodeValue[]): ExitCodeValue {
  return codes.find((c) => c !== ExitCode.Ok) ?? ExitCode.Ok;
}

/** A verdict given by hand, as the task state it stands for: completed 0, failed 2, not run 3 (like cancelled). */
export function resolutionExitCode(outcome: string | undefined): ExitCodeValue {
  return outcome === 'completed' ? ExitCode.Ok : outcome === 'failed' ? ExitCode.TaskFailed : ExitCode.TaskCancelled;
}

