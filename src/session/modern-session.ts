// The 2026-07-28 generation: the io.modelcontextprotocol/tasks extension over a stateless
// connection (server/discover, per-request envelope). No session to keep; no list, no result.
import type { Connection } from '../connection/connect.js';
import { callTool, cancelTask, getTask, updateTask } from '../protocol/task-wire.js';
import type { CallToolParams, RequestOptions, TaskSession, ToolCallOutcome, ToolInfo } from './task-session.js';
import type { RefusedTool } from '../connection/connect.js';
import type { TaskSnapshot } from '../tasks/task-snapshot.js';

export class ModernTaskSession implements TaskSession {
  readonly generation = '2026-07-28' as const;

  constructor(private readonly conn: Connection) {}

  get serverName(): string {
    return this.conn.entry.name;
  }
  get protocolVersion(): string {
    return this.conn.protocolVersion;
  }
  get serverInfo(): { name: string; version: string } | undefined {
    return this.conn.serverInfo;
  }
  get tasksAdvertised(): boolean {
    return this.conn.tasksAdvertised;
  }
  resumeState(): undefined {
    return undefined;
  }
  listTools(): Promise<ToolInfo[]> {
    return this.conn.listTools();
  }
  refusedTools(): RefusedTool[] {
    return this.conn.refusedTools();
  }
  adoptTools(tools: ToolInfo[]): ToolInfo[] {
    return this.conn.adoptTools(tools);
  }
  callTool(params: CallToolParams, opts?: RequestOptions): Promise<ToolCallOutcome> {
    return callTool(this.conn, params, opts);
  }
  getTask(taskId: string, opts?: RequestOptions): Promise<TaskSnapshot> {
    return getTask(this.conn, taskId, opts);
  }
  updateTask(taskId: string, inputResponses: Record<string, unknown>): Promise<void> {
    return updateTask(this.conn, taskId, inputResponses);
  }
  cancelTask(taskId: string): Promise<void> {
    return cancelTask(this.conn, taskId);
  }
  close(): Promise<void> {
    return this.conn.close();
  }
}
