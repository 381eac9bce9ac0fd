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
