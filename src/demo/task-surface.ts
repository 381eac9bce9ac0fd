// The part of the protocol the SDK does not serve: tasks/* and the task-creating side of
// tools/call. Both transports (HTTP and stdio) hand every request here first; `undefined`
// means "not ours, let the SDK answer it".
import { hasTaskClientCapabilityV2 } from '@modelcontextprotocol/ext-tasks/core/v2';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/server/validators/ajv';
import { ErrorCode, isTaskMethod, TASKS_EXTENSION_ID } from '../protocol/constants.js';
import { argumentsMessage } from '../tasks/schema-message.js';
import { capabilityNames, declaredCapabilities, missingCapabilities } from './input-capabilities.js';
import { IDEMPOTENCY_META_KEY, RpcError, type TaskEngine } from './task-engine.js';
import { findTool, hostileInputs, hostileText, plainKeys, plainText, type DemoTool, type InputRequest, type JsonObject, type RpcRequest } from './tools.js';
import type { StoredTask } from './task-store.js';
import { asksForTasks, TaskListenHub, type ListenOutcome, type StreamMessage } from './task-listen.js';

export type { RpcRequest };

export type SurfaceOutcome =
  | { kind: 'result'; result: JsonObject }
  | { kind: 'error'; code: number; message: string; data?: unknown }
  /** The task exists but the response must not be delivered (drop-create-response fault). */
  | { kind: 'drop' };

/** requestState for multi round-trip tools: the demo keeps no server state between rounds. */
const encodeState = (tool: string, args: JsonObject) => Buffer.from(JSON.stringify({ tool, args })).toString('base64url');

export class TaskSurface {
  private readonly hub: TaskListenHub;

  constructor(private readonly engine: TaskEngine) {
    this.hub = new TaskListenHub(engine);
  }

  /** Whether `request` is served here rather than by the SDK. */
  claims(request: RpcRequest): boolean {
    if (request.method.startsWith('tasks/')) return true;
    if (asksForTasks(request)) return true;
    if (request.method !== 'tools/call') return false;
    const tool = findTool(request.params?.name);
    return tool !== undefined && tool.taskSupport !== 'forbidden';
  }

  /** subscriptions/listen for task ids (claims() said so): a stream whose messages go to `sink`. */
  listen(request: RpcRequest, sink: (m: StreamMessage) => void): ListenOutcome {
    return this.hub.listen(request, sink);
  }

  /** Shutting down: every listen stream gets its graceful end. */
  closeStreams(): void {
    this.hub.closeAll();
  }

  async handle(request: RpcRequest): Promise<SurfaceOutcome> {
    try {
      return await this.dispatch(request);
    } catch (err) {
      if (err instanceof RpcError) return { kind: 'error', code: err.code, message: err.message, ...(err.data !== undefined ? { data: err.data } : {}) };
      return { kind: 'error', code: ErrorCode.InternalError, message: `Internal error: ${(err as Error).message}` };
    }
  }

  private async dispatch(request: RpcRequest): Promise<SurfaceOutcome> {
    const params = (request.params ?? {}) as JsonObject;
    // tasks/list and tasks/result (2025-11-25) and anything else under tasks/ are not served here.
    if (request.method.startsWith('tasks/') && !isTaskMethod(request.method)) {
      return { kind: 'error', code: ErrorCode.MethodNotFound, message: `Method not found: ${request.method} is not part of the 2026-07-28 tasks extension` };
    }
    // The capability gate comes before any lookup: an undeclared client learns nothing about ids.
    if (request.method.startsWith('tasks/') && !hasTaskClientCapabilityV2(params)) return missingCapability(request.method);
    switch (request.method) {
      case 'tasks/get': {
        const task = await this.engine.get(params);
        // The task waits for input this client could not answer: never send it the requests.
        const pending = (task.inputRequests ?? {}) as Record<string, InputRequest>;
        return inputGate(pending, params, 'the input this task waits for') ?? { kind: 'result', result: task };
      }
      case 'tasks/update':
        return { kind: 'result', result: this.engine.update(params) };
      case 'tasks/cancel':
        return { kind: 'result', result: this.engine.cancel(params) };
      case 'tools/call':
        return this.callTool(params);
      default:
        return { kind: 'error', code: ErrorCode.MethodNotFound, message: `Method not found: ${request.method}` };
    }
  }

