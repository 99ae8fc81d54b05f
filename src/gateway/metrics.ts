/**
 * Prometheus metrics of the HTTP face (`http.metrics`), registered here and nowhere else,
 * in a registry of their own (two faces in one process never share counters). Off by
 * default: with metrics off nothing is created, and the stdio face never has any.
 *
 * What is counted where: MCP requests by method and outcome, and the latency of
 * find_tools and forwarded tools/call, by watching each HTTP session's transport (one
 * map entry per request in flight; no parsing beyond the fields read); everything else
 * (upstream and index state, open sessions, approvals pending) is read when Prometheus
 * scrapes, so it costs nothing between scrapes. Store errors come from the gateway's
 * `store-error` event (Gateway.storeFailed).
 */
import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/server';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { UpstreamState } from '../upstream/pool.js';
import type { Gateway, IndexState } from './gateway.js';
import { FIND_TOOLS } from './metaTools.js';

const PREFIX = 'tool_curator_';

/** MCP methods counted by name; any other method a host sends is counted as `other`, so a host cannot grow the label set. */
const METHODS = new Set([
  'initialize', 'ping', 'tools/list', 'tools/call', 'resources/list', 'resources/templates/list', 'resources/read',
  'resources/subscribe', 'resources/unsubscribe', 'prompts/list', 'prompts/get', 'completion/complete', 'logging/setLevel',
]);

const UPSTREAM_STATES: UpstreamState[] = ['connecting', 'ready', 'failed', 'needs_authorization', 'closed'];
const INDEX_STATES: IndexState[] = ['building', 'searchable', 'ready'];

/**
 * Latency buckets in seconds, 1 ms to 60 s: a tools/call through the gateway takes a few
 * ms, find_tools ~10–50 ms, a slow upstream up to `timeouts.call_ms` (60 s).
 */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/** `ok`, `error` (a JSON-RPC error) or `tool_error` (a tools/call result with `isError`). */
type Outcome = 'ok' | 'error' | 'tool_error';

interface InFlight {
  method: string;
  /** For tools/call: which histogram the latency goes to. */
  histogram?: Histogram<'outcome'>;
  started: number;
}

export class GatewayMetrics {
  readonly registry = new Registry();
  private readonly requests: Counter<'method' | 'outcome'>;
  private readonly findTools: Histogram<'outcome'>;
  private readonly toolCalls: Histogram<'outcome'>;
  private readonly onStoreError: (operation: string) => void;

  /** @param sessions the number of open HTTP sessions, read on each scrape. */
  constructor(private readonly gateway: Gateway, sessions: () => number) {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry, prefix: PREFIX });
    this.requests = new Counter({ name: `${PREFIX}requests_total`, help: 'MCP requests from hosts answered, by method and outcome (ok, error: a JSON-RPC error, tool_error: a tools/call result with isError)', labelNames: ['method', 'outcome'], registers });
    this.findTools = new Histogram({ name: `${PREFIX}find_tools_seconds`, help: 'find_tools latency in the gateway, from request to response, seconds', labelNames: ['outcome'], buckets: LATENCY_BUCKETS, registers });
    this.toolCalls = new Histogram({ name: `${PREFIX}tool_call_seconds`, help: 'tools/call latency in the gateway (every tool but find_tools: guards, upstream, audit), seconds', labelNames: ['outcome'], buckets: LATENCY_BUCKETS, registers });
    const storeErrors = new Counter({ name: `${PREFIX}store_errors_total`, help: 'Store operations that failed, by operation', labelNames: ['operation'], registers });
    this.onStoreError = (operation) => storeErrors.inc({ operation });
    gateway.on('store-error', this.onStoreError);
    new Gauge({
      name: `${PREFIX}upstream_state`,
      help: 'State of each upstream: 1 for its current state, 0 for the others',
      labelNames: ['upstream', 'state'],
      registers,
      collect() {
        this.reset();
        for (const u of gateway.pool.status()) for (const state of UPSTREAM_STATES) this.set({ upstream: u.name, state }, u.state === state ? 1 : 0);
      },
    });
    new Gauge({
      name: `${PREFIX}index_state`,
      help: 'State of the curator index: 1 for the current state (building, searchable: BM25 answers, ready: dense too), 0 for the others',
      labelNames: ['state'],
      registers,
      collect() {
        for (const state of INDEX_STATES) this.set({ state }, gateway.indexState === state ? 1 : 0);
      },
    });
    new Gauge({ name: `${PREFIX}catalog_tools`, help: 'Tools in the catalog', registers, collect() { this.set(gateway.catalog.length); } });
    new Gauge({ name: `${PREFIX}http_sessions`, help: 'Open Streamable HTTP sessions of this replica', registers, collect() { this.set(sessions()); } });
    new Gauge({
      name: `${PREFIX}approvals_pending`,
      help: 'Calls waiting for a person to approve or deny them (the whole store, every replica)',
      registers,
      async collect() {
        try {
          this.set((await gateway.approvals.list()).length);
        } catch (err) {
          gateway.storeFailed('approvals list (metrics)', err);
        }
      },
    });
  }

  /**
   * Counts the requests a host sends through `transport` and the latency of its
   * tools/call. Call after `server.connect(transport)` (which installs `onmessage`) and
   * before the first request is handled.
   */
  observe(transport: Transport): void {
    const inFlight = new Map<string | number, InFlight>();
    const receive = transport.onmessage;
    const send = transport.send.bind(transport);
    transport.onmessage = (message, extra) => {
      if ('method' in message && 'id' in message) {
        const method = METHODS.has(message.method) ? message.method : 'other';
        const tool = method === 'tools/call' ? (message.params as { name?: unknown } | undefined)?.name : undefined;
        const histogram = method !== 'tools/call' ? undefined : tool === FIND_TOOLS ? this.findTools : this.toolCalls;
        inFlight.set(message.id, { method, histogram, started: performance.now() });
      }
      receive?.call(transport, message, extra);
    };
    transport.send = (message, options) => {
      if ('id' in message && !('method' in message)) this.answered(inFlight, message);
      return send(message, options);
    };
  }

  private answered(inFlight: Map<string | number, InFlight>, message: JSONRPCMessage & { id?: string | number | null }): void {
    const request = message.id == null ? undefined : inFlight.get(message.id);
    if (!request) return;
    inFlight.delete(message.id!);
    const outcome: Outcome = 'error' in message ? 'error' : (message as { result?: { isError?: unknown } }).result?.isError === true ? 'tool_error' : 'ok';
    this.requests.inc({ method: request.method, outcome });
    request.histogram?.observe({ outcome }, (performance.now() - request.started) / 1000);
  }

  /** The text exposition of every metric, as Prometheus scrapes it. */
  async scrape(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }

  /** Stops listening to the gateway (the face closed). */
  close(): void {
    this.gateway.off('store-error', this.onStoreError);
  }
}
