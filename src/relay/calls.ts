/**
 * The relay: what passes between hosts and upstreams untouched during the gateway's work,
 * composed from one small module per kind (progress, logging, sampling, elicitation,
 * roots, cancellation). It knows the live host sessions, the connected upstream clients
 * and which session has which call in flight to which upstream (registry.ts).
 *
 * Hooks: the pool reports each connected upstream client (`attach`); each Session
 * `join`s and `leave`s and wraps its forwarded tools/calls in `during`.
 *
 * ### Usage
 * ```ts
 * const relay = new Relay({ mayUse: (persona, upstream) => true, requestMs: 600_000 });
 * pool.on('connected', (name, client) => relay.attach(name, client));
 * const session = relay.join({ id: 's1', server });
 * const result = await relay.during(relay.hostRequest(session, ctx), 'files', (opts) => pool.call('files', 'read', args, opts));
 * ```
 */
import type { Client } from '@modelcontextprotocol/client';
import { ProtocolErrorCode, type ClientCapabilities, type InputRequiredResult, type LoggingLevel, type LoggingMessageNotification, type Server, type ServerContext } from '@modelcontextprotocol/server';
import type { MayReceive } from '../policy/contents.js';
import type { CallOptions } from '../upstream/types.js';
import { Bridge, MAX_OPEN_BRIDGES } from './bridge.js';
import { relayElicitation, urlElicitationRequired, UrlElicitations } from './elicitation.js';
import { deliverLog, mostVerbose, passes, relayLogging, setUpstreamLevel, type LogTargets } from './logging.js';
import { droppedNotice, LogRate } from './logRate.js';
import { keepArrivalOrder } from './order.js';
import { relayProgress } from './progress.js';
import { InFlight } from './registry.js';
import { relayRoots, rootsChanged } from './roots.js';
import { relaySampling } from './sampling.js';
import { RelayError, type HostRequest, type HostSession } from './types.js';

export { RelayError, type HostRequest, type HostSession } from './types.js';

/**
 * What the gateway's client declares to every upstream: what it can relay to a host.
 * Whether the host of a given call really supports it is checked per request; if not,
 * the upstream gets an MCP error at once. `applyDefaults`: a form answer without a field
 * that has a schema default gets the default filled in (SEP-1034), as a client should.
 */
export const UPSTREAM_CAPABILITIES: ClientCapabilities = {
  sampling: { context: {}, tools: {} },
  elicitation: { form: { applyDefaults: true }, url: {} },
  roots: { listChanged: true },
};

/**
 * What `during` needs to relay an upstream's questions to a 2026 host (bridge.ts): set
 * (by relay/inputRequired.ts) only for a 2026 host's request.
 */
export interface Bridging {
  /** What the host declared in its request: the questions it can be asked. */
  capabilities: ClientCapabilities;
  /** A retry continuing a bridge: its id (from the opened seal) and the host's answers. */
  resume?: { bridge: string; responses: Record<string, unknown> };
}

export interface CallRelayOptions {
  /** Whether a persona may use any tool of an upstream (who may see its log messages outside calls). */
  mayUse: (persona: string | undefined, upstream: string) => boolean;
  /**
   * Longest wait for the host's answer to a relayed request (sampling, elicitation,
   * roots), in ms: the upstream call's maximum total time, since a person may be answering.
   */
  requestMs: number;
  /** Longest wait for an upstream's answer to `logging/setLevel`, in ms. Default 10 s. */
  setLevelMs?: number;
  /** Log messages per upstream and session per second (config `relay.max_log_per_second`). Default 50. */
  maxLogPerSecond?: number;
  /**
   * How the resources inside an upstream's sampling request are decided for a persona
   * (Relay.mayReceive); undefined for either passes them all. Default: passes them all.
   */
  mayReceive?: (persona: string | undefined, server: string) => MayReceive | undefined;
}

export class CallRelay {
  readonly inFlight = new InFlight();
  private readonly sessions = new Set<HostSession>();
  private readonly upstreams = new Map<string, Client>();
  /** Users' own connections (`<upstream>@<user>`) still open, for `logging/setLevel`; no more than upstream/users.ts keeps open, closed ones dropped. */
  private readonly own = new Map<string, Client>();
  private readonly urls = new UrlElicitations();
  /** Most verbose level asked for so far; applied to upstreams that connect later too. */
  private upstreamLevel: LoggingLevel | undefined;
  private readonly logRate: LogRate;
  /** Bridges whose questions wait for a 2026 host's retry (bridge.ts), by id. */
  private readonly bridges = new Map<string, Bridge<unknown>>();

