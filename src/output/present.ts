// The presenter: every outcome a use case returns, rendered for people (stdout + stderr) or
// for scripts (one JSON document; NDJSON lines for several watched tasks). Use cases decide,
// this module only prints.
import type { Context } from '../context.js';
import type { AnswerTemplate, CancelNotSent, CancelRequested, Detached, DirectResult, InDoubt, InputBeforeTask, ManyReports, Outcome, TaskEnd, TaskFailure, TaskReport } from './outcomes.js';
import { typeableRef, UNKNOWN_OPERATION } from '../vault/vault-record.js';
import type { TaskTarget } from './outcomes.js';
import type { ServerEntry } from '../servers/server-entry.js';
import { jsonLine, makeStyle, renderCallToolResult, renderInputRequests, renderTask, shortTaskId, taskJson } from './render.js';
import { presentError } from './present-error.js';
import { presentServerOutcome } from './present-servers.js';
import { ago, presentVaultOutcome } from './present-record.js';
import { presentList } from './present-list.js';
import { presentRecoverOutcome } from './present-recover.js';
import { safeJson, safeName, sanitize } from './sanitize.js';
import { cmd, hint, renderHint, shellQuote, type Hint } from '../hint.js';
import { answersTemplate, inlineExample } from '../tasks/answer-template.js';
import type { InputRequestSnapshot } from '../tasks/task-snapshot.js';
import { describePrincipal } from '../tasks/principal.js';

/** What to type to come back to a task: a short unique prefix, never the whole bearer handle. */
export function refFor(target: TaskTarget): string {
  // The taskId came on stdin and stays off argv: the hint reads it from stdin again.
  if (!target.persisted) return `- --server ${target.entry.name}`;
  // A prefix rather than a label: labels may be shared by several tasks, a 12-character prefix is not.
  return typeableRef({ taskId: target.taskId, opId: target.record.opId });
}

/** On stdout, its commands as invoked (every command printed here runs as it is when pasted). */
const stdout = (ctx: Context, text: string | Hint) => ctx.stdout.write(renderHint(text, ctx.invocation));
/** One line on stderr, its commands as invoked. */
const stderrLine = (ctx: Context, line: string | Hint) => ctx.stderr.write(`${renderHint(line, ctx.invocation)}\n`);

export function present(ctx: Context, outcome: Outcome): void {
  switch (outcome.kind) {
    case 'server-added':
    case 'servers-listed':
    case 'server-shown':
    case 'server-removed':
    case 'servers-imported':
    case 'server-checked':
    case 'tools-listed':
    case 'signed-in':
    case 'signed-out':
    case 'remote-tasks-listed':
      return presentServerOutcome(ctx, outcome);
    case 'record-shown':
    case 'pruned':
    case 'exported':
    case 'records-imported':
    case 'vault-checked':
    case 'store-status':
    case 'store-initialised':
    case 'store-key-generated':
    case 'store-key-saved':
    case 'store-key-forgotten':
    case 'store-pushed':
      return presentVaultOutcome(ctx, outcome);
    case 'tasks-listed':
      return presentList(ctx, outcome);
    case 'in-doubt-list':
    case 'in-doubt-record':
    case 'resolved':
    case 'resolved-record':
    case 'resubmit-declined':
      return presentRecoverOutcome(ctx, outcome);
    case 'task':
      return presentReport(ctx, outcome);
    case 'nothing-to-watch':
      return stderrLine(ctx, 'no active tasks in the vault');
    case 'watch-interrupted':
      return presentInterrupted(ctx, outcome.waiting, outcome.active);
    case 'many':
      return presentMany(ctx, outcome);
    case 'task-failure':
      return presentFailure(ctx, outcome);
    case 'cancel-not-sent':
      return presentCancelNotSent(ctx, outcome);
    case 'cancel-requested':
      return presentCancelRequested(ctx, outcome);
    case 'direct-result':
      return presentDirectResult(ctx, outcome);
    case 'input-before-task':
      return presentInputBeforeTask(ctx, outcome);
    case 'detached':
      return presentDetached(ctx, outcome);
    case 'answer-template':
      return presentAnswerTemplate(ctx, outcome);
    case 'in-doubt':
      return presentInDoubt(ctx, outcome);
  }
}

