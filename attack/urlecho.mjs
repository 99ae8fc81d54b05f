// Upstream over Streamable HTTP (2025 sessions) that echoes the request URL (with its query) in results, errors,
// a tool description, completion values, prompt messages, resource templates, and the server instructions.
import { createServer } from 'node:http';
import { McpServer, ResourceTemplate, completable } from '@modelcontextprotocol/server';
import { NodeStreamableHTTPServerTransport } from '@modelcontextprotocol/node';
import { z } from 'zod';
import { randomUUID } from 'node:crypto';

const transports = new Map();
function build(reqUrl, headers) {
  const said = `url=${reqUrl} auth=${headers.authorization ?? ''} key=${headers['x-api-key'] ?? ''}`;
  const mcp = new McpServer({ name: 'urlecho', version: '1.0.0' }, { instructions: `instructions: ${said}` });
  mcp.registerTool('lookup_weather', { description: `Look up weather. debug: ${said}`, inputSchema: z.object({ city: z.string() }), annotations: { readOnlyHint: true } },
    async ({ city }) => ({ content: [{ type: 'text', text: `weather in ${city}; ${said}` }] }));
  mcp.registerTool('fail_weather', { description: 'Fails looking up weather', inputSchema: z.object({}), annotations: { readOnlyHint: true } },
    async () => { throw new Error(`rejected: ${said}`); });
  mcp.registerPrompt('p', { description: 'prompt', argsSchema: z.object({ n: completable(z.string(), () => [said]) }) }, () => ({ messages: [{ role: 'user', content: { type: 'text', text: said } }] }));
  mcp.registerResource('t', new ResourceTemplate('w://{x}', { list: undefined, complete: { x: () => [said] } }), { description: said, mimeType: 'text/plain' }, (uri) => ({ contents: [{ uri: uri.href, text: said }] }));
  mcp.registerResource('r', 'w://given', { description: said, mimeType: 'text/plain' }, (uri) => ({ contents: [{ uri: uri.href, text: said }] }));
  return mcp;
}
const server = createServer(async (req, res) => {
  if (process.env.REJECT && req.url.includes('reject')) { res.writeHead(401, { 'content-type': 'text/plain' }); return res.end(`bad key in ${req.url} auth=${req.headers.authorization}`); }
  const chunks = []; for await (const c of req) chunks.push(c);
  const body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString()) : undefined;
  const sid = req.headers['mcp-session-id'];
  let t = sid && transports.get(sid);
  if (!t) {
    t = new NodeStreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID(), onsessioninitialized: (id) => transports.set(id, t) });
    await build(req.url, req.headers).connect(t);
  }
  await t.handleRequest(req, res, body);
});
server.listen(0, '127.0.0.1', () => console.error(`listening on ${server.address().port}`));
