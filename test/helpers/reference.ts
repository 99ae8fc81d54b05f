/**
 * A gateway config over the MCP reference servers from npm (filesystem on a temporary
 * directory, memory, everything), spawned over stdio exactly as a user would configure
 * them, plus helpers to start the built gateway and connect a real MCP client to it.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client, type ClientOptions } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { dump } from 'js-yaml';
import { inject } from 'vitest';

export const ROOT = resolve(import.meta.dirname, '../..');
export const CLI = join(ROOT, 'dist/src/cli.js');
const pkg = (name: string) => join(ROOT, 'node_modules/@modelcontextprotocol', name, 'dist/index.js');

export interface ReferenceSetup {
  dir: string;
  /** The folder the filesystem server serves. */
  filesDir: string;
  configPath: string;
}

/**
 * Writes a config for the three reference servers into a fresh temp dir. `extra` is merged
 * at top level; without a `curator` of its own the config ranks in hybrid mode with USE,
 * seeded from the global setup's vector file.
 */
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
    // The catalog's vectors come from the file the global setup built (test/setup/referenceVectors.ts).
    curator: 'curator' in extra ? extra.curator : { mode: 'hybrid', top_k: 8, embedder: 'use', vectors: inject('referenceVectors') },
    // Upstream start-up took over the 20 s default on a loaded machine.
    timeouts: { startup_ms: 120_000, list_wait_ms: 120_000 },
    store: join(dir, 'store.db'),
    ...extra,
  };
  mkdirSync(filesDir);
  const configPath = join(dir, 'gateway.config.yaml');
  writeFileSync(configPath, dump(config));
  return { dir, filesDir, configPath };
}

/**
 * How long connectGateway waits for the gateway's index by default. Test configs seed their
 * vectors from a file (university.vectors, the global setup's reference.vectors), so this
 * covers upstream start-up on a loaded 2-core machine, plus a cold build for configs that
 * want one. Callers' hooks need a timeout above it.
 */
export const INDEX_READY_MS = 300_000;

/** The gateway's log line once its first catalog is fully indexed (dense included). */
export const GATEWAY_READY = /"msg":"gateway ready"/;

/** More of the host connectGateway makes: its other client options (a pinned protocol era), and a step on its transport before it connects. */
export interface HostSetup {
  options?: Omit<ClientOptions, 'capabilities'>;
  beforeConnect?: (transport: StdioClientTransport) => void;
}

/**
 * Spawns `tool-curator serve` over stdio and connects an SDK Client to it, then waits
 * (up to `readyMs`) until the gateway logs that its index is built, so find_tools ranks
 * with every retriever: the gateway answers find_tools from BM25 alone before that.
 */
export async function connectGateway(
  configPath: string,
  args: string[] = [],
  capabilities: Record<string, unknown> = {},
  readyMs = INDEX_READY_MS,
  host: HostSetup = {},
): Promise<{ client: Client; transport: StdioClientTransport; stderr: () => string }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'serve', '--config', configPath, ...args],
    stderr: 'pipe',
    // info: the "gateway ready" line; warnings and errors pass too.
    env: { ...process.env, TOOL_CURATOR_LOG: 'info' } as Record<string, string>,
  });
  let stderr = '';
  let seen: () => void;
  const ready = new Promise<void>((resolve) => (seen = resolve));
  transport.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
    if (GATEWAY_READY.test(stderr)) seen();
  });
  const client = new Client({ name: 'test-host', version: '1.0.0' }, { ...host.options, capabilities });
  host.beforeConnect?.(transport);
  await client.connect(transport);
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`gateway index not ready after ${readyMs} ms:\n${stderr.slice(-4000)}`)), readyMs);
  });
  try {
    await Promise.race([ready, late]);
  } finally {
    clearTimeout(timer);
  }
  return { client, transport, stderr: () => stderr };
}

/**
 * Waits (polling, up to `ms`) until `log()` past its first `from` characters matches `re`.
 * @returns the match.
 * @throws naming `re`, with the log's tail, when it never appears.
 */
export async function logLine(log: () => string, re: RegExp, from = 0, ms = 60_000): Promise<string> {
  for (const until = Date.now() + ms; Date.now() < until; await new Promise((r) => setTimeout(r, 50))) {
    const m = re.exec(log().slice(from));
    if (m) return m[0];
  }
  throw new Error(`no log line ${re} within ${ms} ms:\n${log().slice(-3000)}`);
}

/** Waits (polling, up to `timeoutMs`) until `check()` holds: a readiness wait, not a timing assertion. @throws naming `what`. */
export async function until(check: () => boolean, what: string, timeoutMs = 120_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
