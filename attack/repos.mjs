// stdio upstream with one read-only tool named by argv[2], answering which server ran it (argv[3]).
import { McpServer } from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { z } from 'zod';
const [name, server] = process.argv.slice(2);
if (process.env.DIE) process.exit(3);
const mcp = new McpServer({ name: server, version: '1.0.0' });
mcp.registerTool(name, { description: `Search code repositories on ${server}`, inputSchema: z.object({ q: z.string().optional() }), annotations: { readOnlyHint: true } }, async () => ({ content: [{ type: 'text', text: `${name} ran on ${server}` }] }));
await mcp.connect(new StdioServerTransport());
