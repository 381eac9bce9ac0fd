// subscriptions/listen for tasks: the SDK client owns the stream (listen()), but its 2026 decoder
// keeps only the list-changed fields of an acknowledgement and has no notifications/tasks; both
// are read here, raw, on the transport, before the SDK's dispatcher.
import type { Client as SdkClient, Transport } from '@modelcontextprotocol/client';
import { SUBSCRIPTION_ID_META } from '../protocol/constants.js';
import type { Connection } from './connection-types.js';

/** listenTasks for a connection: wraps the transport's send (to learn each listen's id) and its message handler. */
export function taskListener(client: SdkClient, t: Transport, timeoutMs: number, normalize: (err: unknown, method: string) => Error): Connection['listenTasks'] {
  const listenIds: string[] = [];
  const acks = new Map<string, string[]>();
  const taskHandlers = new Set<(params: unknown) => void>();
  const innerSend = t.send.bind(t);
  t.send = ((message: { method?: unknown; id?: unknown }, options?: unknown) => {
    if (message.method === 'subscriptions/listen' && typeof message.id === 'string') listenIds.push(message.id);
    return innerSend(message as never, options as never);
  }) as typeof t.send;
  const inner = t.onmessage;
  t.onmessage = (msg, extra) => {
    const m = msg as { id?: unknown; method?: unknown; params?: { _meta?: Record<string, unknown>; notifications?: { taskIds?: unknown } } };
    if (m.method === 'notifications/tasks' && m.id === undefined) {
      for (const h of taskHandlers) h(m.params);
      return;
    }
    if (m.method === 'notifications/subscriptions/acknowledged') {
      const sub = m.params?._meta?.[SUBSCRIPTION_ID_META];
      const ids = m.params?.notifications?.taskIds;
      if (typeof sub === 'string') acks.set(sub, Array.isArray(ids) ? ids.filter((x): x is string => typeof x === 'string') : []);
    }
    inner?.(msg, extra);
  };
  return async (taskIds, onTask, lo = {}) => {
    const before = listenIds.length;
    const opening = client.listen({ taskIds } as never, { timeout: lo.timeoutMs ?? timeoutMs });
    // The SDK wrote the request before its first await: its id is the one just recorded.
    const id = listenIds[before];
    taskHandlers.add(onTask);
    let subscription;
    try {
      subscription = await opening;
    } catch (err) {
      taskHandlers.delete(onTask);
      throw normalize(err, 'subscriptions/listen');
    } finally {
      if (id !== undefined) listenIds.splice(listenIds.indexOf(id), 1);
    }
    const acknowledged = (id !== undefined ? acks.get(id) : undefined) ?? [];
    if (id !== undefined) acks.delete(id);
    const asked = new Set(taskIds);
    const closed = subscription.closed.then((why) => {
      taskHandlers.delete(onTask);
      return why;
    });
    return { acknowledged: acknowledged.filter((x) => asked.has(x)), closed, close: () => subscription.close() };
  };
}
