// stdio upstream: a message queue whose only ack-like tool is nack_message (negative acknowledgement: requeue / reject),
// plus run_async, list_grantor_access and query_mssql. All read-only so no confirmation hides the correction.
import { McpServer } from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { z } from 'zod';
const mcp = new McpServer({ name: 'queue', version: '1.0.0' });
const ro = { readOnlyHint: true };
for (const [name, description] of [
  ['nack_message', 'Negatively acknowledge a message: it is rejected and redelivered to another consumer'],
  ['run_async', 'Start a job in the background and return at once with its id'],
  ['grantor_list', 'List the people who granted access to the given document'],
  ['query_mssql', 'Run a read-only SQL query against the Microsoft SQL Server warehouse'],
]) mcp.registerTool(name, { description, inputSchema: z.object({ id: z.string().optional() }), annotations: ro }, async (a) => ({ content: [{ type: 'text', text: `${name} ran with ${JSON.stringify(a)}` }] }));
await mcp.connect(new StdioServerTransport());
