/**
 * How the relay's reads, prompts and completions reach their upstream: on the caller's own
 * connection for a per-user upstream (consent offered as needed), on the shared one
 * otherwise, with the upstream's own MCP errors passed on. prompts/get and resources/read
 * may be answered with questions: those are relayed as during a tools/call — in flight for
 * the caller's host (calls.ts), so a 2025 host is asked them on its session, and to a 2026
 * host as `input_required` with a sealed state whose retry takes the answers upstream
 * (inputRequired.ts).
 */
import { ProtocolError, ProtocolErrorCode, type Client, type InputRequiredResult, type RequestOptions } from '@modelcontextprotocol/client';
import { hostBound } from '../upstream/envelope.js';
import type { UpstreamPool } from '../upstream/pool.js';
import type { CallOptions } from '../upstream/types.js';
import { userKey } from '../upstream/users.js';
import type { Bridging, CallRelay } from './calls.js';
import { RelayError } from './errors.js';
import { withHostCapabilities, withUpstreamInputFor } from './inputRequired.js';
import type { PerUserRelay } from './perUser.js';
import type { RelayCaller } from './types.js';

/** What one upstream leg of a read or prompt adds to its params: the host's `_meta` and, on a retry, the answers and the upstream's state. */
export interface UpstreamLegParams {
  _meta?: Record<string, unknown>;
  inputResponses?: Record<string, unknown>;
  requestState?: string;
}

/**
 * Passes an upstream's own MCP error on with its code and message; anything else (a lost
 * connection) becomes an internal error naming what failed.
 */
async function fromUpstream<T>(what: string, p: Promise<T>): Promise<T> {
  try {
    // The upstream's name in the result's _meta is its hop's (upstream/envelope.ts).
    return hostBound((await p) as { _meta?: Record<string, unknown> }) as T;
  } catch (err) {
    if (err instanceof ProtocolError) throw err;
    throw new RelayError(ProtocolErrorCode.InternalError, `${what} failed: ${(err as Error).message}`);
  }
}

export class UpstreamRequests {
  /**
   * @param callMs the time an upstream gets to answer one leg.
   * @param calls the call relay: without it, an upstream's questions during a read or prompt are refused.
   */
  constructor(
    private readonly pool: UpstreamPool,
    private readonly callMs: number,
    private readonly perUser?: PerUserRelay,
    private readonly calls?: Pick<CallRelay, 'during'>,
  ) {}

  /**
   * Runs `fn` on the connection that serves the caller for `server`: the caller's own for a
   * per-user upstream (consent offered as needed), the upstream's shared one otherwise.
   * @param again what the user does once connected ("read <uri>"), for consent messages.
   */
  async through<T>(who: RelayCaller, server: string, what: string, again: string, fn: (client: Client) => Promise<T>): Promise<T> {
    if (this.perUser?.has(server)) return fromUpstream(what, this.perUser.request(who, server, again, fn));
    const client = this.pool.client(server);
    if (!client) throw new RelayError(ProtocolErrorCode.InternalError, `upstream "${server}" is unavailable; try again later`);
    return fromUpstream(what, fn(client));
  }

  /**
   * `through`, for a request the upstream may answer with questions (prompts/get,
   * resources/read), relayed as the module comment says. The host's declared capabilities
   * go in the request's `_meta`, so a 2026 upstream asks only what the host can answer.
   * @param request what a state continuing it names: `prompts/get <name>`, `resources/read <uri>`.
   * @param args the request's arguments, bound into that state.
   * @param send the upstream request, with the params and options of this leg.
   */
  asking<T extends object>(
    who: RelayCaller,
    server: string,
    [what, again]: [string, string],
    request: string,
    args: Record<string, unknown> | undefined,
    send: (client: Client, params: UpstreamLegParams, options: RequestOptions) => Promise<T>,
  ): Promise<T | InputRequiredResult> {
    const fields = who.request ?? {};
    // A per-user upstream's questions come on the user's own connection (calls.ts attach).
    const key = this.perUser?.has(server) ? userKey(server, who.userId ?? '') : server;
    const inFlight = <R>(run: (relayed: CallOptions) => Promise<R>, bridging: Bridging | undefined) => (this.calls ? this.calls.during(who.host, key, run, bridging) : run({}));
    return withUpstreamInputFor(fields, request, args, server, who.inputRelay, ({ upstream, bridging }) =>
      this.through(who, server, what, again, (client) =>
        inFlight((relayed) => {
          const { meta, signal } = withHostCapabilities(fields, relayed);
          const params = { ...(meta && { _meta: meta }), ...upstream.retry };
          // With allowInputRequired the upstream's input_required comes back as it is (the SDK types it as the complete result).
          return send(client, params, { timeout: this.callMs, ...(signal && { signal }), ...(upstream.allowInputRequired && { allowInputRequired: true }) }) as Promise<T | InputRequiredResult>;
        }, bridging),
      ),
    );
  }
}
