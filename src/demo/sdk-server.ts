// The SDK side of the demo server: server/discover, tools/list, synchronous tools, envelope and
// generation handling all come from the official SDK v2 server. Task-capable tools are registered
// here too so tools/list describes them; their calls are answered by TaskSurface first.
import { McpServer, fromJsonSchema, type CallToolResult as SdkCallToolResult } from '@modelcontextprotocol/server';
import { TASKS_EXTENSION_ID } from '../protocol/constants.js';
import { DEMO_TOOLS } from './tools.js';

export const DEMO_SERVER_INFO = { name: 'mcp-tasks-demo', version: '0.1.0' };

export function createDemoMcpServer(): McpServer {
  const server = new McpServer(DEMO_SERVER_INFO, {
    capabilities: { tools: {}, extensions: { [TASKS_EXTENSION_ID]: {} } },
    instructions: 'Demo server for mcp-tasks: long-running tools answer with io.modelcontextprotocol/tasks handles.',
  });
  for (const tool of DEMO_TOOLS) {
    server.registerTool(
      tool.name,
      {
        ...(tool.title ? { title: tool.title } : {}),
        description: tool.description,
        inputSchema: fromJsonSchema(tool.inputSchema),
        ...(tool.annotations ? { annotations: tool.annotations } : {}),
      },
      async (args: unknown): Promise<SdkCallToolResult> => {
        if (tool.run) return tool.run((args ?? {}) as Record<string, unknown>) as SdkCallToolResult;
        // Only reached if a transport failed to route the call to the task surface.
        return { content: [{ type: 'text', text: `${tool.name} is served by the task surface` }], isError: true };
      },
    );
  }
  return server;
}
