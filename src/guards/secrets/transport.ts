/**
 * The step on the way out to the host: every message the gateway sends a host (results,
 * errors, notifications, requests relayed from upstreams, find_tools and list answers)
 * passes `SecretRedactor.redact` at the host transport's `send`, so no path that answers a
 * host can miss it. Messages leave in the order they were sent; while a rotated token is
 * being read (HeldSecrets.track) they wait for it, in order.
 */
import type { Transport } from '@modelcontextprotocol/server';
import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import { log } from '../../log.js';
import type { SecretRedactor } from './redactor.js';
import { WalkLimitError } from './walk.js';

/** The message with its payload (`params`, `result`, `error`) redacted; `jsonrpc`, `id` and `method` as they are. */
function redacted(message: JSONRPCMessage, redactor: SecretRedactor): JSONRPCMessage | undefined {
  const m = message as Record<string, unknown>;
  try {
    let out = m;
    for (const part of ['params', 'result', 'error'] as const) {
      if (m[part] === undefined) continue;
      const r = redactor.redact(m[part]);
      if (r !== m[part]) out = { ...out, [part]: r };
    }
    return out as JSONRPCMessage;
  } catch (err) {
    if (!(err instanceof WalkLimitError)) throw err;
    log.warn({ method: m.method, id: m.id, reason: err.what }, 'a message to the host is too large to check for secrets; not sent');
    if (m.id === undefined || m.method !== undefined) return undefined;
    return { jsonrpc: '2.0', id: m.id as string | number, error: { code: -32603, message: `tool-curator: the answer is too large to check for secrets (${err.what}); ask for less` } };
  }
}

/**
 * `transport`, whose `send` redacts first. Wrap before `server.connect(transport)`.
 *
 * ### Usage
 * ```ts
 * await session.server.connect(redactingTransport(new StdioServerTransport(), redactor));
 * ```
 */
export function redactingTransport<T extends Transport>(transport: T, redactor: SecretRedactor): T {
  const send = transport.send.bind(transport);
  let queue: Promise<unknown> | undefined;
  const deliver = (message: JSONRPCMessage, options: Parameters<Transport['send']>[1]) => {
    const out = redacted(message, redactor);
    return out === undefined ? Promise.resolve() : send(out, options);
  };
  transport.send = (message, options) => {
    const wait = redactor.held.settled();
    if (!wait && !queue) return deliver(message, options);
    const run = (queue ?? Promise.resolve()).then(() => wait).then(() => deliver(message, options));
    const tail = run.catch(() => undefined);
    queue = tail;
    void tail.then(() => {
      if (queue === tail) queue = undefined;
    });
    return run;
  };
  return transport;
}