  constructor(private readonly opts: CallRelayOptions) {
    const perSecond = opts.maxLogPerSecond ?? 50;
    this.logRate = new LogRate(perSecond, (session, upstream, dropped) => {
      const params = droppedNotice(upstream, dropped, perSecond);
      if (!this.sessions.has(session) || !passes(params.level, session.logLevel)) return;
      session.server.notification({ method: 'notifications/message', params }).catch(() => undefined);
    });
  }

  /**
   * Installs the relay's handlers on a newly connected upstream client (also after a reconnect).
   * @param shared false for a connection of one user (upstream/users.ts, key `<upstream>@<user>`):
   *   its questions and log messages reach only that user's calls, and it takes no part in
   *   roots changes. It follows `logging/setLevel` as the shared ones do, for as long as it
   *   is open: the level decides what the upstream sends, each session's own level what
   *   reaches it.
   * @param server the configured upstream behind the connection, whose resource rules apply; default `upstream`.
   */
  attach(upstream: string, client: Client, shared = true, server = upstream): void {
    if (shared) this.upstreams.set(upstream, client);
    else this.ownConnections(upstream, client);
    keepArrivalOrder(client);
    relaySampling(upstream, client, this.inFlight, this.opts.requestMs, (persona) => this.opts.mayReceive?.(persona, server));
    relayElicitation(upstream, client, this.inFlight, this.urls, this.opts.requestMs);
    relayRoots(upstream, client, this.inFlight, this.opts.requestMs);
    relayLogging(upstream, client, (u) => this.logTargets(u));
    if (this.upstreamLevel) void setUpstreamLevel(new Map([[upstream, client]]), this.upstreamLevel, this.setLevelMs);
  }

  /**
   * A host session joins: its `logging/setLevel` is answered here (and passed on), and
   * its `notifications/roots/list_changed` goes to the upstreams its persona may use.
   * Call before `server.connect`.
   */
  join(identity: { id: string; persona?: string }, server: Server): HostSession {
    const session: HostSession = { ...identity, server };
    this.sessions.add(session);
    server.setRequestHandler('logging/setLevel', async (req) => {
      session.logLevel = req.params.level;
      await this.levelChanged();
      return {};
    });
    server.setNotificationHandler('notifications/roots/list_changed', () => {
      rootsChanged(new Map([...this.upstreams].filter(([u]) => this.opts.mayUse(session.persona, u))));
    });
    return session;
  }

  leave(session: HostSession): void {
    this.sessions.delete(session);
  }

  /** The relay's view of a host's tools/call, from the SDK request handler's context. */
  hostRequest(session: HostSession, ctx: ServerContext): HostRequest {
    const { progressToken, ...meta } = ctx.mcpReq._meta ?? {};
    return {
      session,
      requestId: ctx.mcpReq.id,
      signal: ctx.mcpReq.signal,
      ...(progressToken !== undefined && { progressToken }),
      ...(Object.keys(meta).length > 0 && { meta }),
      sendRequest: ctx.mcpReq.send,
      sendNotification: ctx.mcpReq.notify,
    };
  }

  /**
   * Runs `call` (the upstream tools/call) as in flight for `host` to `upstream`, so that
   * what the upstream sends meanwhile reaches `host`. Without a host request (a call not
   * made by a host session) it runs with no relay. With `bridging` (a 2026 host), the
   * upstream's questions are held and the host answered `input_required` (bridge.ts); a
   * retry that continues one (`bridging.resume`) answers them instead of calling again.
   * @throws RelayError for an upstream's -32042 (URL elicitation required), to be passed to
   *   the host as is; -32602 for a retry whose bridge is not open here.
   */
  during<T>(host: HostRequest | undefined, upstream: string, call: (opts: CallOptions) => Promise<T>): Promise<T>;
  during<T>(host: HostRequest | undefined, upstream: string, call: (opts: CallOptions) => Promise<T>, bridging: Bridging | undefined): Promise<T | InputRequiredResult>;
  async during<T>(host: HostRequest | undefined, upstream: string, call: (opts: CallOptions) => Promise<T>, bridging?: Bridging): Promise<T | InputRequiredResult> {
    if (!host) return call({});
    if (bridging) return this.bridged(host, upstream, call, bridging);
    const end = this.inFlight.begin(upstream, host);
    try {
      return await call({ signal: host.signal, onprogress: relayProgress(host), meta: host.meta });
    } catch (err) {
      throw urlElicitationRequired(err, upstream, host.session, this.urls) ?? err;
    } finally {
      end();
    }
  }

