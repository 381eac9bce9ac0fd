// One round of answering input requests, shared by `answer`, `watch`, `call` (including input
// asked before a task exists): scripted answers from --answers, declines and cancels, roots from
// the server entry, then prompts in a terminal. Every response is checked before anything is
// sent; keys answered before are never answered again.
import { readFileArg, type Context } from '../context.js';
import { sayOn, writePromptText } from '../output/notes.js';
import { CliError } from '../errors.js';
import { makeStyle, shortTaskId } from '../output/render.js';
import { sanitize } from '../output/sanitize.js';
import { askForInput } from '../prompts/input-prompts.js';
import { describeIdentity, identityOf, type ServerEntry } from '../servers/server-entry.js';
import { acceptedAsOffered, checkResponse, planAnswers, withFormDefaults, type AnswerPlan } from '../tasks/input-responses.js';
import type { InputRequestSnapshot } from '../tasks/task-snapshot.js';
import type { TaskScope } from './with-task.js';
import type { TaskSnapshot } from '../tasks/task-snapshot.js';
import { answerClaimOf, originText, type InputAnswerClaim, type Origin, type VaultRecord } from '../vault/vault-record.js';
import { originOf } from '../vault/origin.js';
import { relistedKeys, stuckSinceAnswer } from '../tasks/input-stuck.js';
import { DEFAULT_INPUT_STUCK_AFTER_MS } from '../tasks/poll.js';
import { stuckPeriodFrom } from './follow.js';
import { refFor } from '../output/present.js';
import { cmd, hint, renderHint } from '../hint.js';

export interface AnswerSource {
  /** Path of a JSON answers file, or - for stdin. */
  answers?: string | undefined;
  decline?: string[] | undefined;
  cancel?: string[] | undefined;
  /** Keys answered before that get a new answer on purpose (`answer --again KEY`). */
  again?: string[] | undefined;
  /** Responses built from inline `field=value` answers, by key (merged with the file's). */
  inline?: Record<string, unknown> | undefined;
  /** What to type to come back to the task, for the hint when an answer does not fit. */
  ref?: string;
  /** The task's id, when one exists: server text that repeats it shows it shortened. */
  taskId?: string | undefined;
  /** `--accept-defaults`: a form nobody else answers, whose required fields all have defaults, is accepted with them. */
  acceptDefaults?: boolean | undefined;
}