/** Several tasks at once: each report or failure in argument order (unless watch printed each as it ended). */
function presentMany(ctx: Context, outcome: ManyReports): void {
  if (outcome.presented) return;
  for (const r of outcome.reports) {
    if (r.kind === 'task') presentReport(ctx, r);
    else presentFailure(ctx, r);
  }
}

function presentCancelNotSent(ctx: Context, { target, snapshot }: CancelNotSent): void {
  if (ctx.json) return stdout(ctx, jsonLine({ ...taskJson(target.record, snapshot), cancellation: 'not-sent' }));
  stdout(ctx, `${target.record.operation.name} on ${target.entry.name} already ended ${snapshot.status} (kept in the vault); no cancellation was sent.\n`);
  stdout(ctx, hint`  \`${cmd('show', refFor(target))}\` shows its result; \`${cmd('cancel', refFor(target), '--force')}\` sends tasks/cancel anyway.\n`);
}

function presentCancelRequested(ctx: Context, { target, ended }: CancelRequested): void {
  if (ended) {
    // Sent with --force past an end: say what was observed, never "it may still complete".
    const { snapshot, by } = ended;
    if (ctx.json) return stdout(ctx, jsonLine({ ...taskJson(target.record, snapshot), cancellation: by === 'server' ? 'refused-ended' : 'requested', endedBefore: true }));
    const what = `${target.record.operation.name} on ${target.entry.name}`;
    stdout(ctx, by === 'server'
      ? `tasks/cancel was sent for ${what}; the server refused it because the task had already ended: it is ${snapshot.status}.\n`
      : `tasks/cancel was sent for ${what}; the server acknowledged it. The task had already ended ${snapshot.status} (kept in the vault); an ended task does not change.\n`);
    stdout(ctx, hint`  \`${cmd('show', refFor(target))}\` shows its result.\n`);
    return;
  }
  if (ctx.json) return stdout(ctx, jsonLine({ ...taskJson(target.record), cancellation: 'requested' }));
  stdout(ctx, `cancellation requested for ${target.record.operation.name} on ${target.entry.name}; the server acknowledged it.\n`);
  stdout(ctx, hint`  The task may still complete or fail: \`${cmd('cancel', refFor(target), '--wait')}\` or \`${cmd('watch', refFor(target))}\` shows the state it reaches.\n`);
}

function presentDirectResult(ctx: Context, outcome: DirectResult): void {
  const { record, server, result } = outcome;
  const st = makeStyle(ctx.color);
  const isError = result.isError === true;
  if (outcome.late) ctx.stderr.write(`mcp-tasks: note: the answer came after the call's wait ran out; the record in doubt now holds this result.\n`);
  if (outcome.notStored) {
    stderrLine(ctx, hint`mcp-tasks: warning: the vault could not store this result (${outcome.notStored}); it is shown below and nowhere else.\n  next: Keep this output. Once the vault is writable, \`${cmd('recover', record.opId.slice(0, 8))}\` lists the call as in doubt; close it with --resolve completed.`);
  }
  // No task: the contract's shape with taskId null, so scripts read every result alike.
  if (ctx.json) return stdout(ctx, jsonLine({ ...taskJson(record), status: 'completed', result }));
  stdout(ctx, `${st.c.bold(record.operation.name)} on ${st.c.bold(server)}: ${isError ? st.c.yellow('tool error') : st.c.green('completed')} ${st.c.gray('(answered directly, no task)')}\n`);
  const body = renderCallToolResult(result, st);
  if (body) stdout(ctx, `\n${body}\n`);
}

