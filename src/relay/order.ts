/**
 * Keeps an upstream's messages in arrival order. The SDK's Protocol (1.32, 2.4.0) runs a
 * notification handler one microtask after the notification arrives but handles a
 * response at once, retiring the request's progress handler: progress (and a log
 * message) read in the same chunk as the call's result is then handled after the call
 * ended, and progress is dropped as "unknown token" (typescript-sdk issue #2580; seen
 * here under load on every other call). Handling responses one microtask later, behind
 * the notifications already queued, restores the order the upstream sent them in.
 */
import type { Client } from '@modelcontextprotocol/client';

/** Call once per connected client, after `connect`. */
export function keepArrivalOrder(client: Client): void {
  const transport = client.transport;
  const dispatch = transport?.onmessage;
  if (!transport || !dispatch) return;
  transport.onmessage = (message, extra) => {
    // The transport has parsed the message as JSON-RPC already: a response is what has no method.
    if (!('method' in message)) void Promise.resolve().then(() => dispatch(message, extra));
    else dispatch(message, extra);
  };
}
