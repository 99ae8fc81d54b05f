/**
 * Keeps an upstream's messages in arrival order. The SDK's Protocol (1.32) runs a
 * notification handler one microtask after the notification arrives but handles a
 * response at once, retiring the request's progress handler: progress (and a log
 * message) read in the same chunk as the call's result is then handled after the call
 * ended, and progress is dropped as "unknown token" (typescript-sdk issue #2580; seen
 * here under load on every other call). Handling responses one microtask later, behind
 * the notifications already queued, restores the order the upstream sent them in.
 */
import { isJSONRPCErrorResponse, isJSONRPCResultResponse, type Client } from '@modelcontextprotocol/client';

/** Call once per connected client, after `connect`. */
export function keepArrivalOrder(client: Client): void {
  const transport = client.transport;
  const dispatch = transport?.onmessage;
  if (!transport || !dispatch) return;
  transport.onmessage = (message, extra) => {
    if (isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message)) void Promise.resolve().then(() => dispatch(message, extra));
    else dispatch(message, extra);
  };
}
