import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
const [config, tool] = process.argv.slice(2);
const c = new Client({ name: 'h', version: '1' }, { capabilities: {} });
await c.connect(new StdioClientTransport({ command: process.execPath, args: ['../dist/src/cli.js', 'serve', '--config', config], stderr: 'ignore' }));
const r = await c.callTool({ name: 'call_tool', arguments: { name: tool, arguments: {} } });
console.log(r.content.map((b) => b.text).join(' | '));
await c.close();
