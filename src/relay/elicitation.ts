/**
 * Elicitation, upstream → host. An upstream's `elicitation/create` (form or URL mode)
 * during a tools/call goes to the host session that made the call, if that host declared
 * the mode; the answer goes back unchanged. A URL elicitation's later
 * `notifications/elicitation/complete` goes to the session that was asked. An upstream's
 * tools/call that fails with -32042 (URL elicitation required) reaches the host as that
 * same JSON-RPC error, and the completion of each URL it lists is routed the same way.
 *
 * This is the upstream's question, and the host's user is shown so: its message starts
 * with `[<upstream> asks]` (the configured name, also for a user's own connection), so it
 * never reads as the gateway's own approval prompt. It is a
 * separate request from the gateway's own confirmation of an action
 * (guards/confirmation.ts), which is asked, and answered, before the call is forwarded at
 * all: nothing answered here approves anything.
 */
import { UrlElicitationRequiredError, type Client } from '@modelcontextprotocol/client';
import { log } from '../log.js';
import { upstreamOfKey } from '../upstream/users.js';
import { askOptions } from './ask.js';
import type { InFlight } from './registry.js';
import { RelayError, type HostSession } from './types.js';

/** Open URL elicitations kept for their completion notice; the oldest is forgotten past this many. */
export const MAX_OPEN_URL_ELICITATIONS = 256;

/** Who was asked each open URL elicitation, keyed by upstream and elicitation id. */
export class UrlElicitations {
  private readonly open = new Map<string, HostSession>();

  remember(upstream: string, id: string, session: HostSession): void {
    const key = `${upstream}\0${id}`;
    this.open.delete(key);
    this.open.set(key, session);
    for (const k of this.open.keys()) {
      if (this.open.size <= MAX_OPEN_URL_ELICITATIONS) break;
      this.open.delete(k);
    }
  }

  /** The session asked `id` by `upstream`, forgotten once taken. */
  take(upstream: string, id: string): HostSession | undefined {
    const key = `${upstream}\0${id}`;
    const session = this.open.get(key);
    this.open.delete(key);
    return session;
  }
}

/**
 * An upstream's question as the host's user sees it: marked as that upstream's, so it can
 * never pass for the gateway's own approval prompt ("Allow <tool> … to run?").
 *
 * ### Usage
 * ```ts
 * marked('files', 'Allow make_payment to run?'); // '[files asks] Allow make_payment to run?'
 * ```
 */
export function marked(upstream: string, message: string): string {
  // A user's own connection is keyed `<upstream>@<user>`: the user's key (issuer, subject) is not the host's to read.
  return `[${upstreamOfKey(upstream)} asks] ${message.trimStart()}`;
}

export function relayElicitation(upstream: string, client: Client, inFlight: InFlight, urls: UrlElicitations, timeoutMs: number): void {
  client.setRequestHandler('elicitation/create', async (req, ctx) => {
    const params = { ...req.params, message: marked(upstream, req.params.message) };
    const url = params.mode === 'url';
    const host = inFlight.askee(upstream, `elicitation/create (${url ? 'url' : 'form'} mode)`, (caps) =>
      url ? caps.elicitation?.url !== undefined : caps.elicitation?.form !== undefined,
    );
    if (params.mode === 'url') urls.remember(upstream, params.elicitationId, host.session);
    return host.sendRequest({ method: 'elicitation/create', params }, askOptions(host, ctx.mcpReq.signal, timeoutMs));
  });
  client.setNotificationHandler('notifications/elicitation/complete', async (notification) => {
    const session = urls.take(upstream, notification.params.elicitationId);
    if (!session) return log.debug({ upstream, elicitationId: notification.params.elicitationId }, 'elicitation/complete for no open URL elicitation; dropped');
    await session.server.notification(notification).catch((err: Error) => log.debug({ upstream, err: err.message }, 'could not relay elicitation/complete'));
  });
}

/**
 * An upstream's -32042 (URL elicitation required) as the error to pass to the host: same
 * code, the upstream's own message and data. Remembers who is asked each listed URL.
 * @returns undefined for any other error.
 */
export function urlElicitationRequired(err: unknown, upstream: string, session: HostSession, urls: UrlElicitations): RelayError | undefined {
  if (!(err instanceof UrlElicitationRequiredError)) return undefined;
  for (const e of err.elicitations) urls.remember(upstream, e.elicitationId, session);
  const elicitations = err.elicitations.map((e) => ({ ...e, message: marked(upstream, e.message) }));
  return new RelayError(err.code, err.message, { ...(err.data as object), elicitations });
}
