/**
 * A small MCP server over stdio for the fleet tests and benchmarks (the SDK's McpServer):
 * four tools on records, two read-only and two actions, every answer naming the server
 * that gave it (`RECORDS_LABEL`), so a test can tell which upstream a name was routed to.
 *
 * Run: `node dist/test/fleet/recordsUpstream.js`.
 */
import { McpServer } from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { z } from 'zod';

const label = process.env.RECORDS_LABEL ?? 'records';
const server = new McpServer({ name: `records-${label}`, version: '1.0.0' });
const answer = (text: string) => ({ content: [{ type: 'text' as const, text: `${label}: ${text}` }] });
server.registerTool(
  'lookup_record',
  { description: 'Look up one record of the registry by its id and show its fields.', inputSchema: z.object({ id: z.string() }), annotations: { readOnlyHint: true } },
  ({ id }) => answer(`record ${id}`),
);
server.registerTool(
  'list_records',
  { description: 'List the newest records of the registry, most recent first.', inputSchema: z.object({ limit: z.number().int().positive().max(50).optional() }), annotations: { readOnlyHint: true } },
  ({ limit }) => answer(`${limit ?? 10} records`),
);
server.registerTool(
  'update_record',
  { description: 'Change a field of a record in the registry.', inputSchema: z.object({ id: z.string(), field: z.string(), value: z.string() }), annotations: { readOnlyHint: false, destructiveHint: false } },
  ({ id, field, value }) => answer(`record ${id}: ${field} = ${value}`),
);
server.registerTool(
  'archive_record',
  { description: 'Archive a record so it no longer appears in listings.', inputSchema: z.object({ id: z.string() }), annotations: { readOnlyHint: false, destructiveHint: true } },
  ({ id }) => answer(`record ${id} archived`),
);
await server.connect(new StdioServerTransport());
