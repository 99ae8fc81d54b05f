/**
 * The upstreams as the name guard sees them (guards/nameGuard.ts UpstreamView): who is
 * configured, which can be reached now, and whose tool each remembered exposed name was.
 */
import type { UpstreamView } from '../guards/nameGuard.js';
import type { UpstreamPool, UpstreamState } from '../upstream/pool.js';

/** Why a tool of an upstream in this state cannot be called, as the name guard says it; undefined when it can. */
const UNAVAILABLE: Record<UpstreamState, string | undefined> = {
  ready: undefined,
  connecting: 'still starting',
  failed: 'not connected',
  needs_authorization: "waiting for a person's authorization",
  closed: 'closed',
};

/**
 * @param configured every upstream of gateway.config.yaml.
 * @param formerOwner the upstream whose tool was last exposed under a name (the remembered name map).
 */
export function upstreamView(pool: UpstreamPool, configured: readonly string[], formerOwner: (name: string) => string | undefined): UpstreamView {
  return {
    names: () => configured,
    unavailable: (server) => UNAVAILABLE[pool.status().find((u) => u.name === server)?.state ?? 'ready'],
    formerOwner,
  };
}
