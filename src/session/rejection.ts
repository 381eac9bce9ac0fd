// -32602 (Invalid params) to tasks/update or tasks/cancel is what a server says for an unknown
// task, but also for a request it will not take on a task that exists: an answer that does not
// fit, a cancel it refuses. Only a tasks/get can tell them apart, so one is asked before anything
// is concluded: a get that also says unknown fails as unknown (the task is lost); a get that
// answers turns the failure into a rejection, the task and its record untouched.
import { ErrorCode, isTerminalStatus } from '../protocol/constants.js';
import { RpcResponseError } from '../protocol/remote-errors.js';
import type { TaskSnapshot } from '../tasks/task-snapshot.js';

export type RejectableMethod = 'tasks/update' | 'tasks/cancel';

/** The server refused a request on a task it still knows (a tasks/get confirmed it). */
export class RequestRejectedError extends Error {
  constructor(
    readonly method: RejectableMethod,
    readonly code: number,
    /** The server's own words (unsanitised). */
    readonly serverMessage: string,
    /** What the confirming tasks/get said. */
    readonly snapshot: TaskSnapshot,
  ) {
    super(`the server refused ${method} (error ${code}: ${serverMessage}); the task is still ${snapshot.status}`);
    this.name = 'RequestRejectedError';
  }
}

/** Whether `err` is the -32602 answer to `method` that needs a tasks/get to be understood. */
export const needsConfirming = (err: unknown, method: RejectableMethod): err is RpcResponseError =>
  err instanceof RpcResponseError && err.code === ErrorCode.InvalidParams && err.method === method;

/**
 * Send `method`; on -32602, ask `get` once. `terminalIsDone` (tasks/cancel): a task that has
 * ended already leaves nothing to cancel, so the refusal is no failure: the get's answer is
 * returned (undefined when the server took the request).
 */
export async function confirmingRejection(method: RejectableMethod, send: () => Promise<void>, get: () => Promise<TaskSnapshot>, opts: { terminalIsDone?: boolean } = {}): Promise<TaskSnapshot | undefined> {
  try {
    await send();
    return undefined;
  } catch (err) {
    if (!needsConfirming(err, method)) throw err;
    // The get's own failure (unknown task: lost; unreachable) is the one that counts.
    const snapshot = await get();
    if (opts.terminalIsDone && isTerminalStatus(snapshot.status)) return snapshot;
    throw new RequestRejectedError(method, err.code, err.message, snapshot);
  }
}
