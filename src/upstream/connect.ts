/**
 * Opens one MCP client connection to one upstream: a spawned process over stdio, or a
 * remote server over Streamable HTTP with SSE as the fallback for older servers.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { resolveFrom } from '../config/load.js';
import type { UpstreamConfig } from '../config/schema.js';
import { log } from '../log.js';

export const CLIENT_INFO = { name: 'tool-curator', version: '0.1.0' };

export interface Connection {
  client: Client;
  transport: Transport;
  /** Child process id for stdio upstreams. */
  pid?: number;
}

function newClient(): Client {
  return new Client(CLIENT_INFO, { capabilities: {} });
}

/**
 * Connects to `cfg`. Resolves once the MCP initialize handshake is done.
 * @throws when the process cannot start, exits, or the server does not answer; the
 *   caller bounds the wait with its start-up timeout.
 */
export async function connectUpstream(name: string, cfg: UpstreamConfig, baseDir: string): Promise<Connection> {
  if ('command' in cfg) {
    const transport = new StdioClientTransport({
      command: cfg.command,
      args: cfg.args,
      env: { ...getDefaultEnvironment(), ...process.env, ...cfg.env } as Record<string, string>,
      cwd: cfg.cwd ? resolveFrom(baseDir, cfg.cwd) : baseDir,
      stderr: 'pipe',
    });
    // An upstream's stderr is its log; prefix it so a user can tell the servers apart.
    transport.stderr?.on('data', (chunk: Buffer) => {
      for (const line of chunk.toString('utf8').split('\n')) if (line.trim()) log.debug({ upstream: name }, line);
    });
    const client = newClient();
    await client.connect(transport);
    return { client, transport, pid: transport.pid ?? undefined };
  }
  const url = new URL(cfg.url);
  const requestInit = cfg.headers ? { headers: cfg.headers } : undefined;
  if (cfg.transport !== 'sse') {
    const client = newClient();
    const transport = new StreamableHTTPClientTransport(url, { requestInit });
    try {
      await client.connect(transport);
      return { client, transport };
    } catch (err) {
      if (cfg.transport === 'streamable-http') throw err;
      log.info({ upstream: name, err: (err as Error).message }, 'Streamable HTTP failed; trying SSE');
      await client.close().catch(() => undefined);
    }
  }
  const client = newClient();
  const transport = new SSEClientTransport(url, { requestInit, eventSourceInit: cfg.headers ? { fetch: (u, init) => fetch(u, { ...init, headers: { ...cfg.headers, ...(init?.headers as Record<string, string>) } }) } : undefined });
  await client.connect(transport);
  return { client, transport };
}
