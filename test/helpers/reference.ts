/**
 * A gateway config over the MCP reference servers from npm (filesystem on a temporary
 * directory, memory, everything), spawned over stdio exactly as a user would configure
 * them, plus helpers to start the built gateway and connect a real MCP client to it.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { dump } from 'js-yaml';

export const ROOT = resolve(import.meta.dirname, '../..');
export const CLI = join(ROOT, 'dist/src/cli.js');
const pkg = (name: string) => join(ROOT, 'node_modules/@modelcontextprotocol', name, 'dist/index.js');

export interface ReferenceSetup {
  dir: string;
  /** The folder the filesystem server serves. */
  filesDir: string;
  configPath: string;
}

/** Writes a config for the three reference servers into a fresh temp dir. `extra` is merged at top level. */
export function referenceConfig(extra: Record<string, unknown> = {}, upstreams: Record<string, unknown> = {}): ReferenceSetup {
  const dir = mkdtempSync(join(tmpdir(), 'tc-ref-'));
  const filesDir = join(dir, 'files');
  const config = {
    upstreams: {
      files: { command: process.execPath, args: [pkg('server-filesystem'), filesDir] },
      memory: { command: process.execPath, args: [pkg('server-memory')], env: { MEMORY_FILE_PATH: join(dir, 'memory.jsonl') } },
      everything: { command: process.execPath, args: [pkg('server-everything'), 'stdio'] },
      ...upstreams,
    },
    curator: { mode: 'hybrid', top_k: 8, embedder: 'use' },
    store: join(dir, 'store.db'),
    ...extra,
  };
  mkdirSync(filesDir);
  const configPath = join(dir, 'gateway.config.yaml');
  writeFileSync(configPath, dump(config));
  return { dir, filesDir, configPath };
}

/** Spawns `tool-curator serve` over stdio and connects an SDK Client to it. */
export async function connectGateway(configPath: string, args: string[] = [], capabilities: Record<string, unknown> = {}): Promise<{ client: Client; transport: StdioClientTransport }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'serve', '--config', configPath, ...args],
    stderr: 'pipe',
    env: { ...process.env, TOOL_CURATOR_LOG: 'warn' } as Record<string, string>,
  });
  const client = new Client({ name: 'test-host', version: '1.0.0' }, { capabilities });
  await client.connect(transport);
  return { client, transport };
}
