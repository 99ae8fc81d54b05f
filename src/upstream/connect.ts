/**
 * Opens one MCP client connection to one upstream: a spawned process over stdio, or a
 * remote server over Streamable HTTP with SSE as the fallback for older servers.
 */
import {
  type Client,
  SSEClientTransport,
  StreamableHTTPClientTransport,
  type ClientCapabilities,
  type OAuthClientProvider,
  type Transport,
} from '@modelcontextprotocol/client';
import { getDefaultEnvironment } from '@modelcontextprotocol/client/stdio';
import { resolveFrom } from '../config/load.js';
import type { UpstreamConfig } from '../config/schema.js';
import { log } from '../log.js';
import { authFailure, watchChallenges } from './auth/challenge.js';
import { authFetch } from './auth/index.js';
import { StoreOAuthProvider } from './auth/provider.js';
import { stepUpRefusal } from './auth/stepUp.js';
import type { Store } from '../store/types.js';
import { boundedFetch } from './boundedFetch.js';
import { ChildTransport } from './children.js';
import { UpstreamClient } from './client.js';
import { connectionKey, eraLabel, eraMemory, negotiation, probeCause, staleModernPrior, type UpstreamEra } from './era.js';
import { StoreResponseCache } from './responseCache.js';
import { readAbsentResultTypeAsComplete } from './resultType.js';
import { DEFAULT_MAX_RESULT_BYTES } from './types.js';

export const CLIENT_INFO = { name: 'tool-curator', version: '0.1.0' };

/**
 * How the Streamable HTTP client re-opens its GET stream (the upstream's notifications and
 * requests) after it drops: as the SDK's defaults, but up to an hour of attempts (30 s
 * apart at most) where the SDK stops after two. An upstream that restarts within that
 * answers the next attempt with 404 for the old session, which the pool sees (its
 * onerror) and answers with a new session and its subscriptions again.
 */
const GET_STREAM_RECONNECTION = { initialReconnectionDelay: 1000, maxReconnectionDelay: 30_000, reconnectionDelayGrowFactor: 1.5, maxRetries: 130 };

export interface Connection {
  client: Client;
  transport: Transport;
  /** Child process id for stdio upstreams. */
  pid?: number;
  /** Rewrites a later failure of this connection (tools/list, tools/call) that was an authorization refusal. */
  explain?: (err: unknown) => Error;
  /** The protocol era negotiated (era.ts). */
  era: UpstreamEra;
  /** Drops the stored era verdict this connection used or made: call it when the connection fails its first requests. */
  forgetEra(): Promise<void>;
}

export interface ConnectOptions {
  /** What the gateway's client declares to the upstream: what the relay can pass on to a host. Default none. */
  capabilities?: ClientCapabilities;
  /** Longest message read from the upstream, in bytes; a longer one is skipped and its request answered with an error. Default 10 MiB. */
  maxMessageBytes?: number;
  /** Ends a connect still in progress (the gateway is closing): the transport is closed, the process ended. */
  signal?: AbortSignal;
  /**
   * Where era verdicts and cached responses live (shared by replicas). Unset: every
   * connect probes (under `protocol: auto`) and each client caches in memory only.
   */
  memory?: Pick<Store, 'eras' | 'responseCache'>;
  /** The user a per-user connection acts for: its verdict and its `private` cache entries are its own. */
  principal?: string;
}

/** What `handshake` negotiates with: the config's protocol, the stored verdict, the cache. */
interface Negotiation {
  cfg: UpstreamConfig;
  name: string;
  /** The transport carries only the 2025 era (SSE): no probe unless the config pins 2026. */
  legacyTransport?: boolean;
}

