/**
 * What operators and load balancers ask the HTTP face, apart from MCP (docs/FLEET.md):
 * - `GET /healthz`: the process is alive and its event loop answers. No auth, no I/O.
 * - `GET /readyz`: this replica can serve hosts: the store answers, the upstreams are
 *   connected, BM25 answers find_tools. 200 or 503, with a JSON body naming each check.
 * - `GET /metrics`: Prometheus metrics (metrics.ts), when `http.metrics.enabled`.
 *
 * /healthz and /readyz are answered before the Host check (hostGuard.ts): a load balancer
 * probes a replica by its address, and the answers carry states, never data. /metrics
 * with a token likewise (a scraper reaches the replica by address; the token is what
 * protects it); without a token it is served only on a loopback bind, behind the Host check.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ConfigError, type LoadedConfig } from '../config/load.js';
import type { Gateway } from '../gateway/gateway.js';
import { isLoopback } from './hostGuard.js';
import { GatewayMetrics } from './metrics.js';
import { sameSecret } from './secret.js';

/** How long /readyz waits for the store's answer before counting it as not ready: 2 s, under a load balancer's usual check timeout. */
const STORE_CHECK_MS = 2000;

/** One check of /readyz. */
export interface Check {
  ready: boolean;
  /** Why not, or what was found. */
  detail?: string;
}

/** The body of /readyz. */
export interface Readiness {
  status: 'ready' | 'not ready';
  checks: { store: Check; upstreams: Check & { connected: number; total: number; not_connected?: Record<string, string> }; bm25: Check };
}

async function storeCheck(gateway: Gateway): Promise<Check> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), STORE_CHECK_MS)));
  const answer = await Promise.race([gateway.storeHealthy(), late]);
  clearTimeout(timer);
  if (answer === 'late') return { ready: false, detail: `the store did not answer within ${STORE_CHECK_MS} ms` };
  return answer ? { ready: true } : { ready: false, detail: 'the store did not answer (see the gateway log)' };
}

/**
 * Upstreams are ready once start-up has connected (or given up on) each of them and at
 * least one is connected: a replica whose every upstream is down can serve nothing, but
 * one failing upstream of several is the same on every replica, and taking them all out
 * of the load balancer would stop the others' tools too (`not_connected` names it).
 */
function upstreamsCheck(gateway: Gateway, started: boolean): Readiness['checks']['upstreams'] {
  const status = gateway.pool.status();
  const down = status.filter((u) => u.state !== 'ready');
  const connected = status.length - down.length;
  const not_connected = down.length > 0 ? Object.fromEntries(down.map((u) => [u.name, u.state])) : undefined;
  const base = { connected, total: status.length, ...(not_connected && { not_connected }) };
  if (!started) return { ready: false, detail: 'upstreams still starting', ...base };
  if (status.length > 0 && connected === 0) return { ready: false, detail: 'no upstream is connected', ...base };
  return { ready: true, ...base };
}

/** The readiness of `gateway`; `started` = its first catalog is built (`catalogReady`). */
export async function readiness(gateway: Gateway, started: boolean): Promise<Readiness> {
  const checks = {
    store: await storeCheck(gateway),
    upstreams: upstreamsCheck(gateway, started),
    bm25: gateway.indexState === 'building' ? { ready: false, detail: 'the index is being built' } : { ready: true, detail: `index ${gateway.indexState}` },
  };
  return { status: Object.values(checks).every((c) => c.ready) ? 'ready' : 'not ready', checks };
}

/**
 * Refuses `http.metrics` settings that would publish metrics to anyone: enabled without
 * a token on an address other machines reach.
 * @throws ConfigError naming `http.metrics.token`.
 */
export function checkMetrics(loaded: LoadedConfig, host: string): void {
  const { enabled, token } = loaded.config.http.metrics;
  if (enabled && !token && !isLoopback(host)) {
    throw new ConfigError(loaded.file, 'http.metrics.token', `metrics without a token are served only on a loopback address, and the gateway binds "${host}": set http.metrics.token (the scraper sends it as a bearer token) or bind 127.0.0.1`);
  }
}

export interface OpsOptions {
  /** The face's Host check (hostGuard.ts): the reason to refuse a request, or undefined. */
  refuse(req: IncomingMessage): string | undefined;
  /** Open MCP sessions of the face, for the metrics. */
  sessions(): number;
}

export interface Ops {
  /** Answers /healthz, /readyz and /metrics; false for any other request (left to the caller). */
  route(req: IncomingMessage, res: ServerResponse): boolean;
  /** The metrics, when enabled: the face lets them watch each session's transport. */
  metrics?: GatewayMetrics;
  close(): void;
}

const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) =>
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers }).end(JSON.stringify(body));

/** The operations routes of one HTTP face. */
export function opsRoutes(gateway: Gateway, options: OpsOptions): Ops {
  const { enabled, token } = gateway.loaded.config.http.metrics;
  const metrics = enabled ? new GatewayMetrics(gateway, options.sessions) : undefined;
  let started = false;
  void gateway.catalogReady.then(() => (started = true));

  const serveMetrics = (req: IncomingMessage, res: ServerResponse) => {
    if (token) {
      const m = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '');
      if (!m || !sameSecret(m[1]!, token)) return json(res, 401, { error: 'missing or invalid metrics token' }, { 'www-authenticate': 'Bearer' });
    } else {
      const refused = options.refuse(req);
      if (refused) return json(res, 403, { error: refused });
    }
    metrics!.scrape().then(
      ({ contentType, body }) => res.writeHead(200, { 'content-type': contentType }).end(body),
      (err: Error) => json(res, 500, { error: `metrics: ${err.message}` }),
    );
  };

  return {
    metrics,
    route(req, res) {
      const path = (req.url ?? '/').split('?', 1)[0];
      if (path !== '/healthz' && path !== '/readyz' && path !== '/metrics') return false;
      if (path === '/metrics' && !metrics) return false;
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        json(res, 405, { error: `${path} answers GET` }, { allow: 'GET, HEAD' });
        return true;
      }
      if (path === '/healthz') json(res, 200, { status: 'alive' });
      else if (path === '/readyz') void readiness(gateway, started).then((r) => json(res, r.status === 'ready' ? 200 : 503, r));
      else serveMetrics(req, res);
      return true;
    },
    close: () => metrics?.close(),
  };
}
