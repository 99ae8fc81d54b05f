/**
 * Reads a 2026-07-28 upstream's result without `resultType` as `complete`, as the
 * 2026-07-28 specification and the conformance suite's client check
 * (sep-2322-default-result-type-complete) say a client must. The SDK 2.4.0 client refuses
 * such a result in its codec ("missing required resultType"); its nearest extension point
 * is the transport's `onmessage`, so the field is supplied there before the SDK reads the
 * response. A 2025 connection is left alone: the SDK's 2025 codec reads it as complete
 * already, and a 2025 result has no `resultType` to supply.
 */
import type { Client } from '@modelcontextprotocol/client';

/** Call once per client, right after `connect` (before anything else wraps its transport). */
export function readAbsentResultTypeAsComplete(client: Client): void {
  const transport = client.transport;
  const dispatch = transport?.onmessage;
  if (!transport || !dispatch) return;
  transport.onmessage = (message, extra) => {
    // A structural look, not a schema parse on every message: the SDK validates the message itself right after.
    const result = (message as { result?: unknown }).result;
    if (client.getProtocolEra() !== 'modern' || typeof result !== 'object' || result === null || Array.isArray(result) || 'resultType' in result) return dispatch(message, extra);
    dispatch({ ...message, result: { ...result, resultType: 'complete' } } as typeof message, extra);
  };
}