/** Rejects after `ms` unless `p` settles first. */
export function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} timed out after ${ms} ms`)), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Opens the MCP connection over `transport` within `timeoutMs`: the era the config asks
 * for (era.ts: the stored verdict as `prior` while fresh, else the probe, whose outcome is
 * stored), with the store-backed response cache. A stored modern verdict the SDK refuses
 * (no revision in common any more) is dropped and the connect probes instead. On any
 * failure the client and its transport are closed — for stdio that kills the spawned
 * process, so an upstream that never answers leaves no orphan behind.
 */
async function handshake(transport: Transport, timeoutMs: number, what: string, opts: ConnectOptions, n: Negotiation): Promise<Connection> {
  const protocol = n.legacyTransport && n.cfg.protocol === 'auto' ? '2025-11-25' : n.cfg.protocol;
  const memory = await eraMemory(opts.memory?.eras, connectionKey(n.name, n.cfg, opts.principal), protocol);
  const maxBytes = opts.maxMessageBytes ?? DEFAULT_MAX_RESULT_BYTES;
  const client = new UpstreamClient(CLIENT_INFO, {
    capabilities: opts.capabilities ?? {},
    // Half the start-up time: a stdio server silent to the probe is a 2025 one, and initialize needs the rest.
    versionNegotiation: negotiation(protocol, Math.max(1, Math.floor(timeoutMs / 2))),
    ...(opts.memory && { responseCacheStore: new StoreResponseCache(opts.memory.responseCache, connectionKey(n.name, n.cfg), maxBytes), cachePartition: opts.principal ?? '' }),
  });
  const abort = () => void transport.close().catch(() => undefined);
  opts.signal?.addEventListener('abort', abort, { once: true });
  try {
    if (opts.signal?.aborted) throw new Error(`${what}: cancelled`);
    try {
      await withTimeout(client.connect(transport, { timeout: timeoutMs, ...(memory.prior && { prior: memory.prior }) }), timeoutMs, what);
    } catch (err) {
      if (!memory.prior || !staleModernPrior(err)) throw err;
      log.info({ upstream: n.name }, 'stored protocol verdict refused; probing again');
      await memory.forget();
      await withTimeout(client.connect(transport, { timeout: timeoutMs }), timeoutMs, what);
      memory.prior = undefined;
    }
    if (!memory.prior) await memory.record(client);
    readAbsentResultTypeAsComplete(client);
    const era = eraLabel(client.getProtocolEra()) ?? '2025';
    log.debug({ upstream: n.name, era, stored: memory.prior !== undefined }, 'upstream protocol era');
    return { client, transport, era, forgetEra: memory.forget };
  } catch (err) {
    await client.close().catch(() => undefined);
    await transport.close().catch(() => undefined);
    throw probeCause(err);
  } finally {
    opts.signal?.removeEventListener('abort', abort);
  }
}

/**
 * Connects to `cfg`. Resolves once the MCP initialize handshake is done. A remote upstream
 * uses `authProvider` (upstream/auth) for its tokens; a 401/403 is thrown as an
 * authorization error with the server's challenge, never masked by the SSE fallback.
 * @throws when the process cannot start, exits, or does not answer within `timeoutMs`.
 */
export async function connectUpstream(
  name: string,
  cfg: UpstreamConfig,
  baseDir: string,
  timeoutMs: number,
  authProvider?: OAuthClientProvider,
  opts: ConnectOptions = {},
): Promise<Connection> {
  const what = `connecting to upstream "${name}"`;
  const maxMessageBytes = opts.maxMessageBytes ?? DEFAULT_MAX_RESULT_BYTES;
  if ('command' in cfg) {
    const transport = new ChildTransport(
      {
        command: cfg.command,
        args: cfg.args,
        // The SDK's safe default environment (PATH, HOME, ...) plus the config's: the
        // gateway's own secrets (HTTP tokens, API keys) are not handed to every upstream.
        env: { ...getDefaultEnvironment(), ...cfg.env },
        cwd: cfg.cwd ? resolveFrom(baseDir, cfg.cwd) : baseDir,
        stderr: 'pipe',
      },
      { name, maxMessageBytes },
    );
    // An upstream's stderr is its log; tag it so a user can tell the servers apart.
    transport.stderr?.on('data', (chunk: Buffer) => {
      for (const line of chunk.toString('utf8').split('\n')) {
        if (!line.trim()) continue;
        log.debug({ upstream: name }, line);
        transport.keepStderr(line);
      }
    });
    try {
      const conn = await handshake(transport, timeoutMs, what, opts, { cfg, name });
      return { ...conn, pid: transport.pid ?? undefined };
    } catch (err) {
      // The handshake only sees "Connection closed"; the cause (a missing script, a
      // crash) is in the child's stderr and exit status. Stderr may trail the exit a little.
      await new Promise((resolve) => setTimeout(resolve, 50));
      throw new Error(transport.describeFailure((err as Error).message), { cause: err });
    }
  }
  const url = new URL(cfg.url);
  const requestInit = cfg.headers ? { headers: cfg.headers } : undefined;
  const refusal = authProvider instanceof StoreOAuthProvider ? stepUpRefusal(name, authProvider) : undefined;
  const watch = watchChallenges(url, boundedFetch(name, maxMessageBytes), refusal);
  // Refreshes of store-backed OAuth tokens happen once for the fleet (auth/refresh.ts).
  const fetch = authFetch(authProvider, watch.fetch);
  const explain = (err: unknown) => authFailure(name, err, watch, cfg.auth !== undefined) ?? (err as Error);
  if (cfg.transport !== 'sse') {
    try {
      const conn = await handshake(new StreamableHTTPClientTransport(url, { requestInit, authProvider, fetch, reconnectionOptions: GET_STREAM_RECONNECTION }), timeoutMs, what, opts, { cfg, name });
      return { ...conn, explain };
    } catch (err) {
      // A refusal is the answer, not a sign of an older server: falling back to SSE would hide it.
      const refused = authFailure(name, err, watch, cfg.auth !== undefined);
      if (refused) throw refused;
      // SSE carries only the 2025 era: no fallback for an upstream pinned to 2026-07-28.
      if (cfg.transport === 'streamable-http' || cfg.protocol === '2026-07-28') throw err;
      log.info({ upstream: name, err: (err as Error).message }, 'Streamable HTTP failed; trying SSE');
    }
  }
  const headers = cfg.headers;
  const eventSourceInit = headers
    ? { fetch: (u: string | URL, init?: RequestInit) => fetch(u, { ...init, headers: { ...headers, ...(init?.headers as Record<string, string>) } }) }
    : undefined;
  try {
    const conn = await handshake(new SSEClientTransport(url, { requestInit, eventSourceInit, authProvider, fetch }), timeoutMs, what, opts, { cfg, name, legacyTransport: true });
    return { ...conn, explain };
  } catch (err) {
    throw explain(err);
  }
}
