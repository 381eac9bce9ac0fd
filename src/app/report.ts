// The last word of a task-bearing command: what was observed, the safe next step, and the exit
// code. Honest output: only a task seen completed is reported as completed.
import type { Context } from '../context.js';
import type { ExitCodeValue } from '../errors.js';
import { jsonLine, makeStyle, renderInputRequests, renderTask, taskJson } from '../output/render.js';
import { exitCodeForEnd, type WatchEnd } from '../tasks/outcome.js';
import type { TaskSnapshot } from '../tasks/task-snapshot.js';
import type { TaskTarget } from './task-target.js';
import { typeableRef, UNKNOWN_OPERATION } from '../vault/vault-record.js';
import { sanitize } from '../output/sanitize.js';

/** What to type to come back to a task: a short unique prefix, never the whole bearer handle. */
export function refFor(target: TaskTarget): string {
  if (!target.persisted) return `- --server ${target.entry.name}  (taskId on stdin)`;
  // A prefix rather than a label: labels may be shared by several tasks, a 12-character prefix is not.
  return typeableRef({ taskId: target.taskId, opId: target.record.opId });
}

/**
 * The server keeps listing keys it was given (keys are unique for a task's lifetime): say so, and
 * the two ways on. Said alike by call, watch, answer and get. Keys are server text: sanitised.
 */
export function relistedAdvice(ref: string, keys: readonly string[]): string[] {
  const names = keys.map((k) => sanitize(k, { singleLine: true, maxLength: 80 }));
  const quoted = names.map((k) => `"${k}"`).join(', ');
  const again = names.map((k) => `--again ${/^[A-Za-z0-9_.-]+$/.test(k) ? k : JSON.stringify(k)}`).join(' ');
  return [
    `mcp-tasks: the server keeps asking for ${quoted}, already answered; mcp-tasks answers a key once, so waiting longer would wait forever.`,
    `  next: \`mcp-tasks cancel ${ref}\` to stop the task, or \`mcp-tasks answer ${ref} ${again}\` to send a new answer on purpose.`,
  ];
}

export interface ReportOptions {
  /** The final state is already on stdout (watch --json streamed it, get printed it). */
  statePrinted?: boolean;
}

export function reportEnd(ctx: Context, target: TaskTarget, end: WatchEnd, opts: ReportOptions = {}): ExitCodeValue {
  const st = makeStyle(ctx.color);
  const snapshot: TaskSnapshot | undefined = end.snapshot;
  const ref = refFor(target);
  const code = exitCodeForEnd(end);
  const err = (line: string) => ctx.stderr.write(`${line}\n`);

  if (opts.statePrinted && end.kind !== 'lost' && end.kind !== 'unreachable') {
    // nothing more on stdout
  } else if (ctx.json) {
    ctx.stdout.write(jsonLine(taskJson(target.record, snapshot)));
  } else if (end.kind === 'terminal' || end.kind === 'needs-input' || end.kind === 'lost') {
    ctx.stdout.write(renderTask(target.record, snapshot, st));
  }

  switch (end.kind) {
    case 'terminal':
      break;
    case 'needs-input':
      if (end.relisted?.length) {
        for (const line of relistedAdvice(ref, end.relisted)) err(line);
        break;
      }
      if (!ctx.json && snapshot?.inputRequests) {
        err(`The task is waiting for input:`);
        err(renderInputRequests(snapshot.inputRequests, st).trimEnd());
      }
      err(`next: answer it with \`mcp-tasks answer ${ref}\` (or --answers <file> from a script); the task stays on the server until then.`);
      break;
    case 'timeout':
      err(`mcp-tasks: still ${snapshot?.status ?? 'running'} when --timeout was reached; the handle is kept.`);
      err(`  next: \`mcp-tasks watch ${ref}\` to keep following it, or \`mcp-tasks cancel ${ref}\` to stop it.`);
      break;
    case 'interrupted':
      err(`mcp-tasks: interrupted; the task keeps running on the server and its handle is kept.`);
      err(`  next: \`mcp-tasks watch ${ref}\` to follow it again.`);
      break;
    case 'lost':
      err(`mcp-tasks: task lost: ${end.reason}. Its outcome was not observed; do not assume it succeeded.`);
      err(`  next: check the server's own records for the effect of ${target.record.operation.name === UNKNOWN_OPERATION ? 'this task' : target.record.operation.name} before resubmitting.`);
      break;
    case 'unreachable':
      err(`mcp-tasks: server "${target.entry.name}" unreachable: ${end.reason}. The handle is kept.`);
      err(`  next: \`mcp-tasks watch ${ref}\` once the server is back.`);
      break;
  }
  return code;
}
