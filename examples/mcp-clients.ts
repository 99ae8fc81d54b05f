/**
 * MCP clients: curate the tools of several connected SDK Clients per query and call them
 * back through the gateway's guards (a misspelled name is corrected and said so; an action
 * tool needs the confirm callback's yes). Spawns the MCP reference servers for files and
 * memory over stdio: `node dist/examples/mcp-clients.js`.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client, type CallToolResult } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { curateMcpClients } from 'tool-curator/mcp';
import { exampleCachePath } from './tools.js';

const require = createRequire(import.meta.url);
const serverScript = (pkg: string) => join(dirname(require.resolve(`${pkg}/package.json`)), 'dist/index.js');

export const MCP_QUERIES = ['add to the knowledge graph that Alice prefers tea', 'show me what is in the notes folder', 'save a text file with the meeting notes'];

export interface McpExampleResult {
  /** Tool names selected per query in MCP_QUERIES. */
  selected: string[][];
  /** The misspelled call's result text (the guard's correction note included). */
  corrected: string;
  /** write_file refused without a person's yes, then run with it. */
  refusedText: string;
  approvedText: string;
  confirmations: string[];
}

async function connect(name: string, args: string[], env?: Record<string, string>): Promise<Client> {
  const client = new Client({ name: `example-${name}`, version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args, env: { ...(env ?? {}), PATH: process.env.PATH ?? '' }, stderr: 'ignore' }));
  return client;
}

const text = (r: CallToolResult) => r.content.map((c) => (c.type === 'text' ? c.text : `[${c.type}]`)).join('\n');

export async function runMcpClientsExample(): Promise<McpExampleResult> {
  const dir = mkdtempSync(join(tmpdir(), 'tc-example-'));
  writeFileSync(join(dir, 'todo.txt'), 'buy tea\n');
  const files = await connect('files', [serverScript('@modelcontextprotocol/server-filesystem'), dir]);
  const memory = await connect('memory', [serverScript('@modelcontextprotocol/server-memory')], { MEMORY_FILE_PATH: join(dir, 'memory.jsonl') });
  const confirmations: string[] = [];
  let allow = false;
  const curation = await curateMcpClients(
    { files, memory },
    {
      embedder: { provider: 'use' },
      cachePath: exampleCachePath(),
      topK: 5,
      // A person's yes or no; here scripted: the first write is refused, the second allowed.
      confirm: async (message) => {
        confirmations.push(message);
        return allow ? 'accept' : 'decline';
      },
    },
  );
  try {
    const selected: string[][] = [];
    for (const q of MCP_QUERIES) selected.push((await curation.select(q)).tools.map((t) => t.name));
    const corrected = text(await curation.callTool('list_directroy', { path: dir }));
    const write = { path: join(dir, 'notes.txt'), content: 'meeting at 10' };
    const refusedText = text(await curation.callTool('write_file', write));
    allow = true;
    const approvedText = text(await curation.callTool('write_file', write));
    return { selected, corrected, refusedText, approvedText, confirmations };
  } finally {
    await curation.close();
    await Promise.all([files.close(), memory.close()]);
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const r = await runMcpClientsExample();
  MCP_QUERIES.forEach((q, i) => process.stdout.write(`${q}\n  tools: ${r.selected[i]!.join(', ')}\n`));
  process.stdout.write(`list_directroy → ${r.corrected}\nwrite_file without a yes → ${r.refusedText}\nwrite_file with a yes → ${r.approvedText}\n`);
}
