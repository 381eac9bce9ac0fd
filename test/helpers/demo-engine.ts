// Unit-test fixture for the demo server's task runtime: a real FileTaskStore on a temp file and
// a real TaskEngine/TaskSurface, driven by an injected clock so timelines are exact.
import assert from 'node:assert/strict';
import { CreateTaskResultV2Schema, GetTaskResultV2Schema } from '@modelcontextprotocol/ext-tasks/core/v2';
import { NO_FAULTS, RpcError, TaskEngine, type Faults } from '../../src/demo/task-engine.js';
import { FileTaskStore } from '../../src/demo/task-store.js';
import { TaskSurface, type RpcRequest } from '../../src/demo/task-surface.js';
import { findTool, type DemoTool } from '../../src/demo/tools.js';
import { assertSchema, envelope, tempStorePath, type HasAfter, type Json } from './demo-server.js';

/** An arbitrary, fixed start time: every timeline is measured from here. */
export const T0 = Date.parse('2026-07-28T12:00:00.000Z');
export const iso = (offsetMs: number) => new Date(T0 + offsetMs).toISOString();

export interface EngineFixture {
  path: string;
  store: FileTaskStore;
  engine: TaskEngine;
  surface: TaskSurface;
  /** The injected clock, in ms since epoch. */
  now(): number;
  /** Set the clock to T0 + `offsetMs`. */
  at(offsetMs: number): void;
  /** Create a task for `tool` at the current time; validated as a CreateTaskResult. */
  create(tool: string, args?: Record<string, unknown>, opts?: { idempotencyKey?: string; answers?: Record<string, unknown> }): Json;
  /** tasks/get at T0 + `offsetMs`; validated as a GetTaskResult. */
  getAt(taskId: string, offsetMs: number): Promise<Json>;
  /** A tools/call / tasks/* request through the surface, with the envelope. */
  handle(method: string, params: Record<string, unknown>, opts?: { tasks?: boolean; capabilities?: Record<string, unknown>; meta?: Record<string, unknown> }): ReturnType<TaskSurface['handle']>;
}

export function tool(name: string): DemoTool {
  const t = findTool(name);
  assert.ok(t, `no demo tool ${name}`);
  return t;
}

let reqId = 1;

export function engineFixture(t: HasAfter, faults: Partial<Faults> = {}, path = tempStorePath(t)): EngineFixture {
  let clock = T0;
  const now = () => clock;
  const store = new FileTaskStore(path, now).open();
  const engine = new TaskEngine(store, { ...NO_FAULTS, ...faults }, now);
  const surface = new TaskSurface(engine);
  const fx: EngineFixture = {
    path,
    store,
    engine,
    surface,
    now,
    at: (offsetMs) => {
      clock = T0 + offsetMs;
    },
    create: (name, args = {}, opts = {}) => {
      const { result } = engine.create(tool(name), args, opts);
      assertSchema(CreateTaskResultV2Schema, result, `CreateTaskResult of ${name}`);
      return result;
    },
    getAt: async (taskId, offsetMs) => {
      fx.at(offsetMs);
      const r = await engine.get({ taskId });
      assertSchema(GetTaskResultV2Schema, r, `tasks/get at +${offsetMs} ms`);
      return r;
    },
    handle: (method, params, opts = {}) => {
      const req: RpcRequest = {
        jsonrpc: '2.0',
        id: reqId++,
        method,
        params: { ...params, _meta: { ...envelope(opts.tasks ?? true, opts.capabilities), ...(opts.meta ?? {}) } },
      };
      return surface.handle(req);
    },
  };
  return fx;
}

/** Assert that `fn` throws (or rejects with) an RpcError carrying `code`; returns it. */
export async function rejectsRpc(fn: () => unknown, code: number): Promise<RpcError> {
  let caught: unknown;
  try {
    await fn();
  } catch (err) {
    caught = err;
  }
  assert.ok(caught instanceof RpcError, `expected RpcError ${code}, got ${caught === undefined ? 'no error' : String(caught)}`);
  assert.equal(caught.code, code, `expected code ${code}, got ${caught.code} (${caught.message})`);
  return caught;
}