/** The answers file (`-`: stdin, read once by the Context, so every reader sees the same text). */
export function readAnswers(ctx: Pick<Context, 'stdin'>, path: string | undefined): Record<string, unknown> {
  if (path === undefined) return {};
  let text: string;
  try {
    text = readFileArg(ctx.stdin, path);
  } catch (err) {
    throw new CliError('invalid-input', `cannot read --answers ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, 'Check the path.');
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new CliError('invalid-input', `--answers ${path} is not valid JSON: ${(err as Error).message}`, 'It maps each input request key to its response, e.g. {"confirm":{"action":"accept","content":{"confirm":true}}}.');
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new CliError('invalid-input', `--answers ${path} must be a JSON object keyed by input request key`, 'e.g. {"confirm":{"action":"accept","content":{"confirm":true}}}');
  }
  return parsed as Record<string, unknown>;
}

/** Who is asking, for the head of every prompt. */
export function askerHeader(entry: ServerEntry, home: string, toolName: string, taskId: string | undefined): string {
  return `server ${entry.name}: ${describeIdentity(identityOf(entry, home))}\n  for ${toolName}${taskId ? `, task ${shortTaskId(taskId)}` : ' (before any task exists)'}`;
}

export interface RoundResult extends AnswerPlan {
  sent: string[];
}

/**
 * Work out the responses for `pending`. Throws (nothing sent) when a scripted response does not
 * fit its request. Prompts only when the context is interactive.
 */
export async function collectResponses(
  ctx: Context,
  entry: ServerEntry,
  header: string,
  pending: Record<string, InputRequestSnapshot>,
  answeredBefore: readonly string[],
  src: AnswerSource,
): Promise<AnswerPlan> {
  const fromFile = readAnswers(ctx, src.answers);
  for (const key of Object.keys(src.inline ?? {})) {
    if (Object.hasOwn(fromFile, key)) throw new CliError('invalid-input', `"${sanitize(key, { singleLine: true, maxLength: 80 })}" is answered both inline and in --answers; nothing was sent`, 'Give each key one answer.');
  }
  const plan = planAnswers(pending, answeredBefore, { ...fromFile, ...(src.inline ?? {}) }, src.decline ?? [], src.cancel ?? []);
  if (plan.errors.length) {
    const shape = src.ref ? hint`\`${cmd('answer', src.ref, '--template')}\` prints what each request asks` : 'the input requests above say what each one asks';
    throw new CliError('invalid-input', `nothing was sent: ${plan.errors.map((e) => sanitize(e, { singleLine: true, maxLength: 300 })).join('; ')}`, hint`Fix the answers (${shape}) and answer again; nothing was sent, so that is safe.`);
  }
  const roots = entry.roots ?? [];
  const st = makeStyle(ctx.color);
  const left: string[] = [];
  for (const key of plan.unanswered) {
    const request = pending[key]!;
    if (request.method === 'roots/list') {
      plan.send[key] = { roots: roots.map((uri) => ({ uri })) };
      continue;
    }
    const offered = src.acceptDefaults ? acceptedAsOffered(request) : undefined;
    if (offered !== undefined) {
      plan.send[key] = offered;
      continue;
    }
    if (!ctx.interactive) {
      left.push(key);
      continue;
    }
    // A field the person left empty gets the form's default, as an answers file does.
    const comeBack = src.ref ? renderHint(cmd('answer', src.ref), ctx.invocation) : undefined;
    const response = withFormDefaults(request, await askForInput({ prompter: ctx.prompter, st, write: writePromptText(ctx), header, platform: ctx.platform, env: ctx.env, comeBack, taskId: src.taskId }, key, request, roots));
    if (response === undefined) {
      left.push(key);
      continue;
    }
    const problem = checkResponse(key, request, response);
    if (problem) throw new CliError('invalid-input', problem, 'Answer again.');
    plan.send[key] = response;
  }
  plan.unanswered = left;
  return plan;
}

/**
 * Every key the server lists was answered before: stuck (relisted) once the answer is old enough
 * to be evidence, else awaiting (the server may not have taken it yet). Nothing when a key is new.
 */
export function relistedOrAwaiting(ctx: Context, record: VaultRecord, snapshot: TaskSnapshot): { relisted?: string[]; awaiting?: string[] } {
  const keys = relistedKeys(Object.keys(snapshot.inputRequests ?? {}), record.inputKeysAnswered);
  if (keys.length === 0) return {};
  const answeredAt = record.inputAnsweredAt === undefined ? undefined : Date.parse(record.inputAnsweredAt);
  return stuckSinceAnswer(answeredAt, ctx.now(), stuckPeriodFrom(ctx.env) ?? DEFAULT_INPUT_STUCK_AFTER_MS) ? { relisted: keys } : { awaiting: keys };
}

/** A key answered before, in one line: by whom and when, where the record says. */
function answeredBeforeLine(key: string, claim: InputAnswerClaim | undefined): string {
  const by = claim ? ` by ${sanitize(originText(claim.by), { singleLine: true, maxLength: 300 })} at ${sanitize(claim.at, { singleLine: true, maxLength: 40 })}` : '';
  return `not sent: "${sanitize(key, { singleLine: true, maxLength: 80 })}" was answered before${by}, and a key is never answered twice`;
}

/** What a claim took, and what the record said of those keys before it (to give it back). */
interface Claimed {
  /** The keys this process claimed: it sends them. */
  mine: string[];
  /** Keys someone else claimed first, with who and when where the record says. */
  taken: Array<[string, InputAnswerClaim | undefined]>;
  /** Of `mine`: the claim each had before (an `--again` key), and whether it was answered already. */
  before: Map<string, { claim: InputAnswerClaim | undefined; answered: boolean }>;
  answeredAtBefore: string | undefined;
}

/** The record's claim on `key` becomes `claim` (none: no claim). */
function setClaim(r: VaultRecord, key: string, claim: InputAnswerClaim | undefined): void {
  const rest = (r.inputAnsweredBy ?? []).filter((c) => c.key !== key);
  if (claim) rest.push(claim);
  if (rest.length) r.inputAnsweredBy = rest;
  else delete r.inputAnsweredBy;
}

/**
 * Claim `keys` in the store before anything is sent: one locked write (SELECT … FOR UPDATE on the
 * team store, the record's lock in the file vault) marks each key answered, by this origin, now.
 * A key another process claimed first (another machine answering the same request at the same
 * moment) is not ours: it comes back in `taken`, with who claimed it and when. `again` keys are
 * claimed whatever the record says (a new answer on purpose). No lock outlives the write.
 */
async function claimKeys(scope: TaskScope, keys: readonly string[], again: ReadonlySet<string>, at: string, by: Origin): Promise<Claimed> {
  const out: Claimed = { mine: [], taken: [], before: new Map(), answeredAtBefore: undefined };
  await scope.update((r) => {
    // The change sees the record as the store holds it now, maybe fresher than the plan's: decide on it alone.
    out.mine = [];
    out.taken = [];
    out.before.clear();
    out.answeredAtBefore = r.inputAnsweredAt;
    for (const key of keys) {
      const answered = r.inputKeysAnswered.includes(key);
      if (answered && !again.has(key)) {
        out.taken.push([key, answerClaimOf(r, key)]);
        continue;
      }
      out.before.set(key, { claim: answerClaimOf(r, key), answered });
      out.mine.push(key);
      if (!answered) r.inputKeysAnswered.push(key);
      setClaim(r, key, { key, at, by });
    }
    if (out.mine.length) {
      r.inputAnsweredAt = at;
      r.updatedAt = at;
    }
  });
  return out;
}

/**
 * The tasks/update did not go through: the claims this process made are given back (where no
 * one claimed the key since), so the key can be answered again, as before claims existed.
 */
async function releaseKeys(scope: TaskScope, claimed: Claimed, at: string, by: Origin): Promise<void> {
  const ours = (c: InputAnswerClaim | undefined) => c !== undefined && c.at === at && originText(c.by) === originText(by);
  await scope.update((r) => {
    for (const key of claimed.mine) {
      if (!ours(answerClaimOf(r, key))) continue;
      const prev = claimed.before.get(key);
      setClaim(r, key, prev?.claim);
      if (!prev?.answered) r.inputKeysAnswered = r.inputKeysAnswered.filter((k) => k !== key);
    }
    if (r.inputAnsweredAt === at) {
      if (claimed.answeredAtBefore === undefined) delete r.inputAnsweredAt;
      else r.inputAnsweredAt = claimed.answeredAtBefore;
    }
  });
}

/**
 * Answer a task's pending input with tasks/update. Claim first, then send: the keys are marked
 * answered in the store before the request leaves, so two processes (two machines on one team
 * store) answering the same request at once send one tasks/update between them; the other is
 * told who answered and when. A failed send gives the claim back. A process killed between the
 * claim and the send leaves the key answered but never sent: the server keeps listing it, and
 * `answer --again KEY` (offered once that is evidence) sends it on purpose.
 */
export async function answerTaskRound(scope: TaskScope, pending: Record<string, InputRequestSnapshot>, src: AnswerSource): Promise<RoundResult> {
  const { ctx, session, target } = scope;
  const header = askerHeader(target.entry, ctx.home, target.record.operation.name, target.taskId);
  const again = new Set(src.again ?? []);
  const plan = await collectResponses(ctx, target.entry, header, pending, target.record.inputKeysAnswered.filter((k) => !again.has(k)), { ...src, ref: src.ref ?? refFor(target), taskId: target.taskId });
  const say = sayOn(ctx);
  for (const key of plan.stale) say(`not sent: "${sanitize(key, { singleLine: true, maxLength: 80 })}" is not (or no longer) requested by the server`);
  for (const key of plan.alreadyAnswered) say(answeredBeforeLine(key, answerClaimOf(target.record, key)));
  if (Object.keys(plan.send).length === 0) return { ...plan, sent: [] };
  const at = new Date(ctx.now()).toISOString();
  const by = originOf(ctx.env);
  const claimed = await claimKeys(scope, Object.keys(plan.send), again, at, by);
  for (const [key, claim] of claimed.taken) {
    // Answered by someone else since this round began: theirs is the one answer.
    say(answeredBeforeLine(key, claim));
    plan.alreadyAnswered.push(key);
    delete plan.send[key];
  }
  const keys = claimed.mine;
  if (keys.length === 0) return { ...plan, sent: [] };
  try {
    await session.updateTask(target.taskId, plan.send);
  } catch (err) {
    await releaseKeys(scope, claimed, at, by).catch((e: unknown) => ctx.debug(`could not give back the claim on ${keys.join(', ')}: ${String(e)}`));
    throw err;
  }
  if (!ctx.json) say(`answered ${keys.map((k) => `"${sanitize(k, { singleLine: true, maxLength: 80 })}"`).join(', ')}`);
  return { ...plan, sent: keys };
}

/** For watch and call: answer when we can (a terminal, or --answers), else stop with exit 5. */
export function inputHandler(scope: TaskScope, src: AnswerSource) {
  return (s: { inputRequests?: Record<string, InputRequestSnapshot> }): Promise<'answered' | 'stop'> => {
    // One person, one prompt at a time: several watched tasks asking at once take turns.
    return scope.ctx.promptTurn(() => handle(s));
  };
  async function handle(s: { inputRequests?: Record<string, InputRequestSnapshot> }): Promise<'answered' | 'stop'> {
    // A turn that comes up after Ctrl-C opens no prompt: the watch is ending.
    if (scope.ctx.interrupt.aborted) return 'stop';
    // Without a person or a file, configured roots can still be sent; anything else stops with exit 5.
    const round = await answerTaskRound(scope, s.inputRequests ?? {}, src);
    if (round.sent.length > 0) return 'answered';
    // Nothing new could be sent; keys answered before may still be listed while the server catches up.
    return round.alreadyAnswered.length > 0 && round.unanswered.length === 0 ? 'answered' : 'stop';
  }
}

/**
 * For watch and call, when the server still lists answered keys after the notice and another
 * equal period: a person is asked what to do; without one, the watch ends (exit 5).
 */
export function relistedHandler(scope: TaskScope, src: AnswerSource) {
  return (s: { inputRequests?: Record<string, InputRequestSnapshot> }): Promise<'answered' | 'wait' | 'stop'> => scope.ctx.promptTurn(() => handle(s));
  async function handle(s: { inputRequests?: Record<string, InputRequestSnapshot> }): Promise<'answered' | 'wait' | 'stop'> {
    const { ctx } = scope;
    if (!ctx.interactive) return 'stop';
    const keys = Object.keys(s.inputRequests ?? {});
    const names = keys.map((k) => `"${sanitize(k, { singleLine: true, maxLength: 80 })}"`).join(', ');
    const choice = await ctx.prompter.select<'again' | 'wait' | 'stop'>(`The server keeps asking for ${names}, already answered. What now?`, [
      { name: 'Send a new answer', value: 'again' },
      { name: 'Keep waiting', value: 'wait' },
      { name: 'Stop watching (the task stays on the server)', value: 'stop' },
    ]);
    if (choice !== 'again') return choice;
    const round = await answerTaskRound(scope, s.inputRequests ?? {}, { ...src, again: keys });
    return round.sent.length > 0 ? 'answered' : 'stop';
  }
}
