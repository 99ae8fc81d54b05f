// stdio upstream that echoes its own command line (a careless server printing how it was started).
import { McpServer } from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { z } from 'zod';
const mcp = new McpServer({ name: 'argecho', version: '1.0.0' });
mcp.registerTool('show_config', { description: 'Show how this server was started', inputSchema: z.object({}), annotations: { readOnlyHint: true } }, async () => ({ content: [{ type: 'text', text: `started as: ${process.argv.slice(2).join(' ')}` }] }));
await mcp.connect(new StdioServerTransport());
