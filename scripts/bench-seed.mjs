// Synthetic records for the benchmarks (and anyone rerunning them), written through the project's
// own bulk insert: to the file vault at a home, or to the team store MCP_TASKS_STORE names.
// Run `npm run build && tsc -p tsconfig.build.json` first (it imports build/src).
import { randomBytes, randomUUID } from 'node:crypto';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

/** Records from..to of n synthetic ones like `call` leaves them: 10 % still active, the rest finished, one a minute back in time. */
function syntheticRecords(n, url, startMs, from = 0, to = n) {
  const out = [];
  for (let i = from; i < to; i++) {
    const at = new Date(startMs - (n - i) * 60_000).toISOString();
    const active = i % 10 === 0;
    const taskId = randomBytes(24).toString('base64url');
    out.push({
      opId: randomUUID(),
      taskId,
      server: { name: 'bench', identity: { kind: 'http', url }, protocolVersion: '2026-07-28' },
      auth: { kind: 'none' },
      operation: { method: 'tools/call', name: 'slow_compute', arguments: { seconds: i % 60 }, submittedAt: at },
      phase: active ? 'active' : 'terminal',
      last: { taskId, status: active ? 'working' : 'completed', createdAt: at, lastUpdatedAt: at, ttlMs: 3_600_000, pollIntervalMs: 500 },
      history: active ? [{ at, status: 'working' }] : [{ at, status: 'working' }, { at, status: 'completed' }],
      inputKeysSeen: [],
      inputKeysAnswered: [],
      ...(active ? {} : { result: { content: [{ type: 'text', text: `Computed ${i}` }] } }),
      labels: { run: `seed-${i}` },
      createdAt: at,
      updatedAt: at,
    });
  }
  return out;
}

/**
 * Add n records to the vault at `home` through the vault's own bulk insert (encrypted, hinted,
 * each batch's files synced together, one listing frame per batch, the listing folded at the end),
 * or, when `env` names a team store (MCP_TASKS_STORE), to that store through its own, in chunks.
 */
export async function seed(home, n, url = 'http://127.0.0.1:9/mcp', env = process.env) {
  // The store as the CLI opens it: with the list --json row renderer app/ hands it.
  const { vaultAt, storeAt } = await import(pathToFileURL(join(root, 'build/src/app/open-vault.js')).href);
  // Older than anything there: seeded history lies behind the records a bench then creates.
  const startMs = Date.now() - 1000;
  if (!env.MCP_TASKS_STORE) return vaultAt(resolve(home), env, (t) => process.stderr.write(`mcp-tasks: ${t}\n`)).bulkInsert(syntheticRecords(n, url, startMs));
  const store = storeAt(resolve(home), env);
  try {
    let added = 0;
    const CHUNK = 50_000; // a million records at once would not fit the heap
    for (let from = 0; from < n; from += CHUNK) added += await store.bulkInsert(syntheticRecords(n, url, startMs, from, Math.min(n, from + CHUNK)));
    return added;
  } finally {
    await store.close();
  }
}
