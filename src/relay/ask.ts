/**
 * How a request from an upstream is sent on to the host: as related to the host's
 * tools/call (the SDK handler context's `mcpReq.send`; over Streamable HTTP it goes out
 * on that call's response stream), aborted when the upstream withdraws it or the host
 * cancels the call, and bounded in time.
 */
import type { RequestOptions } from '@modelcontextprotocol/server';
import type { HostRequest } from './types.js';

/**
 * @param upstreamSignal the signal of the upstream's request (aborted by its `notifications/cancelled`).
 * @param timeoutMs how long the host may take to answer (a person may be typing).
 */
export function askOptions(host: HostRequest, upstreamSignal: AbortSignal, timeoutMs: number): RequestOptions {
  return { signal: AbortSignal.any([upstreamSignal, host.signal]), timeout: timeoutMs };
}
