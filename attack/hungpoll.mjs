// Polls find_tools' `unavailable` once a second for `secs` seconds (a hung upstream retried after its start-up timeout).
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
const [config, secs] = process.argv.slice(2);
const c = new Client({ name: 'h', version: '1' }, { capabilities: {} });
await c.connect(new StdioClientTransport({ command: process.execPath, args: ['../dist/src/cli.js', 'serve', '--config', config], stderr: 'ignore' }));
let last = '';
for (let i = 0; i < +secs; i++) {
  const f = JSON.parse((await c.callTool({ name: 'find_tools', arguments: { query: 'echo text back' } })).content[0].text);
  const now = new Date().toISOString().slice(11, 19);
  const u = JSON.stringify(f.unavailable ?? []);
  if (u !== last) console.log(now, u);
  last = u;
  await new Promise((r) => setTimeout(r, 1000));
}
await c.close();
