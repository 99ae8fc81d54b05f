import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
const [base, token, ...queries] = process.argv.slice(2);
const c = new Client({ name: 'h26', version: '1' }, { capabilities: {}, versionNegotiation: { mode: { pin: '2026-07-28' } } });
await c.connect(new StreamableHTTPClientTransport(new URL(base), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
for (const q of queries) {
  const f = await c.callTool({ name: 'find_tools', arguments: { query: q } });
  const j = JSON.parse(f.content[0].text);
  console.log(q, '=>', j.tools.map((t) => t.name).join(', '), '| keys:', Object.keys(j).join(','), j.hint ?? '');
}
await c.close();
