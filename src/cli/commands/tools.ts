// `tools <server>`: the server's tools with their readOnly / destructive / idempotent hints.
import type { Context } from '../../context.js';
import { ExitCode } from '../../errors.js';
import { jsonLine, makeStyle, renderToolLines } from '../../output/render.js';
import { ServerStore } from '../../servers/server-store.js';
import { withServerName } from '../../app/remote-error.js';
import { probeServer } from '../../session/open-session.js';

export async function runTools(server: string, ctx: Context): Promise<number> {
  const entry = new ServerStore(ctx.home).get(server);
  const conn = await withServerName(server, () => probeServer(ctx, entry));
  try {
    return await withServerName(server, async () => {
      const tools = await conn.listTools();
      // The spec's SHOULD: say which tools were left out and why (the reason quotes server text as JSON).
      for (const r of conn.refusedTools()) ctx.stderr.write(`mcp-tasks: left out tool ${JSON.stringify(r.name.slice(0, 80))}: ${r.reason}\n`);
      if (ctx.json) {
        ctx.stdout.write(jsonLine(tools.map((t) => ({ name: t.name, ...(t.title ? { title: t.title } : {}), ...(t.description ? { description: t.description } : {}), inputSchema: t.inputSchema, annotations: t.annotations ?? {} }))));
      } else {
        const st = makeStyle(ctx.color);
        ctx.stdout.write(`${tools.length} tool(s) on ${server}:\n`);
        ctx.stdout.write(renderToolLines(tools, st));
      }
      return ExitCode.Ok;
    });
  } finally {
    await conn.close();
  }
}
