// A 2025 session (dynamic exposure) runs find_tools; a 2026 host of the same token lists tools before and after,
// and calls `log` with and without a logLevel in _meta (raw, to see every message on the response stream).
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
const [base, token] = process.argv.slice(2);
const auth = { Authorization: `Bearer ${token}` };
const c26 = new Client({ name: 'h26', version: '1' }, { capabilities: {}, versionNegotiation: { mode: { pin: '2026-07-28' } } });
await c26.connect(new StreamableHTTPClientTransport(new URL(base), { requestInit: { headers: auth } }));
const c25 = new Client({ name: 'h25', version: '1' }, { capabilities: {} });
await c25.connect(new StreamableHTTPClientTransport(new URL(base), { requestInit: { headers: auth } }));
const names = async (c) => (await c.listTools()).tools.map((t) => t.name).join(',');
console.log('2026 before:', await names(c26), '| 2025 before:', await names(c25));
await c25.callTool({ name: 'find_tools', arguments: { query: 'send a log message' } });
await c26.callTool({ name: 'find_tools', arguments: { query: 'progress job steps' } });
console.log('2026 after :', await names(c26), '| 2025 after :', await names(c25));
const env = (extra = {}) => ({ 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' }, 'io.modelcontextprotocol/clientCapabilities': {}, ...extra });
for (const [label, meta] of [['no logLevel', env()], ['logLevel error', env({ 'io.modelcontextprotocol/logLevel': 'error' })], ['logLevel debug', env({ 'io.modelcontextprotocol/logLevel': 'debug' })]]) {
  for (const level of ['info', 'error']) {
    const body = { jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'call_tool', arguments: { name: 'log', arguments: { level, text: `hello-${level}` } }, _meta: meta } };
    const r = await fetch(base, { method: 'POST', headers: { ...auth, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'call_tool' }, body: JSON.stringify(body) });
    const t = await r.text();
    console.log(`${label}, upstream logs ${level}: ${r.status} ${r.headers.get('content-type')} messages=${(t.match(/notifications\/message/g) ?? []).length} ${t.replace(/\s+/g, ' ').slice(0, 160)}`);
  }
}
await c25.close(); await c26.close();
