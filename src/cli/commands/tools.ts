// `tools <server> [<tool>]`: the server's tools with their readOnly / destructive / idempotent
// hints; with a tool name, that tool's arguments as a table.
import type { Context } from '../../context.js';
import { CliError, ExitCode } from '../../errors.js';
import { jsonLine, makeStyle, renderArgumentTable, renderToolLines } from '../../output/render.js';
import { safeName } from '../../output/sanitize.js';
import { ServerStore } from '../../servers/server-store.js';
import { withServerName } from '../../app/remote-error.js';
import { probeServer } from '../../session/open-session.js';
import { didYouMean } from '../did-you-mean.js';
import { asInvoked } from '../../invocation.js';

export async function runTools(server: string, ctx: Context, toolName?: string): Promise<number> {
  const entry = new ServerStore(ctx.home).get(server);
  const conn = await withServerName(server, () => probeServer(ctx, entry));
  try {
    return await withServerName(server, async () => {
      const tools = await conn.listTools();
      // The spec's SHOULD: say which tools were left out and why (the reason quotes server text as JSON).
      for (const r of conn.refusedTools()) ctx.stderr.write(`mcp-tasks: left out tool ${JSON.stringify(r.name.slice(0, 80))}: ${r.reason}\n`);
      const asJson = (t: (typeof tools)[number]) => ({ name: t.name, ...(t.title ? { title: t.title } : {}), ...(t.description ? { description: t.description } : {}), inputSchema: t.inputSchema, annotations: t.annotations ?? {} });
      const width = ctx.stdout.columns?.();
      const st = makeStyle(ctx.color);
      if (toolName !== undefined) {
        const tool = tools.find((t) => t.name === toolName);
        if (!tool) {
          throw new CliError('not-found', `server "${server}" has no tool "${safeName(toolName, 80)}"${didYouMean(toolName, tools.map((t) => safeName(t.name, 80)))}`, `See its tools: \`mcp-tasks tools ${server}\`.`);
        }
        if (ctx.json) ctx.stdout.write(jsonLine(asJson(tool)));
        else {
          ctx.stdout.write(renderToolLines([tool], st, width).replace(/^ {4}/, ''));
          ctx.stdout.write(renderArgumentTable(tool.inputSchema, st, width));
        }
        return ExitCode.Ok;
      }
      if (ctx.json) {
        ctx.stdout.write(jsonLine(tools.map(asJson)));
      } else {
        ctx.stdout.write(`${tools.length} tool(s) on ${server}:\n`);
        ctx.stdout.write(renderToolLines(tools, st, width));
        // A hint that runs as printed: only with a tool name that can be typed as it is.
        const typeable = tools.find((t) => /^[A-Za-z0-9_.:@%+=,/][A-Za-z0-9_.:@%+=,/-]*$/.test(t.name));
        if (typeable) ctx.stdout.write(`\n${asInvoked(`a tool's arguments: mcp-tasks tools ${server} ${typeable.name}`, ctx.invocation)}\n`);
      }
      return ExitCode.Ok;
    });
  } finally {
    await conn.close();
  }
}