  private async callTool(params: JsonObject): Promise<SurfaceOutcome> {
    const tool = findTool(params.name)!;
    const args = (params.arguments ?? {}) as JsonObject;
    if (typeof args !== 'object' || Array.isArray(args)) throw new RpcError(ErrorCode.InvalidParams, 'params.arguments must be an object');
    const problem = checkArgs(tool, args);
    if (problem) throw new RpcError(ErrorCode.InvalidParams, `Invalid arguments for ${tool.name}: ${problem}`);

    const tasksDeclared = hasTaskClientCapabilityV2(params);
    const hostile = this.engine.faults.hostileIds;
    const style = this.engine.faults.hostileText ? hostileText : plainText;
    const sent = (params.inputResponses ?? {}) as Record<string, unknown>;
    const responses = hostile ? plainKeys(sent) : sent;
    const outgoing = (requests: Record<string, InputRequest>) => (hostile ? hostileInputs(requests) : requests);

    // Multi round-trip: ask before any task exists, until every preflight key is answered.
    if (tool.preflight) {
      const asked = tool.preflight(args, style);
      const missing = Object.keys(asked).filter((k) => responses[k] === undefined);
      if (missing.length > 0) {
        if (!tasksDeclared && tool.taskSupport === 'required') return missingCapability(`tool ${tool.name}`);
        const inputRequests: Record<string, InputRequest> = Object.fromEntries(missing.map((k) => [k, asked[k]!]));
        const refused = inputGate(inputRequests, params, `tool ${tool.name}`);
        if (refused) return refused;
        return { kind: 'result', result: { resultType: 'input_required', inputRequests: outgoing(inputRequests), requestState: encodeState(tool.name, args) } };
      }
    }

    if (!tasksDeclared && tool.taskSupport === 'required') return missingCapability(`tool ${tool.name}`);
    // A tool that asks for input as soon as it starts is refused before any work is created for a
    // client that could not answer it (a task it could never finish).
    const first = this.engine.view(this.draft(tool, args, responses), Date.now());
    if (first.status === 'input_required') {
      const refused = inputGate(first.inputRequests ?? {}, params, `tool ${tool.name}`);
      if (refused) return refused;
    }
    if (!tasksDeclared) return { kind: 'result', result: await this.runInline(tool, args, responses, outgoing) };

    const meta = (params._meta ?? {}) as JsonObject;
    const key = meta[IDEMPOTENCY_META_KEY];
    const { result, created } = this.engine.create(tool, args, {
      ...(typeof key === 'string' && key.length > 0 ? { idempotencyKey: key } : {}),
      ...(tool.preflight ? { answers: pick(responses, Object.keys(tool.preflight(args, style))) } : {}),
    });
    if (created && this.engine.faults.dropCreateResponse) return { kind: 'drop' };
    return { kind: 'result', result };
  }

  /**
   * A client that did not declare the extension gets an ordinary result: timed tools do their
   * work inline; tools that need input ask for it with an InputRequiredResult and finish when the
   * retry carries the answers.
   */
  private async runInline(tool: DemoTool, args: JsonObject, responses: Record<string, unknown>, outgoing: (r: Record<string, InputRequest>) => Record<string, InputRequest>): Promise<JsonObject> {
    const task = this.draft(tool, args, responses);
    for (;;) {
      const view = this.engine.view(task, Date.now());
      if (view.status === 'input_required') {
        return { resultType: 'input_required', inputRequests: outgoing(view.inputRequests ?? {}), requestState: encodeState(tool.name, args) };
      }
      if (view.status === 'completed') return { resultType: 'complete', ...view.result };
      if (view.status === 'failed') throw new RpcError(view.error?.code ?? ErrorCode.InternalError, view.error?.message ?? 'failed', view.error?.data);
      if (view.status === 'cancelled') throw new RpcError(ErrorCode.InternalError, 'cancelled');
      await new Promise((r) => setTimeout(r, Math.min(view.pollIntervalMs, 200)));
    }
  }

  /** The work a call would start, as a task that is stored nowhere (inline runs, the first look). */
  private draft(tool: DemoTool, args: JsonObject, responses: Record<string, unknown>): StoredTask {
    const start = Date.now();
    return {
      taskId: 'inline',
      tool: tool.name,
      args,
      createdAtMs: start,
      ttlMs: null,
      answers: responses,
      answeredAtMs: Object.fromEntries(Object.keys(responses).map((k) => [k, start])),
      ...(this.engine.faults.hostileText ? { hostileText: true } : {}),
    };
  }
}

/** -32021 naming what the client must declare before these input requests may be sent to it. */
function inputGate(requests: Record<string, InputRequest>, params: JsonObject, what: string): SurfaceOutcome | undefined {
  const missing = missingCapabilities(requests, declaredCapabilities(params));
  if (!missing) return undefined;
  return {
    kind: 'error',
    code: ErrorCode.MissingCapability,
    message: `Missing required client capability: ${capabilityNames(missing)} (needed for ${what}); declare it in _meta clientCapabilities`,
    data: { requiredCapabilities: missing },
  };
}

function missingCapability(what: string): SurfaceOutcome {
  return {
    kind: 'error',
    code: ErrorCode.MissingCapability,
    message: `Missing required client capability: ${TASKS_EXTENSION_ID} (needed for ${what}); declare it in _meta clientCapabilities.extensions`,
    data: { requiredCapabilities: { extensions: { [TASKS_EXTENSION_ID]: {} } } },
  };
}

const pick = (o: Record<string, unknown>, keys: string[]) => Object.fromEntries(keys.filter((k) => o[k] !== undefined).map((k) => [k, o[k]]));

/** The tool's inputSchema, checked with the SDK's own JSON Schema validator (types, bounds, enums). */
const validators = new Map<string, (args: unknown) => { valid: boolean; errorMessage?: string }>();
const schemaValidator = new AjvJsonSchemaValidator();

export function checkArgs(tool: DemoTool, args: JsonObject): string | undefined {
  let check = validators.get(tool.name);
  if (!check) {
    check = schemaValidator.getValidator(tool.inputSchema as never) as (args: unknown) => { valid: boolean; errorMessage?: string };
    validators.set(tool.name, check);
  }
  const verdict = check(args);
  return verdict.valid ? undefined : argumentsMessage(verdict.errorMessage);
}
