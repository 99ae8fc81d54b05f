/**
 * The protocol era of each upstream connection: how the SDK client negotiates it
 * (`upstreams.<name>.protocol`), and the verdict kept in the store so a restart or
 * another replica connects with `prior` instead of probing again (the SDK's gateway
 * guide). A verdict is keyed by the connection's identity (what is spawned or dialled,
 * and for whom), dated, and used for VERDICT_HORIZON_MS at most: a stale legacy verdict
 * would otherwise hide an upgraded server forever.
 */
import { createHash } from 'node:crypto';
import { SdkError, SdkErrorCode, UnauthorizedError, type Client, type DiscoverResult, type PriorDiscovery, type ProtocolEra } from '@modelcontextprotocol/client';
import type { UpstreamConfig, UpstreamProtocol } from '../config/schema.js';
import { log } from '../log.js';
import type { EraVerdictsPart } from '../store/types.js';
import { NeedsAuthorizationError, UpstreamAuthError } from './auth/errors.js';

/**
 * How long a stored verdict is used: one day. A server upgraded to 2026-07-28 is found
 * within a day of its upgrade without a probe on every start; a downgraded one fails its
 * first request and is probed again at once (forget below).
 */
export const VERDICT_HORIZON_MS = 24 * 60 * 60 * 1000;

/** The `versionNegotiation` option of the SDK client for `protocol`, with the probe bounded by `probeMs`. */
export function negotiation(protocol: UpstreamProtocol, probeMs: number) {
  const probe = { timeoutMs: probeMs };
  if (protocol === '2025-11-25') return { mode: 'legacy' as const };
  if (protocol === '2026-07-28') return { mode: { pin: '2026-07-28' }, probe };
  return { mode: 'auto' as const, probe };
}

/**
 * What a connection to `cfg` is, independent of process and replica: the same key on
 * every replica that connects the same way. `principal` is the user a per-user
 * connection acts for; the gateway's own connections have none.
 */
export function connectionKey(name: string, cfg: UpstreamConfig, principal?: string): string {
  const target = 'command' in cfg ? { command: cfg.command, args: cfg.args, cwd: cfg.cwd ?? null } : { url: cfg.url, transport: cfg.transport };
  const digest = createHash('sha256').update(JSON.stringify({ target, protocol: cfg.protocol, principal: principal ?? null })).digest('base64url').slice(0, 22);
  // JSON: no NUL (PostgreSQL text refuses it) and no name that could end inside another's key.
  return JSON.stringify([name, digest]);
}

/** A verdict read for one connect: the prior to pass, and how to record or retract the outcome. */
export interface EraMemory {
  prior?: PriorDiscovery;
  /** Stores what `client` negotiated by probing, dated now. */
  record(client: Client): Promise<void>;
  /** Drops the stored verdict (it led to a failure): the next connect probes. */
  forget(): Promise<void>;
}

/**
 * Reads the verdict for `key` under `protocol`: a pinned 2025 era needs none; a fresh
 * stored one becomes the prior. A store that fails is logged and treated as empty.
 */
export async function eraMemory(store: EraVerdictsPart | undefined, key: string, protocol: UpstreamProtocol, now = Date.now()): Promise<EraMemory> {
  const none: EraMemory = { record: async () => undefined, forget: async () => undefined };
  if (!store || protocol === '2025-11-25') return none;
  const row = await store.get(key).catch((err: Error) => log.warn({ err: err.message }, 'era verdict unreadable; probing'));
  const fresh = row && now - row.storedAt < VERDICT_HORIZON_MS && (row.era === 'modern' || protocol === 'auto');
  const prior: PriorDiscovery | undefined = !fresh ? undefined : row.era === 'legacy' ? { kind: 'legacy' } : parsePrior(row.discover);
  const forget = () => store.drop(key).catch((err: Error) => log.warn({ err: err.message }, 'era verdict could not be dropped'));
  return {
    prior,
    forget,
    record: async (client) => {
      const discover = client.getDiscoverResult();
      await store.put(key, discover ? { era: 'modern', discover: JSON.stringify(discover) } : { era: 'legacy' }).catch((err: Error) => log.warn({ err: err.message }, 'era verdict not stored'));
    },
  };
}

function parsePrior(text: string | undefined): PriorDiscovery | undefined {
  try {
    return text ? { kind: 'modern', discover: JSON.parse(text) as DiscoverResult } : undefined;
  } catch {
    return undefined;
  }
}

/** A prior that shares no revision with the client: the SDK refused it before anything reached the transport. */
export function staleModernPrior(err: unknown): boolean {
  return err instanceof SdkError && err.code === SdkErrorCode.EraNegotiationFailed;
}

/**
 * What a failed connect is about: a version-negotiation probe that an authorization
 * refusal ended (a 401 the stored tokens could not answer, a step-up) is that refusal,
 * which the callers act on (a consent link, `auth`, the step-up notice); the SDK's
 * wrapper would hide it as a protocol failure. Anything else is returned as it is.
 */
export function probeCause(err: unknown): unknown {
  if (!(err instanceof SdkError) || err.code !== SdkErrorCode.EraNegotiationFailed) return err;
  const cause = err.cause;
  return cause instanceof NeedsAuthorizationError || cause instanceof UpstreamAuthError || cause instanceof UnauthorizedError ? cause : err;
}

/** The era for status and logs: `2026-07-28` (modern) or `2025` (the legacy family). */
export function eraLabel(era: ProtocolEra | undefined): UpstreamEra | undefined {
  return era === 'modern' ? '2026-07-28' : era === 'legacy' ? '2025' : undefined;
}

export type UpstreamEra = '2026-07-28' | '2025';
