// `call <server> <tool> [args...]`: call a tool declaring the tasks extension. The vault records
// the intent before sending and the handle before anything is printed; without --detach the task
// is followed to a terminal state.
import { randomUUID } from 'node:crypto';
import type { Context } from '../../context.js';
import { CliError } from '../../errors.js';
import { ServerStore } from '../../servers/server-store.js';
import { openConnection, withServerName } from '../../app/server-connection.js';
import { refusedToolError } from '../../connection/connect.js';
import { newRecord, openVault } from '../../app/task-target.js';
import { submitOperation } from '../../app/submit.js';
import { readAnswers } from '../../app/answering.js';
import { buildArguments, validateArguments } from '../tool-args.js';
import { parseDuration, parseLabels } from '../duration.js';
import type { VaultRecord } from '../../vault/vault-record.js';

export interface CallOptions {
  argsJson?: string;
  argsFile?: string;
  detach?: boolean;
  timeout?: string;
  label?: string[];
  answers?: string;
}

export async function runCall(server: string, tool: string, pairs: string[], opts: CallOptions, ctx: Context): Promise<number> {
  const timeoutMs = opts.timeout !== undefined ? parseDuration(opts.timeout) : undefined;
  const labels = parseLabels(opts.label);
  // A broken answers file must stop us before any work is submitted, not halfway through.
  readAnswers(opts.answers);
  const entry = new ServerStore(ctx.home).get(server);
  const vault = openVault(ctx);
  // Open (or create) the vault before touching the server: a vault we cannot write must stop us before any work is submitted.
  vault.prepare();

  const conn = await openConnection(ctx, entry);
  try {
    return await withServerName(server, async () => {
      const tools = await conn.listTools();
      const info = tools.find((t) => t.name === tool);
      if (!info) {
        const refused = conn.refusedTools().find((r) => r.name === tool);
        if (refused) throw refusedToolError(server, refused);
        const names = tools.map((t) => t.name).slice(0, 15).join(', ');
        throw new CliError('not-found', `server "${server}" has no tool "${tool}"`, `Its tools: ${names || '(none)'}. See \`mcp-tasks tools ${server}\`.`);
      }
      const args = buildArguments({ pairs, ...(opts.argsJson !== undefined ? { argsJson: opts.argsJson } : {}), ...(opts.argsFile !== undefined ? { argsFile: opts.argsFile } : {}) }, info.inputSchema);
      await validateArguments(tool, args, info.inputSchema);

      const opId = randomUUID();
      const now = () => new Date(ctx.now()).toISOString();
      const a = info.annotations ?? {};
      const record: VaultRecord = newRecord(
        entry,
        ctx.home,
        {
          method: 'tools/call',
          name: tool,
          arguments: args,
          submittedAt: now(),
          ...(entry.idempotencyMeta ? { idempotencyMeta: entry.idempotencyMeta } : {}),
          annotations: {
            ...(a.readOnlyHint !== undefined ? { readOnlyHint: a.readOnlyHint } : {}),
            ...(a.destructiveHint !== undefined ? { destructiveHint: a.destructiveHint } : {}),
            ...(a.idempotentHint !== undefined ? { idempotentHint: a.idempotentHint } : {}),
          },
        },
        labels,
        opId,
        now(),
        ctx.env,
      );
      if (conn.protocolVersion) record.server.protocolVersion = conn.protocolVersion;
      if (conn.serverInfo) record.server.serverInfo = conn.serverInfo;
      // The intent is on disk before the request leaves: a crash from here on is recoverable.
      vault.put(record);
      return await submitOperation(ctx, conn, vault, entry, record, { ...(opts.detach ? { detach: true } : {}), ...(timeoutMs !== undefined ? { timeoutMs } : {}), ...(opts.answers !== undefined ? { answers: opts.answers } : {}) });
    });
  } finally {
    await conn.close();
  }
}