  /**
   * Ends the held call `id` (bridge.ts), if this process holds it: its questions are refused
   * to the upstream and its call cancelled. For a state spent on a retry that does not
   * continue it (inputRequired.ts), so the call does not wait out its timeout.
   */
  abandon(id: string): void {
    const bridge = this.bridges.get(id);
    if (!bridge) return;
    this.bridges.delete(id);
    bridge.abandon();
  }

  /** `during` for a 2026 host: the call runs behind a bridge that holds the upstream's questions for the host's retry. */
  private async bridged<T>(host: HostRequest, upstream: string, call: (opts: CallOptions) => Promise<T>, bridging: Bridging): Promise<T | InputRequiredResult> {
    let bridge: Bridge<T>;
    if (bridging.resume) {
      const open = this.bridges.get(bridging.resume.bridge) as Bridge<T> | undefined;
      if (!open || open.upstream !== upstream) {
        throw new RelayError(ProtocolErrorCode.InvalidParams, 'requestState names questions no longer open on this gateway (answered already, expired, or asked on another replica): call again without requestState');
      }
      this.bridges.delete(open.id);
      bridge = open;
      bridge.answer(bridging.resume.responses);
    } else {
      bridge = new Bridge<T>(host, upstream, bridging.capabilities, () => this.bridges.delete(bridge.id));
      const end = this.inFlight.begin(upstream, bridge.request);
      bridge.start((signal) => call({ signal, onprogress: relayProgress(bridge.request), meta: host.meta }), end);
    }
    let outcome: T | InputRequiredResult;
    try {
      outcome = await bridge.run(host);
    } catch (err) {
      throw urlElicitationRequired(err, upstream, host.session, this.urls) ?? err;
    }
    // A call that ended meanwhile is not kept: its retry is told to call again.
    if (outcome !== null && typeof outcome === 'object' && (outcome as InputRequiredResult).requestState === bridge.id && bridge.open) {
      if (this.bridges.size >= MAX_OPEN_BRIDGES) {
        bridge.answer({});
        throw new RelayError(ProtocolErrorCode.InternalError, `the gateway holds ${MAX_OPEN_BRIDGES} requests waiting for their hosts' answers; try again later`);
      }
      this.bridges.set(bridge.id, bridge as Bridge<unknown>);
    }
    return outcome;
  }

  private logTargets(upstream: string): LogTargets {
    const sessions = this.sessions;
    const mayUse = this.opts.mayUse;
    return {
      inFlight: this.inFlight.to(upstream),
      // Computed only when nothing is in flight (deliverLog reads it then).
      get mayUse() {
        return [...sessions].filter((s) => mayUse(s.persona, upstream));
      },
      admit: (s) => this.logRate.admit(s, upstream),
    };
  }

  /** Sends an upstream's log message to its targets (logging.ts); exposed for tests of the routing. */
  log(upstream: string, params: LoggingMessageNotification['params']): Promise<void> {
    return deliverLog(upstream, params, this.logTargets(upstream));
  }

  private get setLevelMs(): number {
    return this.opts.setLevelMs ?? 10_000;
  }

  private async levelChanged(): Promise<void> {
    const level = mostVerbose([...this.sessions].map((s) => s.logLevel));
    if (level === undefined || level === this.upstreamLevel) return;
    this.upstreamLevel = level;
    await setUpstreamLevel(new Map([...this.upstreams, ...this.ownConnections()]), level, this.setLevelMs);
  }

  /** Records a user's own connection under its key (a reconnect replaces it); returns those still open. */
  private ownConnections(key?: string, client?: Client): Map<string, Client> {
    for (const [k, c] of this.own) if (c.transport === undefined) this.own.delete(k);
    if (key !== undefined && client !== undefined) this.own.set(key, client);
    return this.own;
  }
}
