// The use case behind `list --remote <server>`: the server's own task list, where its generation has one (2025-11-25
// `tasks/list` with `capabilities.tasks.list`; 2026-07-28 has no enumeration on purpose), with
// the tasks the vault holds marked. Many 2025-11-25 servers scope tasks to a session, so the list
// is read through a new session and through every session the vault holds for that server.
import type { Context } from '../context.js';
import { CliError } from '../errors.js';
import type { HandleStore } from '../vault/handle-store.js';
import type { Outcome } from './outcomes.js';
import { toCliError } from './remote-error.js';
import { openSession } from '../session/open-session.js';
import { closeSession } from './with-task.js';
import { lostReasonOf, type SessionResume, type TaskSession } from '../session/task-session.js';
import { ServerStore } from '../servers/server-store.js';
import type { TaskSnapshot } from '../tasks/task-snapshot.js';
import type { VaultRecord } from '../vault/vault-record.js';
import { cmd, hint } from '../hint.js';

async function listAll(session: TaskSession, ctx: Context, into: Map<string, TaskSnapshot>): Promise<void> {
  let cursor: string | undefined;
  do {
    const page = await session.listTasks(cursor, { signal: ctx.interrupt });
    for (const t of page.tasks) if (!into.has(t.taskId)) into.set(t.taskId, t);
    cursor = page.nextCursor;
  } while (cursor);
}

export async function listRemote(ctx: Context, vault: HandleStore, server: string): Promise<Outcome> {
  const entry = new ServerStore(ctx.home).get(server);
  const held = new Map<string, VaultRecord>();
  const sessions = new Map<string, SessionResume>();
  for (const r of await vault.list()) {
    if (r.server.name !== server) continue;
    if (r.taskId) held.set(r.taskId, r);
    // An in-doubt call's session too: the task it may have created is listed there.
    if (r.session?.sessionId) sessions.set(r.session.sessionId, { protocolVersion: r.session.protocolVersion, sessionId: r.session.sessionId });
  }

  const found = new Map<string, TaskSnapshot>();
  const fresh = await openSession(ctx, entry).catch((err: unknown) => Promise.reject(toCliError(err, server) ?? err));
  try {
    if (fresh.taskListUnavailable) {
      throw new CliError('invalid-input', `server "${server}" lists no tasks: ${fresh.taskListUnavailable}`, hint`\`${cmd('list', '--server', server)}\` shows the tasks this vault holds for it.`);
    }
    await listAll(fresh, ctx, found).catch((err: unknown) => Promise.reject(toCliError(err, server) ?? err));
  } finally {
    await closeSession(ctx, vault, fresh);
  }
  for (const resume of sessions.values()) {
    let session: TaskSession | undefined;
    try {
      session = await openSession(ctx, entry, { resume });
      if (!session.taskListUnavailable) await listAll(session, ctx, found);
    } catch (err) {
      // A session the server has ended lists nothing; its tasks are reported lost by get/watch.
      if (lostReasonOf(err) === undefined) throw toCliError(err, server) ?? err;
      ctx.debug(`a stored session of ${server} has ended: ${lostReasonOf(err)}`);
    } finally {
      if (session) await closeSession(ctx, vault, session);
    }
  }

  const tasks = [...found.values()].sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0));
  return { kind: 'remote-tasks-listed', server, tasks: tasks.map((snapshot) => ({ snapshot, record: held.get(snapshot.taskId) })) };
}
