// How a failure is shown: one line and the safe next step (a JSON document on stdout with
// --json), never a stack trace unless -v. Kept apart from present.ts so main.ts can load it
// at start-up without the renderers.
import { safeJson, sanitize } from './sanitize.js';
import { renderHint, type Hint } from '../hint.js';
import { PROGRAM } from '../invocation.js';

export interface ErrorView {
  kind: string;
  message: string;
  next: string | Hint;
}

export interface ErrorSink {
  json: boolean;
  verbose: boolean;
  stdout: { write(t: string): void };
  stderr: { write(t: string): void };
  /** The command as invoked, which the commands of a next step start with (else `mcp-tasks`). */
  invocation?: string;
}

/** An expected failure (a CliError's kind, message and next step). */
export function presentError(out: ErrorSink, e: ErrorView, extra: Record<string, unknown> = {}): void {
  const next = renderHint(e.next, out.invocation ?? PROGRAM);
  if (out.json) out.stdout.write(safeJson({ error: { kind: e.kind, message: e.message, next }, ...extra }) + '\n');
  // Messages quote server text (errors, ids, names): nothing raw reaches the terminal.
  else out.stderr.write(`mcp-tasks: ${sanitize(e.message, { maxLength: 4000 })}\n  next: ${sanitize(next, { maxLength: 4000 })}\n`);
}

/** Something no code path expected: still one line; the stack only with --verbose. */
export function presentUnexpected(out: ErrorSink, err: unknown): void {
  const e = err as Error;
  const message = e?.message ?? String(err);
  if (out.json) out.stdout.write(safeJson({ error: { kind: 'internal', message, next: 'Re-run with --verbose and report the output.' } }) + '\n');
  else out.stderr.write(`mcp-tasks: unexpected error: ${sanitize(message, { maxLength: 4000 })}\n  next: re-run with --verbose and report the output\n`);
  if (out.verbose && e?.stack) out.stderr.write(e.stack + '\n');
}
