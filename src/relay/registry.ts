/**
 * Which host session has which tools/call in flight to which upstream. Requests an
 * upstream sends during a call (sampling, elicitation, roots) carry no link to the call
 * that caused them, and one upstream connection serves every session, so the only safe
 * routing is by upstream: to the one session with a call in flight there, and to nobody
 * when there is none or there are several (a question must never reach the wrong person).
 */
import { ProtocolErrorCode, type ClientCapabilities } from '@modelcontextprotocol/server';
import { RelayError, type HostRequest } from './types.js';

interface InFlightCall {
  upstream: string;
  request: HostRequest;
}

export class InFlight {
  /** In start order (a Set keeps insertion order). */
  private readonly calls = new Set<InFlightCall>();

  /**
   * Records that `request` is waiting on `upstream`.
   * @returns the function that ends the record; call it once the upstream answered.
   */
  begin(upstream: string, request: HostRequest): () => void {
    const call = { upstream, request };
    this.calls.add(call);
    return () => void this.calls.delete(call);
  }

  /** Host requests waiting on `upstream`, oldest first. */
  to(upstream: string): HostRequest[] {
    return [...this.calls].filter((c) => c.upstream === upstream).map((c) => c.request);
  }

  /** Number of calls in flight, over all upstreams. */
  get size(): number {
    return this.calls.size;
  }

  /**
   * The host request a question from `upstream` goes to: the oldest in-flight call of the
   * one session waiting on `upstream`.
   * @param what the request, for messages ("sampling/createMessage").
   * @param supports whether the host's declared capabilities cover this request.
   * @throws RelayError, at once: InvalidRequest when no session or several sessions are
   *   waiting on `upstream`; MethodNotFound when the host did not declare the capability.
   */
  askee(upstream: string, what: string, supports: (caps: ClientCapabilities) => boolean): HostRequest {
    const waiting = this.to(upstream);
    if (waiting.length === 0) {
      throw new RelayError(ProtocolErrorCode.InvalidRequest, `${what} refused by the gateway: no host session has a tools/call in flight to upstream "${upstream}"`);
    }
    const sessions = new Set(waiting.map((r) => r.session.id));
    if (sessions.size > 1) {
      throw new RelayError(
        ProtocolErrorCode.InvalidRequest,
        `${what} refused by the gateway: ${sessions.size} host sessions have tools/calls in flight to upstream "${upstream}", so it cannot tell whom to ask`,
      );
    }
    const request = waiting[0]!;
    if (!supports(request.capabilities ?? request.session.server.getClientCapabilities() ?? {})) {
      throw new RelayError(ProtocolErrorCode.MethodNotFound, `${what} is not supported by the host connected to the gateway`);
    }
    return request;
  }
}
