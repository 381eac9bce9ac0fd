// What the client knows about a task at one moment: a validated DetailedTask from tasks/get
// (or a CreateTaskResult), independent of wire framing.
import type { TaskStatus } from '../protocol/constants.js';

export interface InputRequestSnapshot {
  method: string;
  params?: Record<string, unknown>;
}

export interface TaskSnapshot {
  taskId: string;
  status: TaskStatus;
  statusMessage?: string;
  createdAt: string;
  lastUpdatedAt: string;
  ttlMs: number | null;
  pollIntervalMs?: number;
  inputRequests?: Record<string, InputRequestSnapshot>;
  /** For tools/call, a CallToolResult. */
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
}

/** A change worth reporting: status, message, poll interval or pending input keys differ. */
export function snapshotChanged(prev: TaskSnapshot | undefined, next: TaskSnapshot): boolean {
  if (!prev) return true;
  return (
    prev.status !== next.status ||
    prev.statusMessage !== next.statusMessage ||
    prev.pollIntervalMs !== next.pollIntervalMs ||
    Object.keys(prev.inputRequests ?? {}).join('\0') !== Object.keys(next.inputRequests ?? {}).join('\0')
  );
}

/** Whether a completed task carries a tool error (`isError: true`). */
export const isToolError = (s: TaskSnapshot): boolean => s.status === 'completed' && s.result?.isError === true;

/** The moment the server may forget the task, or undefined when ttlMs is null. */
export function expiresAtMs(s: Pick<TaskSnapshot, 'createdAt' | 'ttlMs'>): number | undefined {
  if (s.ttlMs === null) return undefined;
  const created = Date.parse(s.createdAt);
  return Number.isFinite(created) ? created + s.ttlMs : undefined;
}

/** JSON with object keys sorted at every level: equal values compare equal whatever the key order. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** A result as compared between two answers: its `_meta` (related-task ids, progress) is framing, not outcome. */
const outcomeOf = (r: Record<string, unknown>) => canonical({ ...r, _meta: undefined });

/**
 * How a later terminal answer differs from the terminal state first stored: another status, or
 * the same status with another result or error. Undefined when it says the same (or only adds
 * what the first lacked). Both must be terminal.
 */
export function terminalDifference(first: TaskSnapshot, later: TaskSnapshot): 'status' | 'result' | 'error' | undefined {
  if (first.status !== later.status) return 'status';
  if (first.result && later.result && outcomeOf(first.result) !== outcomeOf(later.result)) return 'result';
  if (first.error && later.error && canonical(first.error) !== canonical(later.error)) return 'error';
  return undefined;
}
