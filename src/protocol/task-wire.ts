// The tasks wire: raw tools/call and tasks/* requests, every answer validated with the
// @modelcontextprotocol/ext-tasks core/v2 schemas. A malformed answer is a protocol error
// from that server, never a crash.
import {
  CallToolResultV2Schema,
  CancelTaskResultV2Schema,
  CreateTaskResultV2Schema,
  GetTaskResultV2Schema,
  TaskStatusNotificationParamsV2Schema,
  UpdateTaskResultV2Schema,
} from '@modelcontextprotocol/ext-tasks/core/v2';
import { ProtocolViolationError } from './remote-errors.js';
import type { TaskSnapshot, InputRequestSnapshot } from '../tasks/task-snapshot.js';
import type { TaskStatus } from './constants.js';

/** Anything that can send one raw JSON-RPC request (a Connection). */
export interface RequestSender {
  request(method: string, params: Record<string, unknown>, opts?: { timeoutMs?: number; signal?: AbortSignal }): Promise<unknown>;
}

/** A tool as tools/list lists it (the fields mcp-tasks reads). */
export interface ToolInfo {
  name: string;
  title?: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  annotations?: { readOnlyHint?: boolean; destructiveHint?: boolean; idempotentHint?: boolean; openWorldHint?: boolean; title?: string };
  /** 2025-11-25: whether tools/call may (optional), must (required) or must not (forbidden) ask for a task. */
  execution?: { taskSupport?: 'required' | 'optional' | 'forbidden' };
}

export type CallToolResult = Record<string, unknown> & { content?: unknown[]; isError?: boolean; structuredContent?: unknown };

export type ToolCallOutcome =
  /** `problems`: what was wrong with a CreateTaskResult that was kept for its readable taskId. */
  | { kind: 'task'; task: TaskSnapshot; problems?: string[] }
  | { kind: 'complete'; result: CallToolResult }
  /**
   * `callOpen`: the input is asked by a tools/call that is still open on the server (2025-11-25
   * plain calls): the request reached the server, which may have done work before it asked.
   */
  | { kind: 'input_required'; inputRequests: Record<string, InputRequestSnapshot>; requestState?: string; callOpen?: true };

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

const STATUSES = new Set<string>(['working', 'input_required', 'completed', 'failed', 'cancelled']);

/**
 * A CreateTaskResult that fails validation but names a taskId: the server has created the task,
 * so the handle is kept. Every field that can be read is kept; the rest gets a safe default
 * (status `working`: the next tasks/get says the truth) and is reported.
 */
function lenientTask(raw: Record<string, unknown>, nowIso: string): { task: TaskSnapshot; problems: string[] } | undefined {
  const taskId = raw.taskId;
  if (typeof taskId !== 'string' || taskId.length === 0 || taskId.length > 4096) return undefined;
  const problems: string[] = [];
  const str = (k: string): string | undefined => {
    const v = raw[k];
    if (typeof v === 'string') return v;
    problems.push(v === undefined ? `${k} is missing` : `${k} is not a string`);
    return undefined;
  };
  const status = raw.status;
  const task: TaskSnapshot = {
    taskId,
    status: typeof status === 'string' && STATUSES.has(status) ? (status as TaskStatus) : 'working',
    createdAt: str('createdAt') ?? nowIso,
    lastUpdatedAt: str('lastUpdatedAt') ?? nowIso,
    ttlMs: typeof raw.ttlMs === 'number' && raw.ttlMs >= 0 ? raw.ttlMs : null,
  };
  if (!(typeof status === 'string' && STATUSES.has(status))) problems.push(`status ${JSON.stringify(status)?.slice(0, 40) ?? 'is missing'} is not a task status`);
  if (raw.ttlMs !== undefined && raw.ttlMs !== null && !(typeof raw.ttlMs === 'number' && raw.ttlMs >= 0)) problems.push('ttlMs is not a non-negative number');
  if (typeof raw.statusMessage === 'string') task.statusMessage = raw.statusMessage;
  if (typeof raw.pollIntervalMs === 'number' && raw.pollIntervalMs >= 0) task.pollIntervalMs = raw.pollIntervalMs;
  else if (raw.pollIntervalMs !== undefined) problems.push('pollIntervalMs is not a number');
  if (problems.length === 0) problems.push('it does not match the CreateTaskResult schema');
  return { task, problems };
}

/** The task an invalid answer names, flat (this generation) or wrapped in `task` (2025-11-25). */
export function readableTask(raw: unknown): { task: TaskSnapshot; problems: string[] } | undefined {
  if (!raw || typeof raw !== 'object') return undefined;
  const r = raw as Record<string, unknown>;
  const nowIso = new Date().toISOString();
  if (typeof r.taskId === 'string') return lenientTask(r, nowIso);
  if (r.task && typeof r.task === 'object') return lenientTask(r.task as Record<string, unknown>, nowIso);
  return undefined;
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
  if (t.error) s.error = t.error as NonNullable<TaskSnapshot['error']>;
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
    const parsed = CreateTaskResultV2Schema.safeParse(raw);
    if (parsed.success) return { kind: 'task', task: toSnapshot(parsed.data as Record<string, unknown>) };
    // The task exists on the server: a readable taskId is kept, whatever else is wrong.
    const kept = readableTask(raw);
    if (kept) return { kind: 'task', task: kept.task, problems: kept.problems };
    validate(CreateTaskResultV2Schema, raw, 'CreateTaskResult');
    throw new ProtocolViolationError("the server's CreateTaskResult is malformed");
  }
  // A result without resultType is how a server that ignored the envelope answers: treat as complete.
  const value = resultType === undefined && raw && typeof raw === 'object' ? { ...raw, resultType: 'complete' } : raw;
  const checked = CallToolResultV2Schema.safeParse(value);
  if (!checked.success) {
    // Not a valid result, but it names a task (a wrong or missing resultType): keep the handle.
    const kept = readableTask(raw);
    if (kept) return { kind: 'task', task: kept.task, problems: [`resultType ${JSON.stringify(resultType)?.slice(0, 40) ?? 'is missing'} is not "task"`, ...kept.problems.filter((p) => !p.startsWith('it does not'))] };
  }
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

/**
 * The params of a `notifications/tasks`: a full DetailedTask, validated with the same rigour as
 * a tasks/get answer. `taskId` is what the params name (when readable), so a malformed state
 * can be refused for the task it claims to be about.
 */
export function readTaskNotification(params: unknown): { taskId?: string; task?: TaskSnapshot; error?: ProtocolViolationError } {
  const named = (params as { taskId?: unknown } | null)?.taskId;
  const taskId = typeof named === 'string' ? named : undefined;
  try {
    const task = toSnapshot(validate<Record<string, unknown>>(TaskStatusNotificationParamsV2Schema, params, 'notifications/tasks state'));
    return { taskId: task.taskId, task };
  } catch (err) {
    if (!(err instanceof ProtocolViolationError)) throw err;
    return { ...(taskId !== undefined ? { taskId } : {}), error: err };
  }
}

export async function updateTask(conn: RequestSender, taskId: string, inputResponses: Record<string, unknown>): Promise<void> {
  const raw = await conn.request('tasks/update', { taskId, inputResponses });
  validate(UpdateTaskResultV2Schema, raw, 'tasks/update acknowledgement');
}

export async function cancelTask(conn: RequestSender, taskId: string): Promise<void> {
  const raw = await conn.request('tasks/cancel', { taskId });
  validate(CancelTaskResultV2Schema, raw, 'tasks/cancel acknowledgement');
}
