// `call <server> <tool> [args...]`: call a tool declaring the tasks extension. The vault records
// the intent before sending and the handle before anything is printed; without --detach the task
// is followed to a terminal state.
import { randomUUID } from 'node:crypto';
import type { Context } from '../../context.js';
import { CliError, ExitCode } from '../../errors.js';
import { ServerStore } from '../../servers/server-store.js';
import { openConnection } from '../../app/server-connection.js';
import { newRecord, openVault, type TaskTarget } from '../../app/task-target.js';
import { followTask, persistSnapshot } from '../../app/follow.js';
import { refFor, reportEnd } from '../../app/report.js';
import { toCliError } from '../../app/remote-error.js';
import { callTool, type ToolCallOutcome } from '../../protocol/task-wire.js';
import { TransportError } from '../../protocol/remote-errors.js';
import { jsonLine, makeStyle, renderCallToolResult, renderInputRequests, taskJson } from '../../output/render.js';
import { sanitize } from '../../output/sanitize.js';
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
  const entry = new ServerStore(ctx.home).get(server);
  const vault = openVault(ctx);
  // Read the vault before touching the server: a vault we cannot write must stop us before any work is submitted.
  vault.list();

  const conn = await openConnection(ctx, entry);
  try {
    const tools = await conn.listTools();
    const info = tools.find((t) => t.name === tool);
    if (!info) {
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
    );
    if (conn.protocolVersion) record.server.protocolVersion = conn.protocolVersion;
    if (conn.serverInfo) record.server.serverInfo = conn.serverInfo;
    // The intent is on disk before the request leaves: a crash from here on is recoverable.
    vault.put(record);

    let outcome: ToolCallOutcome;
    try {
      outcome = await callTool(conn, { name: tool, arguments: args, ...(entry.idempotencyMeta ? { meta: { [entry.idempotencyMeta]: opId } } : {}) }, { signal: ctx.interrupt, timeoutMs: 60_000 });
    } catch (err) {
      return submissionFailed(ctx, vault, record, err, server);
    }

    if (outcome.kind === 'complete') {
      vault.update(opId, (r) => {
        r.phase = 'terminal';
        r.result = outcome.result;
        r.updatedAt = now();
      });
      const isError = outcome.result.isError === true;
      if (ctx.json) {
        ctx.stdout.write(jsonLine({ taskId: null, server, status: 'completed', result: outcome.result, operation: { method: 'tools/call', name: tool, arguments: args }, labels }));
      } else {
        const st = makeStyle(ctx.color);
        ctx.stdout.write(`${st.c.bold(tool)} on ${st.c.bold(server)}: ${isError ? st.c.yellow('tool error') : st.c.green('completed')} ${st.c.gray('(answered directly, no task)')}\n`);
        const body = renderCallToolResult(outcome.result, st);
        if (body) ctx.stdout.write(`\n${body}\n`);
      }
      return isError ? ExitCode.ToolError : ExitCode.Ok;
    }

    if (outcome.kind === 'input_required') {
      // The server asks before it creates any task (multi round-trip); nothing exists yet.
      vault.remove([opId]);
      const st = makeStyle(ctx.color);
      if (ctx.json) ctx.stdout.write(jsonLine({ taskId: null, server, status: 'input_required', inputRequests: outcome.inputRequests, operation: { method: 'tools/call', name: tool, arguments: args }, labels }));
      else {
        ctx.stderr.write(`${tool} on ${server} needs input before it starts:\n`);
        ctx.stderr.write(renderInputRequests(outcome.inputRequests, st));
      }
      ctx.stderr.write(`next: run it in a terminal to answer interactively, or pass --answers <file> with a response for each key; nothing was started.\n`);
      return ExitCode.NeedsInput;
    }

    const task = outcome.task;
    const target: TaskTarget = { record, persisted: true, entry, taskId: task.taskId };
    // The handle is on disk before anything is printed.
    persistSnapshot(ctx, vault, target, task);

    if (opts.detach) {
      const ref = refFor(target);
      if (ctx.json) ctx.stdout.write(jsonLine(taskJson(target.record, task)));
      else {
        const st = makeStyle(ctx.color);
        ctx.stdout.write(`${st.c.bold(tool)} on ${st.c.bold(server)}: task started (${task.status})\n`);
        ctx.stdout.write(`  task ${task.taskId}\n`);
        ctx.stdout.write(`  follow it:  mcp-tasks watch ${ref}\n  check once: mcp-tasks get ${ref}\n  cancel:     mcp-tasks cancel ${ref}\n`);
      }
      return ExitCode.Ok;
    }

    const end = await followTask(ctx, conn, vault, target, { initial: task, ...(timeoutMs !== undefined ? { timeoutMs } : {}) });
    return reportEnd(ctx, target, end);
  } finally {
    await conn.close();
  }
}

/** No handle came back. If the request may have reached the server, the outcome is in doubt. */
function submissionFailed(ctx: Context, vault: ReturnType<typeof openVault>, record: VaultRecord, err: unknown, server: string): number {
  const at = new Date(ctx.now()).toISOString();
  const mayHaveArrived = err instanceof TransportError ? err.requestMayHaveArrived : false;
  if (!mayHaveArrived) {
    // The server refused or never got the request: nothing was created, nothing to recover.
    vault.remove([record.opId]);
    throw toCliError(err, server) ?? err;
  }
  const reason = `the request was sent but no handle came back (${sanitize((err as Error).message, { singleLine: true, maxLength: 200 })})`;
  vault.update(record.opId, (r) => {
    r.phase = 'in-doubt';
    r.reason = reason;
    r.updatedAt = at;
  });
  const next = `Run \`mcp-tasks recover ${record.opId.slice(0, 8)}\`: it tells whether resubmitting is safe${record.operation.idempotencyMeta ? ' (this server recognises the operation id, so a resubmission is deduplicated)' : ''}.`;
  if (ctx.json) {
    ctx.stdout.write(jsonLine({ error: { kind: 'in-doubt', message: reason, next }, opId: record.opId, server, operation: { method: 'tools/call', name: record.operation.name, arguments: record.operation.arguments } }));
  } else {
    ctx.stderr.write(`mcp-tasks: ${record.operation.name} on ${server} is in doubt: ${reason}.\n`);
    ctx.stderr.write(`  The work may or may not have started. Do not simply run the same call again.\n  next: ${next}\n`);
  }
  return ExitCode.InDoubt;
}

