/**
 * Concurrent POSTs that reuse a request id within one HTTP session. The SDK's
 * StreamableHTTPServerTransport maps each request id to the HTTP response that carries
 * its answer; a second request with an id still in flight overwrites that mapping, so
 * one of the two never gets an answer. Here such a POST waits until the earlier one's
 * response has ended, then goes to the transport: each gets its own answer.
 */
import type { ServerResponse } from 'node:http';
import type { RequestId } from '@modelcontextprotocol/server';

/** The ids of the requests in a POST body (one message or an array); notifications and responses have none that matter. */
export function requestIds(body: unknown): RequestId[] {
  const messages = Array.isArray(body) ? body : [body];
  return messages.flatMap((m) => {
    if (!m || typeof m !== 'object' || !('method' in m) || !('id' in m)) return [];
    const id = (m as { id: unknown }).id;
    return typeof id === 'string' || typeof id === 'number' ? [id] : [];
  });
}

/** One per HTTP session: the request ids whose responses are still open. */
export class InFlightIds {
  private readonly open = new Map<string, Promise<void>>();

  /**
   * Runs `handle` (which answers on `res`) once no earlier POST of this session holding
   * one of `ids` is still open; `res` ending releases the ids.
   */
  async run(ids: RequestId[], res: ServerResponse, handle: () => Promise<void>): Promise<void> {
    if (ids.length === 0) return handle();
    const keys = ids.map((id) => `${typeof id}:${id}`);
    const earlier = keys.map((k) => this.open.get(k)).filter((p): p is Promise<void> => p !== undefined);
    const ended = new Promise<void>((resolve) => {
      res.once('close', resolve);
      res.once('finish', resolve);
    });
    for (const k of keys) {
      const mine = Promise.all([...earlier, ended]).then(() => {
        if (this.open.get(k) === mine) this.open.delete(k);
      });
      this.open.set(k, mine);
    }
    await Promise.all(earlier);
    return handle();
  }
}
