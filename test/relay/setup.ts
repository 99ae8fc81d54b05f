/**
 * Two fixture upstreams (and one that never starts) behind the built gateway: alpha over stdio (spawned by the
 * gateway), beta over Streamable HTTP (spawned here, shared by every gateway of a test
 * file). Personas `full` (everything) and `limited` (some resources and prompts denied).
 * Hosts are the SDK's real Client, over stdio or over the gateway's Streamable HTTP face.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, InMemoryTransport, ProtocolError, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { expect } from 'vitest';
import { dump } from 'js-yaml';
import { loadConfig } from '../../src/config/load.js';
import { Gateway } from '../../src/gateway/gateway.js';
import { Session } from '../../src/gateway/session.js';
import { freePort, spawnUntil } from '../helpers/process.js';
import { CLI } from '../helpers/reference.js';

export const FIXTURES = join(import.meta.dirname, 'fixtures');
export const TOKENS = { full: 'full-token-0123456789abcdef', limited: 'limited-token-0123456789abcdef' };

export const PERSONAS = {
  full: { allow: ['*'], resources: { allow: ['*'] }, prompts: { allow: ['*'] }, confirm: 'none' },
  limited: {
    allow: ['*'],
    // alpha's resources but not its secrets; of beta only what its item template expands to.
    resources: { allow: ['alpha.*', 'beta.beta://item/{n}'], deny: ['alpha.secret://*'] },
    prompts: { allow: ['*'], deny: ['alpha.internal_*'] },
    confirm: 'none',
  },
};

export interface Upstreams {
  betaUrl: string;
  beta: ChildProcess;
}

export async function startBeta(): Promise<Upstreams> {
  const { child, stderr } = await spawnUntil(process.execPath, [join(FIXTURES, 'beta.mjs')], /beta listening on \S+\n/);
  return { beta: child, betaUrl: /beta listening on (\S+)/.exec(stderr())![1]! };
}

/** A gateway config over alpha (stdio) and beta (HTTP); the gateway's own pages hold 4 items. */
export function relayConfig(betaUrl: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'tc-relay-'));
  writeFileSync(join(dir, 'personas.yaml'), dump(PERSONAS));
  const config = {
    upstreams: {
      alpha: { command: process.execPath, args: [join(FIXTURES, 'alpha.mjs')] },
      beta: { url: betaUrl, transport: 'streamable-http' },
      // Exits at once: it drops out of every aggregate, which still answers.
      broken: { command: process.execPath, args: ['-e', 'process.exit(3)'] },
    },
    curator: { mode: 'bm25', top_k: 12, embedder: 'none' },
    store: join(dir, 'store.db'),
    policy: { personas: 'personas.yaml' },
    session: { persona: 'full' },
    relay: { page_size: 4 },
    // These tests read the aggregate of both upstreams from the first request on.
    timeouts: { list_wait_ms: 120_000 },
    http: { tokens: [{ token: TOKENS.full, persona: 'full' }, { token: TOKENS.limited, persona: 'limited' }] },
  };
  const configPath = join(dir, 'gateway.config.yaml');
  writeFileSync(configPath, dump(config));
  return configPath;
}

/** The built gateway over stdio, as `persona`, with the SDK Client as host. */
export async function stdioHost(configPath: string, persona: string): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'serve', '--config', configPath, '--persona', persona],
    stderr: 'ignore',
    env: { ...process.env, TOOL_CURATOR_LOG: 'warn' } as Record<string, string>,
  });
  const client = new Client({ name: 'stdio-host', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

/** The built gateway in HTTP mode; `host(token)` connects one more host session. */
export async function httpGateway(configPath: string): Promise<{ child: ChildProcess; host: (token: string) => Promise<Client> }> {
  const port = await freePort();
  const { child } = await spawnUntil(process.execPath, [CLI, 'serve', '--config', configPath, '--http', String(port)], /serving MCP over Streamable HTTP/, { TOOL_CURATOR_LOG: 'info' });
  const host = async (token: string) => {
    const transport = new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${token}` } } });
    const client = new Client({ name: 'http-host', version: '1.0.0' });
    await client.connect(transport);
    return client;
  };
  return { child, host };
}

/**
 * The gateway in process (its own objects within reach) over `upstreams`, open policy,
 * BM25 only; the host is the SDK's Client on an in-memory pair. `extra` is merged at top level.
 */
export async function inProcessGateway(upstreams: Record<string, unknown>, extra: Record<string, unknown> = {}): Promise<{ gateway: Gateway; host: Client }> {
  const dir = mkdtempSync(join(tmpdir(), 'tc-relay-inproc-'));
  const config = { upstreams, curator: { mode: 'bm25', embedder: 'none' }, store: join(dir, 'store.db'), ...extra };
  writeFileSync(join(dir, 'gateway.config.yaml'), dump(config));
  const gateway = await Gateway.start(loadConfig(join(dir, 'gateway.config.yaml')), { noEmbedder: true });
  const session = new Session(gateway, {});
  const [a, b] = InMemoryTransport.createLinkedPair();
  await session.server.connect(a);
  const host = new Client({ name: 'host', version: '1' });
  await host.connect(b);
  return { gateway, host };
}

/** Direct clients of the two upstreams, without the gateway: what the host must receive unchanged. */
export async function directClients(betaUrl: string): Promise<{ alpha: Client; beta: Client }> {
  const alpha = new Client({ name: 'direct', version: '1.0.0' });
  await alpha.connect(new StdioClientTransport({ command: process.execPath, args: [join(FIXTURES, 'alpha.mjs')], stderr: 'ignore' }));
  const beta = new Client({ name: 'direct', version: '1.0.0' });
  await beta.connect(new StreamableHTTPClientTransport(new URL(betaUrl)));
  return { alpha, beta };
}

/** The MCP error `p` rejects with; fails the test when it resolves or rejects with anything else. */
export async function mcpError(p: Promise<unknown>): Promise<ProtocolError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ProtocolError);
  return err as ProtocolError;
}