function presentInputBeforeTask(ctx: Context, { record, server, inputRequests }: InputBeforeTask): void {
  if (ctx.json) stdout(ctx, jsonLine({ ...taskJson(record), status: 'input_required', inputRequests }));
  else {
    stderrLine(ctx, `${record.operation.name} on ${server} needs input before it starts:`);
    ctx.stderr.write(renderInputRequests(inputRequests, makeStyle(ctx.color)));
  }
  // Nothing exists yet, so running the call again is right: with the answers this time.
  stderrLine(ctx, hint`next: nothing was started. Run the same call in a terminal to answer interactively, or from a script: \`${callCommand(server, record.operation.name, record.operation.arguments)} --answers answers.json\`, with answers.json shaped like (replace every "fill in" placeholder):`);
  ctx.stderr.write(`${safeJson(cleanForTerminal(answersTemplate(inputRequests, [])), 2)}\n`);
}

function presentDetached(ctx: Context, { target, snapshot, notes }: Detached): void {
  const st = makeStyle(ctx.color);
  const ref = refFor(target);
  for (const n of notes ?? []) stderrLine(ctx, n);
  const lifetime = stdioLifetimeWarning(target.entry);
  if (lifetime) stderrLine(ctx, lifetime);
  if (ctx.json) return stdout(ctx, jsonLine(taskJson(target.record, snapshot)));
  stdout(ctx, `${st.c.bold(target.record.operation.name)} on ${st.c.bold(target.entry.name)}: task started (${snapshot.status})\n`);
  stdout(ctx, hint`  task ${shortTaskId(snapshot.taskId)} (kept in the vault; the whole id: ${cmd('show', ref)})\n`);
  stdout(ctx, hint`  follow it:  ${cmd('watch', ref)}\n  check once: ${cmd('get', ref)}\n  cancel:     ${cmd('cancel', ref)}\n`);
  if (snapshot.status === 'input_required') stdout(ctx, hint`  it is waiting for input: ${cmd('answer', ref)}\n`);
  const ttlWarning = shortTtlWarning(snapshot, ref);
  if (ttlWarning) stderrLine(ctx, ttlWarning);
}

function presentAnswerTemplate(ctx: Context, { target, template }: AnswerTemplate): void {
  // The skeleton itself is the output (stdout, pretty JSON, with or without --json): `> answers.json`.
  stdout(ctx, `${safeJson(template, 2)}\n`);
  if (ctx.json) return;
  const ref = refFor(target);
  stderrLine(ctx, hint`next: save it (\`${cmd('answer', ref, '--template')} > answers.json\`), replace every "fill in" placeholder (one left is refused), then \`${cmd('answer', ref, '--answers', 'answers.json')}\``);
}

function presentInDoubt(ctx: Context, { record, server, reason, next, inputRequests }: InDoubt): void {
  if (ctx.json) {
    return stdout(ctx, jsonLine({ error: { kind: 'in-doubt', message: reason, next: renderHint(next, ctx.invocation) }, opId: record.opId, server, operation: { method: 'tools/call', name: record.operation.name, arguments: record.operation.arguments }, ...(inputRequests ? { inputRequests } : {}) }));
  }
  const st = makeStyle(ctx.color);
  stderrLine(ctx, `mcp-tasks: ${record.operation.name} on ${server} is in doubt: ${reason}.`);
  if (inputRequests) ctx.stderr.write(renderInputRequests(inputRequests, st));
  stderrLine(ctx, hint`  The work may or may not have started. Do not simply run the same call again.\n  next: ${next}`);
  // A call that asked mid-way (2025-11-25): once checked that it did nothing, close the record and send it again with its answers.
  if (inputRequests) {
    stderrLine(ctx, hint`  once checked that it did not run, from a script: \`${cmd('recover', record.opId.slice(0, 8), '--resolve', 'not-run', '--note', 'checked')}\`, then \`${callCommand(server, record.operation.name, record.operation.arguments)} --answers answers.json\`, with answers.json shaped like (replace every "fill in" placeholder):`);
    ctx.stderr.write(`${safeJson(cleanForTerminal(answersTemplate(inputRequests, [])), 2)}\n`);
  }
}

