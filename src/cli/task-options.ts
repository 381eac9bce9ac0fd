// Flags → typed, validated options for the task commands (gh's XxxOptions): parsed here, before
// any command module loads, so a bad flag fails fast and flag parsing is testable on its own
// with an injected run function (see buildProgram's `runners`).
import type { TargetOptions } from '../app/task-target.js';
import { parseDuration } from './duration.js';
import { parseLabels } from '../app/labels.js';

export type GetOptions = TargetOptions;

import type { WatchOptions } from '../app/watch.js';
export type { WatchOptions };

export interface AnswerOptions extends TargetOptions {
  answers?: string;
  acceptDefaults?: boolean;
  decline?: string[];
  cancel?: string[];
  /** Keys answered before that get a new answer on purpose. */
  again?: string[];
  /** Print the answers file's skeleton instead of answering. */
  template?: boolean;
  /** Inline answers: field=value (one pending form) or KEY.field=value; key:=json typed. */
  pairs?: string[];
}

export interface CancelOptions extends TargetOptions {
  wait?: boolean;
  timeoutMs?: number;
  /** Send tasks/cancel even when the vault holds a terminal state. */
  force?: boolean;
}

import type { CallOptions } from '../app/call.js';
export type { CallOptions };

type Flags = Record<string, unknown>;
const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
const strs = (v: unknown) => (Array.isArray(v) ? (v as string[]) : undefined);
/** The set flags only: an unset flag is absent, never a property holding undefined. */
type SetFlags<T> = { [K in keyof T]?: Exclude<T[K], undefined> };
const pick = <T extends object>(o: T) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined && v !== false)) as SetFlags<T>;

const targetOptions = (f: Flags): TargetOptions => pick({ server: str(f.server), save: f.save === true || undefined, rebind: f.rebind === true || undefined, yes: f.yes === true || undefined, saveAnyway: f.new === true || undefined });
const timeoutOf = (f: Flags) => (str(f.timeout) !== undefined ? parseDuration(str(f.timeout)!) : undefined);

export const getOptions = (f: Flags): GetOptions => targetOptions(f);
export const watchOptions = (f: Flags): WatchOptions => pick({ ...targetOptions(f), timeoutMs: timeoutOf(f), answers: str(f.answers), acceptDefaults: f.acceptDefaults === true || undefined, active: f.active === true || undefined, poll: f.poll === true || undefined });
export const answerOptions = (f: Flags): AnswerOptions => pick({ ...targetOptions(f), answers: str(f.answers), acceptDefaults: f.acceptDefaults === true || undefined, decline: strs(f.decline), cancel: strs(f.cancel), again: strs(f.again), template: f.template === true || undefined });
export const cancelOptions = (f: Flags): CancelOptions => pick({ ...targetOptions(f), wait: f.wait === true || undefined, timeoutMs: timeoutOf(f), force: f.force === true || undefined });
export const callOptions = (f: Flags): CallOptions => {
  const timeoutMs = timeoutOf(f);
  return { ...pick({ argsJson: str(f.argsJson), argsFile: str(f.argsFile), detach: f.detach === true || undefined, timeoutMs, answers: str(f.answers), acceptDefaults: f.acceptDefaults === true || undefined, idempotencyKey: str(f.idempotencyKey), sendAnyway: f.new === true || undefined }), labels: parseLabels(strs(f.label)) };
};
