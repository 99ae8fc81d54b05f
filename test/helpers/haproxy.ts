/**
 * The HAProxy configuration of a fleet (docs/FLEET.md shows it for two replicas, and
 * test/fleet/haproxy.test.ts checks the page shows what this renders), and whether the
 * `haproxy` binary (the Debian package) is installed.
 */
import { spawnSync } from 'node:child_process';

export interface HaproxyOptions {
  /** `address:port` the load balancer listens on. */
  bind: string;
  /** The replicas, in order: a name (shown in `X-Served-By`) and `address:port`. */
  servers: { name: string; address: string }[];
  /**
   * `sessions` (default): a host's requests go to the replica that answered its
   * initialize (a stick table on `Mcp-Session-Id`). `roundrobin`: any request to any
   * replica, for stateless gateways (`http.stateless`).
   */
  balance?: 'sessions' | 'roundrobin';
  /** Health check interval. Default `2s`. */
  checkInterval?: string;
  /** Log every request to stdout (`option httplog`: timers and termination state), for diagnosing a benchmark. Default false. */
  log?: boolean;
}

/** The HAProxy configuration of a fleet; docs/FLEET.md shows it for two replicas. */
export function haproxyConfig({ bind, servers, balance = 'sessions', checkInterval = '2s', log = false }: HaproxyOptions): string {
  const sticky = balance === 'sessions'
    ? [
        '  # Sessions live in the replica that created them: remember which replica answered',
        '  # each initialize (the Mcp-Session-Id response header) and send the later requests',
        '  # of that session there. When that replica is down the request goes to another one,',
        '  # which answers 404 (unknown session): the host starts a new session there.',
        '  stick-table type string len 64 size 1m expire 30m',
        '  stick on req.hdr(mcp-session-id)',
        '  stick store-response res.hdr(mcp-session-id)',
        '  # When no replica is ready (the shared store is down, say), a session still goes to its',
        '  # replica, which serves what needs no store and refuses the rest with an error naming',
        '  # the store, rather than HAProxy answering 503. New sessions wait for a ready replica.',
        '  force-persist if { req.hdr(mcp-session-id) -m found } { nbsrv(gateways) eq 0 }',
      ]
    : ['  # Stateless gateways (http.stateless): any replica answers any request.'];
  return [
    'global',
    '  maxconn 4096',
    ...(log ? ['  log stdout format raw local0'] : []),
    '',
    'defaults',
    '  mode http',
    ...(log ? ['  log global', '  option httplog'] : []),
    '  timeout connect 5s',
    '  # A tools/call may stream progress for up to timeouts.call_max_ms (10 minutes).',
    '  timeout client 10m',
    '  timeout server 10m',
    '  timeout http-request 30s',
    '  # A replica busy serving answers /readyz late, not never: give it 10 s (a dead one refuses at once).',
    '  timeout check 10s',
    '  # A replica that refuses the connection: try again, on another replica.',
    '  retries 2',
    '  option redispatch',
    '  # A new connection to the replica for every request: a replica closes a kept-alive idle',
    '  # connection after 5 s, and one whose event loop was busy for longer closes it just as',
    '  # HAProxy sends a request on it; the host then sees its connection closed, unanswered.',
    '  option http-server-close',
    '',
    'frontend mcp',
    `  bind ${bind}`,
    '  default_backend gateways',
    '',
    'backend gateways',
    '  balance roundrobin',
    ...sticky,
    '  # /readyz: 503 until the store answers, an upstream is connected and BM25 is built.',
    '  option httpchk',
    '  http-check send meth GET uri /readyz',
    '  http-check expect status 200',
    `  default-server check inter ${checkInterval} fall 3 rise 2`,
    '  # Which replica answered, for debugging (and for the fleet tests).',
    '  http-response set-header X-Served-By %[srv_name]',
    ...servers.map((s) => `  server ${s.name} ${s.address}`),
    '',
  ].join('\n');
}

/** Whether the `haproxy` binary is installed. */
export function haproxyInstalled(): boolean {
  return spawnSync('haproxy', ['-v'], { stdio: 'ignore' }).status === 0;
}
