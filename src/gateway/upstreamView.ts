/**
 * The upstreams as the name guard sees them (guards/nameGuard.ts UpstreamView): who is
 * configured, which can be reached now, which are still starting (since when, until
 * when), which failed to start or lost their connection (since when, what to check), and
 * whose tool each remembered exposed name was.
 */
import type { UpstreamView } from '../guards/nameGuard.js';
import { isoTime, notConnected } from '../upstream/notConnected.js';
import type { UpstreamPool, UpstreamState } from '../upstream/pool.js';

/** Why a tool of an upstream in this state cannot be called, as the name guard says it (a starting one: `starting` below; a failed one: notConnected). */
const UNAVAILABLE: Record<Exclude<UpstreamState, 'ready' | 'connecting' | 'failed' | 'needs_authorization'>, string> = {
  closed: 'closed',
};

/** An upstream waiting for OAuth consent: since when, and the command its operator runs (docs/AUTH.md). */
const awaitingConsent = (server: string, since: number | undefined) =>
  `waiting for a person's authorization${since === undefined ? '' : ` since ${isoTime(since)}`}; its operator runs \`tool-curator auth ${server}\``;

/** A time of day as the messages give it: UTC to the second (`12:53:41Z`). */
const clock = (ms: number) => `${new Date(ms).toISOString().slice(11, 19)}Z`;

export interface UpstreamViewOptions {
  /** Every upstream of gateway.config.yaml. */
  configured: readonly string[];
  /** The upstream whose tool was last exposed under a name (the remembered name map). */
  formerOwner(name: string): string | undefined;
  /** Every remembered exposed name with its upstream (the remembered name map). */
  remembered?(): Iterable<[name: string, server: string]>;
  /** When the gateway started its upstreams (epoch ms). */
  startedAt(): number;
  /** An upstream's start-up timeout in ms (`startup_timeout_ms`, else `timeouts.startup_ms`). */
  startupMs(server: string): number;
  /** Whether an upstream is reached at a URL (else it is a command the gateway runs): what its operator checks when it is not connected. */
  remote(server: string): boolean;
}

/**
 * An upstream `connecting` that has never been connected is starting since the gateway
 * started, and has until its start-up timeout; one that was connected before is
 * reconnecting (the pool's backoff decides when it tries again).
 */
export function upstreamView(pool: UpstreamPool, opts: UpstreamViewOptions): UpstreamView {
  const connectedOnce = new Set<string>();
  pool.on('connected', (name: string) => connectedOnce.add(name));
  const statusOf = (server: string) => pool.status().find((u) => u.name === server);
  const stateOf = (server: string) => statusOf(server)?.state ?? 'ready';
  const starting = (server: string): string => {
    if (connectedOnce.has(server)) return 'reconnecting';
    const since = opts.startedAt();
    const ago = Math.max(0, Math.round((Date.now() - since) / 1000));
    return `still starting since ${clock(since)}, ${ago} s ago; it has until ${clock(since + opts.startupMs(server))} to connect`;
  };
  return {
    names: () => opts.configured,
    unavailable: (server) => {
      const status = statusOf(server);
      const state = status?.state ?? 'ready';
      if (state === 'ready') return undefined;
      if (state === 'failed') return notConnected(status?.down, opts.remote(server));
      if (state === 'needs_authorization') return awaitingConsent(server, status?.down?.since);
      return state === 'connecting' ? starting(server) : UNAVAILABLE[state];
    },
    starting: () => opts.configured.filter((server) => stateOf(server) === 'connecting').map((server) => ({ server, why: starting(server) })),
    formerOwner: opts.formerOwner,
    ...(opts.remembered && { remembered: opts.remembered }),
  };
}