/** One watched task among several failed: in --json an error line of its own on stdout, naming the task. */
function presentFailure(ctx: Context, f: TaskFailure): void {
  const { target, error } = f;
  if (ctx.json) presentError(ctx, error, { taskId: target.taskId, server: target.entry.name });
  else ctx.stderr.write(`mcp-tasks: ${safeName(target.record.operation.name)} (${shortTaskId(target.taskId)}): ${sanitize(error.message)}\n  next: ${sanitize(renderHint(error.next, ctx.invocation))}\n`);
}

function presentReport(ctx: Context, r: TaskReport): void {
  const st = makeStyle(ctx.color);
  const { target, end } = r;
  const snapshot = end.snapshot;

  if (end.kind === 'observed') {
    if (ctx.json) ctx.stdout.write(jsonLine({ ...taskJson(target.record, snapshot), ...(r.jsonExtra ?? {}) }));
    else ctx.stdout.write(renderTask(target.record, snapshot, st));
    for (const n of r.notes) stderrLine(ctx, n);
    return;
  }

  if (r.statePrinted && end.kind !== 'lost' && end.kind !== 'unreachable' && end.kind !== 'stored-terminal') {
    // nothing more on stdout
  } else if (ctx.json) {
    const notVisible =
      end.kind === 'not-visible'
        ? { visible: false, createdUnder: describePrincipal(end.created), signedInAs: describePrincipal(end.current), handleSent: end.sent }
        : {};
    ctx.stdout.write(jsonLine({ ...taskJson(target.record, snapshot), ...notVisible, ...(r.jsonExtra ?? {}) }));
  } else if (end.kind === 'terminal' || end.kind === 'stored-terminal' || end.kind === 'needs-input' || end.kind === 'lost') {
    ctx.stdout.write(renderTask(target.record, snapshot, st));
  }
  for (const n of r.notes) stderrLine(ctx, n);
  for (const line of endAdvice(ctx, r, end)) stderrLine(ctx, line);
}

/** What a person reads on stderr after a task's end: what it means, and the next step. */
function endAdvice(ctx: Context, { target }: TaskReport, end: TaskEnd): Array<string | Hint> {
  const snapshot = end.snapshot;
  const ref = refFor(target);
  switch (end.kind) {
    case 'terminal':
      return [];
    case 'stored-terminal':
      if (end.unreachable) return [`note: stored result: ${end.unreachable}; this is the terminal state stored in the vault on ${end.storedAt} (the server was not asked again).`];
      return [`note: the server no longer keeps this task; this is the terminal state stored in the vault on ${end.storedAt}.`];
    case 'needs-input': {
      if (end.relisted?.length) return relistedAdvice(ref, end.relisted);
      if (end.awaiting?.length) return awaitingAdvice(ref, end.awaiting, target.record.inputAnsweredAt, ctx.now());
      const waiting = !ctx.json && snapshot?.inputRequests ? [`The task is waiting for input:`, renderInputRequests(snapshot.inputRequests, makeStyle(ctx.color), [target.taskId, snapshot.taskId]).trimEnd()] : [];
      if (ctx.interactive) return [...waiting, hint`next: answer it with \`${cmd('answer', ref)}\`; the task stays on the server until then.`];
      return [...waiting, ...scriptedAnswerHint(ref, snapshot?.inputRequests ?? {}, target.record.inputKeysAnswered)];
    }
    case 'timeout':
      return [`mcp-tasks: still ${snapshot?.status ?? 'running'} when --timeout was reached; the handle is kept.`, hint`  next: \`${cmd('watch', ref)}\` to keep following it, or \`${cmd('cancel', ref)}\` to stop it.`];
    case 'interrupted':
      return [`mcp-tasks: interrupted; the task keeps running on the server and its handle is kept.`, hint`  next: \`${cmd('watch', ref)}\` to follow it again.`];
    case 'lost':
      return [
        `mcp-tasks: task lost: ${end.reason}. Its outcome was not observed; do not assume it succeeded.`,
        `  next: check the server's own records for the effect of ${target.record.operation.name === UNKNOWN_OPERATION ? 'this task' : target.record.operation.name} before resubmitting.`,
      ];
    case 'not-visible': {
      const created = sanitize(describePrincipal(end.created), { singleLine: true, maxLength: 300 });
      const current = sanitize(describePrincipal(end.current), { singleLine: true, maxLength: 300 });
      const name = safeName(target.record.operation.name);
      return [
        end.sent
          ? `mcp-tasks: task ${ref} (${name}) is not visible with this sign-in: server "${target.entry.name}" does not know it under ${current}, and it was created under ${created}. It is not marked lost.`
          : `mcp-tasks: task ${ref} (${name}) was created under ${created}; the stored sign-in for server "${target.entry.name}" is ${current}, so its handle was not sent.`,
        hint`  next: \`${cmd('server', 'login', target.entry.name)}\` as the account that created it, then \`${cmd('get', ref)}\`.`,
      ];
    }
    case 'unreachable':
      return [`mcp-tasks: server "${target.entry.name}" unreachable: ${end.reason}. The handle is kept.`, hint`  next: \`${cmd('watch', ref)}\` once the server is back.`];
  }
}

