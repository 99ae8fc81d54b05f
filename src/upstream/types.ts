/**
 * The upstream pool's public shapes: its options, what it reports per upstream, and the
 * per-call options of a forwarded tools/call. relay/ reads them; nothing here knows of
 * relay/ (the dependency runs one way: relay → upstream).
 */
import type { ClientCapabilities, Progress, ServerCapabilities } from '@modelcontextprotocol/client';
import type { AuthMethod, UpstreamAuth } from './auth/index.js';
import type { Store } from '../store/types.js';
import type { UpstreamEra } from './era.js';
import type { Down } from './notConnected.js';
import type { RelayLists } from './lists.js';

/**
 * Default bound on a tool result, in bytes of its JSON: 10 MiB. The same as the limit the
 * SDK's stdio transport imposed (so no result that passed before is refused now), room
 * for a few images as base64 (the Claude API takes images of up to 5 MB each), and far
 * past what a model can read (1 MiB of text is about 250,000 tokens).
 */
export const DEFAULT_MAX_RESULT_BYTES = 10 * 1024 * 1024;

/**
 * `connecting`: starting (or, after a failure, trying again while the status still shows
 * the last error); `needs_authorization`: a remote upstream waiting for a person's consent
 * (`tool-curator auth <name>`); its tools are absent until then, and the pool picks the
 * new tokens up by itself once they are stored.
 */
export type UpstreamState = 'connecting' | 'ready' | 'failed' | 'needs_authorization' | 'closed';

/** How a remote upstream authorizes, and whether the last attempt was refused. */
export interface UpstreamAuthStatus {
  method: AuthMethod;
  /** `needs_authorization`: consent missing; `refused`: the server answered 401/403. */
  state: 'ok' | 'needs_authorization' | 'refused';
  /**
   * A scope a tool asked for beyond the granted ones (a 403 `insufficient_scope`), waiting
   * for `tool-curator auth <name>`; the upstream's other tools keep working meanwhile.
   */
  moreScope?: string;
  /** Set for an upstream each user reaches with their own account; `state` is then that of the gateway's own (catalog) authorization. */
  perUser?: true;
}

export interface UpstreamStatus {
  name: string;
  state: UpstreamState;
  tools: number;
  error?: string;
  /** Process id of a stdio upstream: its supervisor's (supervisor.ts), where there is one. */
  pid?: number;
  /** Remote upstreams only. */
  auth?: UpstreamAuthStatus;
  /** The protocol era of the current connection (era.ts); unset while none is open. */
  era?: UpstreamEra;
  /** `failed` and `needs_authorization` only: since when it has not been usable (notConnected.ts). */
  down?: Down;
}

export interface PoolOptions {
  /** Folder relative `cwd`s resolve against (the config file's). */
  baseDir: string;
  /** Time to connect and list tools, per upstream. */
  startupMs: number;
  /** Time a forwarded tools/call gets; each progress notification from the upstream starts it again. */
  callMs: number;
  /** Longest total time of a forwarded tools/call, however much progress it reports. Default: `callMs`. */
  callMaxMs?: number;
  /** First reconnect delay; doubles per failure up to 30 s. Default 1000 ms. */
  reconnectBaseMs?: number;
  /** OAuth providers for remote upstreams with `auth` (upstream/auth). */
  auth?: UpstreamAuth;
  /** How often an upstream waiting for consent checks the store for new tokens. Default 2000 ms. */
  authPollMs?: number;
  /** Cap per upstream on each relayed list (config `relay.max_items`). Default 5000. */
  maxItems?: number;
  /** Largest tools/call result passed on, in bytes of its JSON (config `relay.max_result_bytes`). Default 10 MiB. */
  maxResultBytes?: number;
  /**
   * Largest message read from an upstream, in bytes; a longer one is skipped and the
   * request it answered gets an error, with the connection kept. Default `maxResultBytes`.
   */
  maxMessageBytes?: number;
  /** What the gateway's client declares to every upstream (the relay passes what it can relay on). Default none. */
  capabilities?: ClientCapabilities;
  /** Notifications from one upstream that arrive within this many ms cause one re-list. Default 100 ms. */
  coalesceMs?: number;
  /** The store's era verdicts and response cache, shared by replicas (connect.ts). Unset: probe each connect, cache in memory. */
  memory?: Pick<Store, 'eras' | 'responseCache'>;
}

/** Per-call options of a forwarded tools/call: the host's cancellation, progress relay and `_meta`. */
export interface CallOptions {
  signal?: AbortSignal;
  onprogress?: (progress: Progress) => void;
  meta?: Record<string, unknown>;
  /**
   * A 2026 upstream's `input_required` answer is handed back (relay/inputRequired.ts
   * passes it to a 2026 host) instead of being fulfilled through the client's request
   * handlers (which relay each question to a 2025 host's session). Default false.
   */
  allowInputRequired?: boolean;
  /** The retry of an earlier `input_required`: the answers, and the upstream's own `requestState` echoed byte for byte. */
  retry?: { inputResponses: Record<string, unknown>; requestState?: string };
}

/** One upstream's relayed state, as src/relay/ reads it. */
export interface RelayedUpstream {
  name: string;
  caps: ServerCapabilities;
  lists: RelayLists;
}
