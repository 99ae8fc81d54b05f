// stdio host against a gateway with a healthy, a hung (4 s start-up timeout) and a dead upstream: timing of find_tools
// and calls, at start and again after the hung one's start-up timeout has passed.
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
const [config, ...names] = process.argv.slice(2);
const t0 = Date.now();
const c = new Client({ name: 'h', version: '1' }, { capabilities: {} });
await c.connect(new StdioClientTransport({ command: process.execPath, args: ['../dist/src/cli.js', 'serve', '--config', config], stderr: 'ignore' }));
const ms = () => `${Date.now() - t0} ms`;
const round = async (label) => {
  const f = JSON.parse((await c.callTool({ name: 'find_tools', arguments: { query: 'echo text back' } })).content[0].text);
  console.log(`[${label}] find_tools at ${ms()}:`, f.tools.map((t) => t.name).join(','), JSON.stringify(f.unavailable ?? []), f.hint ?? '');
  for (const name of names) {
    const r = await c.callTool({ name: 'call_tool', arguments: { name, arguments: { text: 'hi' } } });
    console.log(`[${label}] ${name} at ${ms()}: ${r.content.map((b) => b.text).join(' | ')}`);
  }
};
await round('start');
await new Promise((r) => setTimeout(r, 7000));
await round('after hung timeout');
await c.close();
