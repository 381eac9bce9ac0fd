// Shared by the CLI tests on @modelcontextprotocol/server-everything (2025-11-25): a home whose
// server "ev" reaches it through a real proxy that counts session DELETEs and can hold or drop
// the answer to chosen tools/call requests, the vault as stored, and the key of its question.
import assert from 'node:assert/strict';
import { homeWithServer, type TestHome } from './cli.js';
import { startProxy, type ProxiedRequest } from './proxy.js';
import { startEverythingServer, type RunningServer } from './third-party-http.js';
import { openLegacySession } from '../../src/session/legacy/legacy-session.js';
import type { ServerEntry } from '../../src/servers/server-entry.js';
import { vaultAt } from '../../src/app/open-vault.js';
import type { VaultRecord } from '../../src/vault/vault-record.js';

/** What a tools/call request asks for (undefined for anything else). */
export function toolCallOf(req: ProxiedRequest): { name: string; arguments: Record<string, unknown> } | undefined {
  try {
    const m = JSON.parse(req.body.toString('utf8')) as { method?: string; params?: { name?: string; arguments?: Record<string, unknown> } };
    return m.method === 'tools/call' && typeof m.params?.name === 'string' ? { name: m.params.name, arguments: m.params.arguments ?? {} } : undefined;
  } catch {
    return undefined;
  }
}

export interface EverythingHome {
  server: RunningServer;
  h: TestHome;
  /** The Mcp-Session-Id of every DELETE the proxy forwarded, in order. */
  deletes: string[];
  /** Calls whose topic is in here: forwarded, then the connection is cut without an answer. */
  dropTopics: Set<string>;
  /** Calls whose topic is in here: forwarded, then held open with no answer (resolves `held`). */
  holdTopics: Set<string>;
  /** Resolves with the topic once a held call has reached the server. */
  held(topic: string): Promise<void>;
}

export async function everythingHome(t: { after(fn: () => unknown): void }): Promise<EverythingHome> {
  const server = await startEverythingServer(t);
  const deletes: string[] = [];
  const dropTopics = new Set<string>();
  const holdTopics = new Set<string>();
  const heldWaiters = new Map<string, () => void>();
  const heldSeen = new Set<string>();
  const topicOf = (req: ProxiedRequest) => {
    const topic = toolCallOf(req)?.arguments.topic;
    return typeof topic === 'string' ? topic : undefined;
  };
  const proxy = await startProxy(server.url, {
    answer: (req) => {
      if (req.method === 'DELETE') deletes.push(String(req.headers['mcp-session-id'] ?? ''));
      return undefined;
    },
    hostile: (req) => {
      const topic = topicOf(req);
      if (topic !== undefined && dropTopics.has(topic)) return { kind: 'dropped' };
      if (topic === undefined || !holdTopics.has(topic)) return undefined;
      heldSeen.add(topic);
      heldWaiters.get(topic)?.();
      return { kind: 'silent' };
    },
  });
  t.after(() => proxy.close());
  const h = await homeWithServer('ev', proxy.url);
  return {
    server,
    h,
    deletes,
    dropTopics,
    holdTopics,
    held: (topic) => (heldSeen.has(topic) ? Promise.resolve() : new Promise<void>((resolve) => heldWaiters.set(topic, resolve))),
  };
}

/** The vault's records as stored (the session id is never printed, so tests read it here). */
export function storedRecords(h: TestHome): VaultRecord[] {
  return vaultAt(h.dir, { MCP_TASKS_HOME: h.dir, CI: '1', MCP_TASKS_NO_KEYCHAIN: '1' }, () => {}).list();
}

export function storedRecord(h: TestHome, match: (r: VaultRecord) => boolean): VaultRecord {
  const found = storedRecords(h).filter(match);
  assert.equal(found.length, 1, `expected one matching record, found ${found.length}`);
  return found[0]!;
}

/**
 * The key server-everything's clarification question gets, learned from a task of our own (on the
 * server directly): keys are derived from the question, so an answers file can be written ahead.
 */
export async function clarificationKey(server: RunningServer, topic: string): Promise<string> {
  const entry = { name: 'probe', transport: 'http', url: server.url } as ServerEntry;
  const session = await openLegacySession(entry, { env: process.env }, { serverName: 'probe', serveInput: true });
  try {
    const created = await session.callTool({ name: 'simulate-research-query', arguments: { topic, ambiguous: true } });
    const taskId = created.kind === 'task' ? created.task.taskId : assert.fail('expected a task');
    for (;;) {
      const s = await session.getTask(taskId);
      const keys = Object.keys(s.inputRequests ?? {});
      if (keys.length > 0) {
        await session.cancelTask(taskId);
        return keys[0]!;
      }
      assert.ok(s.status === 'working' || s.status === 'input_required', `unexpected ${s.status}`);
      await new Promise((r) => setTimeout(r, s.pollIntervalMs ?? 500));
    }
  } finally {
    await session.close();
  }
}

export const resultText = (doc: { result?: { content?: Array<{ text?: string }> } }) => (doc.result?.content ?? []).map((c) => c.text ?? '').join('\n');
