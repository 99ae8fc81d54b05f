/**
 * What a host is told of an upstream that is not connected: it failed to start, or its
 * connection was lost. Which (the caller names the upstream), since when (ISO time, UTC:
 * a failure may be days old), and where its operator looks; the gateway retries it either
 * way. The same words in a call's answer (pool.ts) and in find_tools' `unavailable`
 * (gateway/upstreamView.ts).
 */

/** When an upstream stopped being usable, as the pool records it: a retry keeps the first time. */
export interface Down {
  /** Epoch ms of the failed start or of the loss of the connection. */
  since: number;
  /** It had been connected: `since` is when its connection was lost. */
  lost: boolean;
}

/** `2026-12-06T20:04:13Z`: ISO 8601 in UTC, to the second. */
export const isoTime = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

/**
 * ### Usage
 * ```ts
 * notConnected({ since: Date.parse('2026-12-06T20:04:13Z'), lost: false }, false);
 * // 'not connected since 2026-12-06T20:04:13Z, when it failed to start; the gateway keeps retrying it; `tool-curator doctor` tells its operator why (check its command in the config)'
 * ```
 * @param remote whether the upstream is reached at a URL (else it is a command the gateway runs).
 */
export function notConnected(down: Down | undefined, remote: boolean): string {
  const look = `\`tool-curator doctor\` tells its operator why (check its ${remote ? 'url' : 'command'} in the config)`;
  if (!down) return `not connected; ${look}`;
  const what = down.lost ? 'when its connection was lost; the gateway is reconnecting' : 'when it failed to start; the gateway keeps retrying it';
  return `not connected since ${isoTime(down.since)}, ${what}; ${look}`;
}
