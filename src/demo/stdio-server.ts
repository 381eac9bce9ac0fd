// stdio front of the demo server: the SDK's serveStdio over a transport that hands requests
// claimed by the task surface to it before the SDK sees them.
import { serveStdio, StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import type { Transport } from '@modelcontextprotocol/server';
import { createDemoMcpServer } from './sdk-server.js';
import type { RpcRequest, TaskSurface } from './task-surface.js';
import type { Subscription } from './task-listen.js';

type Message = Parameters<Transport['send']>[0];

/** Wraps the SDK's stdio transport; claimed requests never reach the SDK. */
class TaskRoutingTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: Transport['onmessage'];
  private readonly inner = new StdioServerTransport();
  /** Open listen streams by request id: notifications/cancelled naming one ends it. */
  private readonly streams = new Map<string | number, Subscription>();

  constructor(private readonly surface: TaskSurface, private readonly onDrop: () => void) {
    this.inner.onclose = () => this.onclose?.();
    this.inner.onerror = (e) => this.onerror?.(e);
    this.inner.onmessage = (message) => {
      const req = message as unknown as RpcRequest;
      if (req.method === 'notifications/cancelled' && req.id === undefined) {
        const id = (req.params as { requestId?: unknown } | undefined)?.requestId;
        const sub = typeof id === 'string' || typeof id === 'number' ? this.streams.get(id) : undefined;
        if (sub) return void sub.close();
      }
      if (req.method === 'subscriptions/listen' && req.id !== undefined && this.surface.claims(req)) return this.listen(req);
      if (typeof req.method === 'string' && req.id !== undefined && this.surface.claims(req)) {
        void this.answer(req);
        return;
      }
      this.onmessage?.(message);
    };
  }

  private listen(req: RpcRequest): void {
    const outcome = this.surface.listen(req, (m) => void this.inner.send(m as unknown as Message).catch(() => {}));
    if (outcome.kind === 'error') {
      void this.inner.send({ jsonrpc: '2.0', id: req.id, error: { code: outcome.code, message: outcome.message, ...(outcome.data !== undefined ? { data: outcome.data } : {}) } } as unknown as Message);
      return;
    }
    const sub = outcome.subscription;
    if (sub.size === 0) return; // already ended gracefully
    this.streams.set(req.id, sub);
  }

  private async answer(req: RpcRequest): Promise<void> {
    const outcome = await this.surface.handle(req);
    if (outcome.kind === 'drop') return this.onDrop();
    const response =
      outcome.kind === 'error'
        ? { jsonrpc: '2.0' as const, id: req.id, error: { code: outcome.code, message: outcome.message, ...(outcome.data !== undefined ? { data: outcome.data } : {}) } }
        : { jsonrpc: '2.0' as const, id: req.id, result: outcome.result };
    await this.inner.send(response as unknown as Message);
  }

  start(): Promise<void> {
    return this.inner.start();
  }
  send(message: Message): Promise<void> {
    return this.inner.send(message);
  }
  close(): Promise<void> {
    this.surface.closeStreams();
    this.streams.clear();
    return this.inner.close();
  }
}

export function startStdioDemo(surface: TaskSurface, log: (line: string) => void): { close(): Promise<void> } {
  const transport = new TaskRoutingTransport(surface, () => {
    log('fault drop-create-response: task stored, closing stdio before the response');
    process.exit(0);
  });
  return serveStdio(() => createDemoMcpServer(), { transport, onerror: (e) => log(`stdio: ${e.message}`) });
}
