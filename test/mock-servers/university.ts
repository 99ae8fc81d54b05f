/**
 * Test harness for the university testbed: starts the eight mock servers as real child
 * processes over stdio against a fresh temporary fixture database, and routes calls to
 * whichever server lists the tool. Requires the build (`npm run build`); if
 * dist/mock-servers is missing it runs tsc once.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, type CallToolResult, type Tool } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

export const SERVERS = ['academics', 'attendance', 'examinations', 'finance', 'hostel', 'library', 'placements', 'administration'] as const;
export type ServerName = (typeof SERVERS)[number];
export type ListedTool = Tool & { server: ServerName };

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

export function serverEntry(name: string): string {
  return join(ROOT, 'dist', 'mock-servers', `${name}.js`);
}

/** Builds with tsc when the compiled servers are missing (the lead's pretest normally does). */
export function ensureBuilt(): void {
  if (SERVERS.every((s) => existsSync(serverEntry(s)))) return;
  spawnSync(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(ROOT, 'tsconfig.json')], { stdio: 'inherit' });
  const missing = SERVERS.filter((s) => !existsSync(serverEntry(s)));
  if (missing.length) throw new Error(`mock servers not built (${missing.join(', ')}); run npm run build`);
}

export async function connect(name: string, dbPath: string): Promise<Client> {
  const client = new Client({ name: `test-${name}`, version: '1.0.0' });
  await client.connect(new StdioClientTransport({
    command: process.execPath,
    args: [serverEntry(name)],
    env: { ...(process.env as Record<string, string>), UNIVERSITY_DB: dbPath },
    stderr: 'pipe',
  }));
  return client;
}

/** The text of a tool result, parsed as JSON when it is JSON. */
export function payload(result: CallToolResult): unknown {
  const text = result.content.map((c) => (c.type === 'text' ? c.text : '')).join('');
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export function errorText(result: CallToolResult): string {
  return result.content.map((c) => (c.type === 'text' ? c.text : '')).join('');
}

/** Eight servers on one temporary fixture database. */
export class University {
  readonly clients = new Map<ServerName, Client>();
  readonly tools: ListedTool[] = [];
  private readonly route = new Map<string, ServerName>();
  private dir = '';

  async start(): Promise<this> {
    ensureBuilt();
    this.dir = mkdtempSync(join(tmpdir(), 'university-'));
    const db = join(this.dir, 'university.db');
    await Promise.all(SERVERS.map(async (s) => this.clients.set(s, await connect(s, db))));
    for (const s of SERVERS) {
      const { tools } = await this.clients.get(s)!.listTools();
      for (const t of tools) {
        this.tools.push({ ...t, server: s });
        this.route.set(t.name, s);
      }
    }
    return this;
  }

  async call(name: string, args: Record<string, unknown> = {}): Promise<CallToolResult> {
    const server = this.route.get(name);
    if (!server) throw new Error(`no server lists ${name}`);
    return (await this.clients.get(server)!.callTool({ name, arguments: args })) as CallToolResult;
  }

  /** Calls a tool that must succeed and returns its parsed payload. */
  async ok<T = any>(name: string, args: Record<string, unknown> = {}): Promise<T> {
    const result = await this.call(name, args);
    if (result.isError) throw new Error(`${name}(${JSON.stringify(args)}) failed: ${errorText(result)}`);
    return payload(result) as T;
  }

  async stop(): Promise<void> {
    await Promise.all([...this.clients.values()].map((c) => c.close()));
    if (this.dir) rmSync(this.dir, { recursive: true, force: true });
  }
}
