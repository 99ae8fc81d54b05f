// 2026-07-28 host over HTTP (SDK client pinned), logging every raw request and response.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
const [base, token] = process.argv.slice(2);
const log = [];
const fetchLogged = async (url, init) => {
  const r = await fetch(url, init);
  const text = await r.clone().text();
  log.push({ req: init?.body, headers: init?.headers, status: r.status, resHeaders: Object.fromEntries(r.headers), res: text });
  return r;
};
const c = new Client({ name: 'h26', version: '1' }, { capabilities: {}, versionNegotiation: { mode: { pin: '2026-07-28' } } });
await c.connect(new StreamableHTTPClientTransport(new URL(base), { fetch: fetchLogged, requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
const l1 = await c.listTools();
const f = await c.callTool({ name: 'find_tools', arguments: { query: 'weather' } });
const l2 = await c.listTools();
console.log('list1', l1.tools.map((t) => t.name), 'list2', l2.tools.map((t) => t.name));
console.log('find', f.content[0].text.slice(0, 300));
for (const e of log) console.log(JSON.stringify(e).slice(0, 700));
await c.close();