/**
 * `call --detach` on a stdio server: mcp-tasks started the server and ends it when it exits, so
 * the task may end with it. Not for the built-in demo, whose store is durable (docs/reference.md).
 */
export function stdioLifetimeWarning(entry: ServerEntry): string | undefined {
  if (entry.transport !== 'stdio' || entry.builtin === 'demo') return undefined;
  return `warning: "${safeName(entry.name, 80)}" is a stdio server: mcp-tasks started its process for this call and ends it on exit, so the task lives only as long as that process unless the server keeps its tasks in a durable store; coming back to this handle later may find it lost. To follow the task to its end, run the call without --detach.`;
}

/** The same call as a command that runs as printed; arguments as --args-json. */
export function callCommand(server: string, tool: string, args: Record<string, unknown>): Hint {
  const json = Object.keys(args).length ? ['--args-json', shellQuote(JSON.stringify(args))] : [];
  return cmd('call', shellQuote(server), shellQuote(tool), ...json);
}

/** Under this, a detached task may be gone before anyone comes back: say so. */
export const SHORT_TTL_MS = 15 * 60_000;

/** `call --detach` with a short ttlMs: when the server may forget the task, and what to run before. */
export function shortTtlWarning(snapshot: { ttlMs: number | null; createdAt: string }, ref: string): Hint | undefined {
  if (snapshot.ttlMs === null || snapshot.ttlMs >= SHORT_TTL_MS) return undefined;
  const created = Date.parse(snapshot.createdAt);
  const until = Number.isFinite(created) ? ` (about ${new Date(created + snapshot.ttlMs).toISOString()})` : '';
  const secs = Math.round(snapshot.ttlMs / 1000);
  const span = secs >= 120 ? `${Math.round(secs / 60)} min` : `${secs} s`;
  return hint`warning: the server keeps this task only ${span} after it was created${until}; its result is lost if nobody asks before then: \`${cmd('watch', ref)}\` (or \`${cmd('get', ref)}\` once it ends) stores it in the vault.`;
}

