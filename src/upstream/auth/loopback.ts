/**
 * Receives the authorization server's redirect on a loopback port (RFC 8252): one small
 * HTTP listener on 127.0.0.1 that answers `/callback?code=...&state=...` and hands the
 * code (and the `iss` of RFC 9207, if sent) to whoever waits for it. Only the `auth` command runs one, for its own duration.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What a redirect brings: the code and the issuer it names (RFC 9207), which the SDK's `auth()` checks. */
export interface Redirected {
  code: string;
  iss?: string;
}

type Outcome = (Redirected | { error: string }) & { state?: string };

/** Redirects kept until someone waits for them: a browser may come back before `next` is called. */
const MAX_ARRIVED = 10;

const PAGE = (title: string, text: string) =>
  `<!doctype html><meta charset="utf-8"><title>${title}</title><h1>${title}</h1><p>${text}</p>`;

export interface Loopback {
  /** `http://127.0.0.1:<port>/callback` */
  redirectUrl: string;
  /**
   * The code (and `iss`) of the next redirect that carries `state`. Rejects when the server
   * redirected with an `error` for this `state`, or after `timeoutMs`. A redirect with
   * another state (a URL of an earlier run, opened again) is answered and ignored.
   */
  next(state: string | undefined, timeoutMs: number): Promise<Redirected>;
  close(): Promise<void>;
}

/** Listens on 127.0.0.1:`port` (0: any free port). */
export async function startLoopback(port: number): Promise<Loopback> {
  const arrived: Outcome[] = [];
  let waiter: ((o: Outcome) => boolean) | undefined;
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname !== '/callback') {
      res.writeHead(404).end();
      return;
    }
    const code = url.searchParams.get('code');
    const error = url.searchParams.get('error');
    const state = url.searchParams.get('state') ?? undefined;
    const outcome: Outcome = code
      ? { code, state, iss: url.searchParams.get('iss') ?? undefined }
      : { state, error: error ? `${error}${url.searchParams.get('error_description') ? `: ${url.searchParams.get('error_description')}` : ''}` : 'the redirect carried neither code nor error' };
    const taken = waiter?.(outcome);
    if (waiter && !taken) {
      res.writeHead(400, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE('Not this authorization', 'This redirect belongs to an earlier authorization; use the URL Tool Curator shows now.'));
      return;
    }
    res
      .writeHead(code ? 200 : 400, { 'content-type': 'text/html; charset=utf-8' })
      .end(code ? PAGE('Authorized', 'Tool Curator received the authorization. You can close this window.') : PAGE('Authorization failed', 'Tool Curator did not get an authorization; see the terminal.'));
    if (!taken) arrived.push(outcome) > MAX_ARRIVED && arrived.shift();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const { port: bound } = server.address() as AddressInfo;
  return {
    redirectUrl: `http://127.0.0.1:${bound}/callback`,
    next(state, timeoutMs) {
      return new Promise<Redirected>((resolve, reject) => {
        const timer = setTimeout(() => {
          waiter = undefined;
          reject(new Error(`no authorization arrived at http://127.0.0.1:${bound}/callback within ${Math.round(timeoutMs / 1000)} s`));
        }, timeoutMs);
        /** Settles on a redirect of this authorization; returns whether `o` was one. */
        const settle = (o: Outcome): boolean => {
          if (state !== undefined && o.state !== state) return false;
          clearTimeout(timer);
          waiter = undefined;
          if ('error' in o) reject(new Error(`the authorization server refused: ${o.error}`));
          else resolve({ code: o.code, ...(o.iss !== undefined && { iss: o.iss }) });
          return true;
        };
        const early = arrived.find((o) => state === undefined || o.state === state);
        arrived.length = 0;
        if (!early || !settle(early)) waiter = settle;
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
