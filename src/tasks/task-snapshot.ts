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