/** Without a terminal: the commands that answer from a script (the task stays on the server until then). */
export function scriptedAnswerHint(ref: string, pending: Record<string, InputRequestSnapshot>, answeredBefore: readonly string[]): Hint[] {
  // Server text in a command line: only offered when it can be typed as printed (nothing stripped).
  const example = inlineExample(pending, answeredBefore);
  const inline = example?.every((part) => sanitize(part, { singleLine: true, maxLength: 10_000 }) === part) ? example : undefined;
  return [
    hint`next: answer it in a terminal with \`${cmd('answer', ref)}\`; the task stays on the server until then. From a script:`,
    ...(inline ? [hint`  inline (typed by the form): \`${cmd('answer', ref, ...inline)}\``] : []),
    hint`  from a file: \`${cmd('answer', ref, '--template')} > answers.json\`, replace every "fill in" placeholder, then \`${cmd('answer', ref, '--answers', 'answers.json')}\``,
  ];
}

/**
 * The server keeps listing keys it was given (keys are unique for a task's lifetime): say so, and
 * the two ways on. Said alike by call, watch, answer and get. Keys are server text: sanitised.
 */
export function relistedAdvice(ref: string, keys: readonly string[]): Array<string | Hint> {
  const names = keys.map((k) => sanitize(k, { singleLine: true, maxLength: 80 }));
  const quoted = names.map((k) => `"${k}"`).join(', ');
  const again = names.flatMap((k) => ['--again', /^[A-Za-z0-9_.-]+$/.test(k) ? k : JSON.stringify(k)]);
  return [
    `mcp-tasks: the server keeps asking for ${quoted}, already answered; mcp-tasks answers a key once, so waiting longer would wait forever.`,
    hint`  next: \`${cmd('cancel', ref)}\` to stop the task, or \`${cmd('answer', ref, ...again)}\` to send a new answer on purpose.`,
  ];
}

/** Answered keys still listed, too soon to call stuck: say what was seen, and how to look again. */
function awaitingAdvice(ref: string, keys: readonly string[], answeredAt: string | undefined, now: number): Array<string | Hint> {
  const quoted = keys.map((k) => `"${sanitize(k, { singleLine: true, maxLength: 80 })}"`).join(', ');
  const when = answeredAt ? ` ${ago(answeredAt, now)}` : '';
  return [
    `mcp-tasks: ${quoted} was answered${when}; the server still lists it, and may not have taken the answer yet.`,
    hint`  next: \`${cmd('watch', ref)}\` follows the task (and says so if the server keeps asking), or \`${cmd('get', ref)}\` again in a little while.`,
  ];
}

/** A JSON value for a terminal: every key and string through the sanitizer (server text inside). */
export function cleanForTerminal(value: unknown): unknown {
  if (typeof value === 'string') return sanitize(value, { singleLine: true, maxLength: 2000 });
  if (Array.isArray(value)) return value.map(cleanForTerminal);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [sanitize(k, { singleLine: true, maxLength: 200 }), cleanForTerminal(v)]));
  }
  return value;
}

/** One Ctrl-C over several tasks: what is still waiting, by the refs a person can type, and how to come back. */
function presentInterrupted(ctx: Context, waiting: TaskReport[], active: boolean): void {
  const refOf = (r: TaskReport) => `${refFor(r.target)} (${safeName(r.target.record.operation.name, 80)})`;
  const input = waiting.filter((r) => r.end.kind === 'needs-input' || r.end.snapshot?.status === 'input_required');
  const running = waiting.filter((r) => !input.includes(r));
  stderrLine(ctx, 'mcp-tasks: interrupted; every task keeps running on the server and its handle is kept.');
  if (input.length) stderrLine(ctx, `  waiting for input: ${input.map(refOf).join(', ')}`);
  if (running.length) stderrLine(ctx, `  still running: ${running.map(refOf).join(', ')}`);
  const resume = active ? cmd('watch', '--active') : cmd('watch', ...waiting.map((r) => refFor(r.target)));
  const one = input.length ? hint` (or \`${cmd('answer', refFor(input[0]!.target))}\` for one)` : '';
  stderrLine(ctx, hint`  next: \`${resume}\` to follow ${waiting.length === 1 ? 'it' : 'them'} again${one}.`);
}
