// Typed errors carry intent; exitCodeOf (app/exit-code.ts) turns them into the contract's exit codes.
import { cmd, hint, type Hint } from './hint.js';

/** The exit codes of docs/reference.md (the CLI contract). */
export const ExitCode = {
  Ok: 0,
  Usage: 1,
  TaskFailed: 2,
  TaskCancelled: 3,
  ToolError: 4,
  NeedsInput: 5,
  TaskLost: 6,
  Unreachable: 7,
  AuthRefused: 8,
  VaultError: 9,
  InDoubt: 10,
  Timeout: 124,
  Interrupted: 130,
} as const;
export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];

export type ErrorKind =
  | 'usage'
  | 'invalid-input'
  | 'not-found'
  | 'unreachable'
  | 'auth'
  | 'protocol'
  | 'vault'
  | 'lost'
  | 'in-doubt'
  | 'timeout'
  | 'interrupted'
  | 'store'
  | 'internal';

const KIND_EXIT: Record<ErrorKind, ExitCodeValue> = {
  usage: ExitCode.Usage,
  'invalid-input': ExitCode.Usage,
  'not-found': ExitCode.Usage,
  unreachable: ExitCode.Unreachable,
  auth: ExitCode.AuthRefused,
  protocol: ExitCode.Unreachable,
  vault: ExitCode.VaultError,
  lost: ExitCode.TaskLost,
  'in-doubt': ExitCode.InDoubt,
  timeout: ExitCode.Timeout,
  interrupted: ExitCode.Interrupted,
  store: ExitCode.Usage,
  internal: ExitCode.Usage,
};

/** An expected failure: printed as one message plus the safe next step, never as a stack trace. */
export class CliError extends Error {
  readonly exitCode: ExitCodeValue;
  constructor(
    readonly kind: ErrorKind,
    message: string,
    /** Rendered with the invocation where it is printed (renderHint). */
    readonly next: string | Hint,
    exitCode?: ExitCodeValue,
  ) {
    super(message);
    this.name = 'CliError';
    this.exitCode = exitCode ?? KIND_EXIT[kind];
  }
}

export const usageError = (message: string, next: string | Hint = hint`Run \`${cmd('--help')}\` for usage.`) => new CliError('usage', message, next);
