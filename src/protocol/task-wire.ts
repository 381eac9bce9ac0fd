// The tasks wire: raw tools/call and tasks/* requests, every answer validated with the
// @modelcontextprotocol/ext-tasks core/v2 schemas. A malformed answer is a protocol error
// from that server, never a crash.
import {
  CallToolResultV2Schema,
  CancelTaskResultV2Schema,
  CreateTaskResultV2Schema,
  GetTaskResultV2Schema,
  UpdateTaskResultV2Schema,
} from '@modelcontextprotocol/ext-tasks/core/v2';
import { ProtocolViolationError } from './remote-errors.js';
import type { TaskSnapshot, InputRequestSnapshot } from '../tasks/task-snapshot.js';
import type { TaskStatus } from './constants.js';

/** Anything that can send one raw JSON-RPC request (a Connection). */
export interface RequestSender {
  request(method: string, params: Record<string, unknown>, opts?: { timeoutMs?: number; signal?: AbortSignal }): Promise<unknown>;
}

export type CallToolResult = Record<string, unknown> & { content?: unknown[]; isError?: boolean; structuredContent?: unknown };

export type ToolCallOutcome =
  | { kind: 'task'; task: TaskSnapshot }
  | { kind: 'complete'; result: CallToolResult }
  | { kind: 'input_required'; inputRequests: Record<string, InputRequestSnapshot>; requestState?: string };

interface SafeParser {
  safeParse(v: unknown): { success: true; data: unknown } | { success: false; error: { issues: Array<{ path: PropertyKey[]; message: string }> } };
}

function validate<T>(schema: SafeParser, value: unknown, what: string): T {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data as T;
  const issue = parsed.error.issues[0];
  const where = issue && issue.path.length ? issue.path.map(String).join('.') : '(top level)';
  throw new ProtocolViolationError(`the server's ${what} is malformed: ${where}: ${issue?.message ?? 'invalid'}`);
}

function toSnapshot(t: Record<string, unknown>): TaskSnapshot {
  const s: TaskSnapshot = {
    taskId: t.taskId as string,
    status: t.status as TaskStatus,
    createdAt: t.createdAt as string,
    lastUpdatedAt: t.lastUpdatedAt as string,
    ttlMs: (t.ttlMs as number | null) ?? null,
  };
  if (typeof t.statusMessage === 'string') s.statusMessage = t.statusMessage;
  if (typeof t.pollIntervalMs === 'number') s.pollIntervalMs = t.pollIntervalMs;
  if (t.inputRequests) s.inputRequests = t.inputRequests as Record<string, InputRequestSnapshot>;
  if (t.result) s.result = t.result as Record<string, unknown>;
  if (t.error) s.error = t.error as TaskSnapshot['error'];
  return s;
}

export interface CallToolParams {
  name: string;
  arguments: Record<string, unknown>;
  meta?: Record<string, unknown>;
  /** A multi round-trip retry: the answers and the server's opaque state, echoed byte for byte. */
  inputResponses?: Record<string, unknown>;
  requestState?: string;
}

export async function callTool(conn: RequestSender, p: CallToolParams, opts?: { signal?: AbortSignal; timeoutMs?: number }): Promise<ToolCallOutcome> {
  const params: Record<string, unknown> = { name: p.name, arguments: p.arguments };
  if (p.meta) params._meta = p.meta;
  if (p.inputResponses) params.inputResponses = p.inputResponses;
  if (p.requestState !== undefined) params.requestState = p.requestState;
  const raw = await conn.request('tools/call', params, opts);
  const resultType = (raw as { resultType?: unknown } | null)?.resultType;
  if (resultType === 'task') {
    return { kind: 'task', task: toSnapshot(validate<Record<string, unknown>>(CreateTaskResultV2Schema, raw, 'CreateTaskResult')) };
  }
  // A result without resultType is how a server that ignored the envelope answers: treat as complete.
  const value = resultType === undefined && raw && typeof raw === 'object' ? { ...raw, resultType: 'complete' } : raw;
  const result = validate<Record<string, unknown>>(CallToolResultV2Schema, value, 'tools/call result');
  if (result.resultType === 'input_required') {
    return {
      kind: 'input_required',
      inputRequests: (result.inputRequests ?? {}) as Record<string, InputRequestSnapshot>,
      ...(typeof result.requestState === 'string' ? { requestState: result.requestState } : {}),
    };
  }
  return { kind: 'complete', result: result as CallToolResult };
}

export async function getTask(conn: RequestSender, taskId: string, opts?: { signal?: AbortSignal; timeoutMs?: number }): Promise<TaskSnapshot> {
  const raw = await conn.request('tasks/get', { taskId }, opts);
  const task = toSnapshot(validate<Record<string, unknown>>(GetTaskResultV2Schema, raw, 'tasks/get result'));
  if (task.taskId !== taskId) throw new ProtocolViolationError('the server answered tasks/get with a different taskId');
  return task;
}

export async function updateTask(conn: RequestSender, taskId: string, inputResponses: Record<string, unknown>): Promise<void> {
  const raw = await conn.request('tasks/update', { taskId, inputResponses });
  validate(UpdateTaskResultV2Schema, raw, 'tasks/update acknowledgement');
}

export async function cancelTask(conn: RequestSender, taskId: string): Promise<void> {
  const raw = await conn.request('tasks/cancel', { taskId });
  validate(CancelTaskResultV2Schema, raw, 'tasks/cancel acknowledgement');
}
