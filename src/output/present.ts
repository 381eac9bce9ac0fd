// The presenter: every outcome a use case returns, rendered for people (stdout + stderr) or
// for scripts (one JSON document; NDJSON lines for several watched tasks). Use cases decide,
// this module only prints.
import type { Context } from '../context.js';
import type { Outcome, TaskFailure, TaskReport } from '../app/outcomes.js';
import { typeableRef, UNKNOWN_OPERATION } from '../vault/vault-record.js';
import type { TaskTarget } from '../app/task-target.js';
import { jsonLine, makeStyle, renderCallToolResult, renderInputRequests, renderTask, shortTaskId, taskJson } from './render.js';
import { presentError } from './present-error.js';
import { safeName, sanitize } from './sanitize.js';

/** What to type to come back to a task: a short unique prefix, never the whole bearer handle. */
export function refFor(target: TaskTarget): string {
  if (!target.persisted) return `- --server ${target.entry.name}  (taskId on stdin)`;
  // A prefix rather than a label: labels may be shared by several tasks, a 12-character prefix is not.
  return typeableRef({ taskId: target.taskId, opId: target.record.opId });
}

export function present(ctx: Context, outcome: Outcome): void {
  const st = makeStyle(ctx.color);
  const out = (t: string) => ctx.stdout.write(t);
  const err = (line: string) => ctx.stderr.write(`${line}\n`);
  switch (outcome.kind) {
    case 'task':
      return presentReport(ctx, outcome);
    case 'many':
      for (const r of outcome.reports) {
        if (r.kind === 'task') presentReport(ctx, r);
        else presentFailure(ctx, r);
      }
      return;
    case 'task-failure':
      return presentFailure(ctx, outcome);
    case 'cancel-not-sent': {
      const { target, snapshot } = outcome;
      if (ctx.json) out(jsonLine({ ...taskJson(target.record, snapshot), cancellation: 'not-sent' }));
      else {
        out(`${target.record.operation.name} on ${target.entry.name} already ended ${snapshot.status} (kept in the vault); no cancellation was sent.\n`);
        out(`  \`mcp-tasks show ${refFor(target)}\` shows its result; \`mcp-tasks cancel ${refFor(target)} --force\` sends tasks/cancel anyway.\n`);
      }
      return;
    }
    case 'cancel-requested': {
      const { target } = outcome;
      if (ctx.json) out(jsonLine({ ...taskJson(target.record), cancellation: 'requested' }));
      else {
        out(`cancellation requested for ${target.record.operation.name} on ${target.entry.name}; the server acknowledged it.\n`);
        out(`  The task may still complete or fail: \`mcp-tasks cancel ${refFor(target)} --wait\` or \`mcp-tasks watch ${refFor(target)}\` shows the state it reaches.\n`);
      }
      return;
    }
    case 'direct-result': {
      const { record, server, result } = outcome;
      const isError = result.isError === true;
      // No task: the contract's shape with taskId null, so scripts read every result alike.
      if (ctx.json) return out(jsonLine({ ...taskJson(record), status: 'completed', result }));
      out(`${st.c.bold(record.operation.name)} on ${st.c.bold(server)}: ${isError ? st.c.yellow('tool error') : st.c.green('completed')} ${st.c.gray('(answered directly, no task)')}\n`);
      const body = renderCallToolResult(result, st);
      if (body) out(`\n${body}\n`);
      return;
    }
    case 'input-before-task': {
      const { record, server, inputRequests } = outcome;
      if (ctx.json) out(jsonLine({ ...taskJson(record), status: 'input_required', inputRequests }));
      else {
        err(`${record.operation.name} on ${server} needs input before it starts:`);
        ctx.stderr.write(renderInputRequests(inputRequests, st));
      }
      err(`next: run it in a terminal to answer interactively, or pass --answers <file> with a response for each key; nothing was started.`);
      return;
    }
    case 'detached': {
      const { target, snapshot } = outcome;
      const ref = refFor(target);
      for (const n of outcome.notes ?? []) err(n);
      if (ctx.json) return out(jsonLine(taskJson(target.record, snapshot)));
      out(`${st.c.bold(target.record.operation.name)} on ${st.c.bold(target.entry.name)}: task started (${snapshot.status})\n`);
      out(`  task ${shortTaskId(snapshot.taskId)} (kept in the vault; the whole id: mcp-tasks show ${ref})\n`);
      out(`  follow it:  mcp-tasks watch ${ref}\n  check once: mcp-tasks get ${ref}\n  cancel:     mcp-tasks cancel ${ref}\n`);
      if (snapshot.status === 'input_required') out(`  it is waiting for input: mcp-tasks answer ${ref}\n`);
      return;
    }
    case 'in-doubt': {
      const { record, server, reason, next } = outcome;
      if (ctx.json) {
        out(jsonLine({ error: { kind: 'in-doubt', message: reason, next }, opId: record.opId, server, operation: { method: 'tools/call', name: record.operation.name, arguments: record.operation.arguments } }));
      } else {
        err(`mcp-tasks: ${record.operation.name} on ${server} is in doubt: ${reason}.`);
        err(`  The work may or may not have started. Do not simply run the same call again.\n  next: ${next}`);
      }
      return;
    }
  }
}

/** One watched task among several failed: in --json an error line of its own on stdout, naming the task. */
function presentFailure(ctx: Context, f: TaskFailure): void {
  const { target, error } = f;
  if (ctx.json) presentError(ctx, error, { taskId: target.taskId, server: target.entry.name });
  else ctx.stderr.write(`mcp-tasks: ${safeName(target.record.operation.name)} (${shortTaskId(target.taskId)}): ${sanitize(error.message)}\n  next: ${sanitize(error.next)}\n`);
}

function presentReport(ctx: Context, r: TaskReport): void {
  const st = makeStyle(ctx.color);
  const { target, end } = r;
  const snapshot = end.snapshot;
  const ref = refFor(target);
  const err = (line: string) => ctx.stderr.write(`${line}\n`);

  if (end.kind === 'observed') {
    if (ctx.json) ctx.stdout.write(jsonLine({ ...taskJson(target.record, snapshot), ...(r.jsonExtra ?? {}) }));
    else ctx.stdout.write(renderTask(target.record, snapshot, st));
    for (const n of r.notes) err(n);
    return;
  }

  if (r.statePrinted && end.kind !== 'lost' && end.kind !== 'unreachable' && end.kind !== 'stored-terminal') {
    // nothing more on stdout
  } else if (ctx.json) {
    ctx.stdout.write(jsonLine({ ...taskJson(target.record, snapshot), ...(r.jsonExtra ?? {}) }));
  } else if (end.kind === 'terminal' || end.kind === 'stored-terminal' || end.kind === 'needs-input' || end.kind === 'lost') {
    ctx.stdout.write(renderTask(target.record, snapshot, st));
  }
  for (const n of r.notes) err(n);

  switch (end.kind) {
    case 'terminal':
      break;
    case 'stored-terminal':
      err(`note: the server no longer keeps this task; this is the terminal state stored in the vault on ${end.storedAt}.`);
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
