/**
 * The HTTP face's operations routes (src/gateway/ops.ts, metrics.ts): /healthz, /readyz
 * (each check named, 503 when one fails), /metrics (off by default, token-protected,
 * counting what a real SDK client did), and the config checks of `http.metrics`. In
 * process, in front of the conformance upstream over stdio.
 */
import { request } from 'node:http';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { Gateway } from '../../src/gateway/gateway.js';
import { serveHttp, type HttpFace } from '../../src/gateway/http.js';
import { conformanceConfig } from '../helpers/conformance.js';

const TOKEN = 'ops-test-host-token-0123456789';
const METRICS_TOKEN = 'ops-test-metrics-token-0123456789';

/** A GET with the given headers (node:http, so Host can be set). */
function get(port: number, path: string, headers: Record<string, string> = {}): Promise<{ status: number; type: string; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method: 'GET', headers }, (res) => {
      let text = '';
      res.on('data', (d: Buffer) => (text += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode!, type: String(res.headers['content-type']), body: text }));
    });
    req.once('error', reject);
    req.end();
  });
}

/** The value of one sample line of a Prometheus exposition, e.g. `tool_curator_requests_total{method="tools/list",outcome="ok"}`. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

async function start(extra: Record<string, unknown>): Promise<{ gateway: Gateway; face: HttpFace }> {
  const gateway = await Gateway.start(loadConfig(conformanceConfig(extra)), { noEmbedder: true });
  return { gateway, face: await serveHttp(gateway, 0, '127.0.0.1') };
}

describe('/healthz, /readyz and /metrics with a token', () => {
  let gateway: Gateway;
  let face: HttpFace;
  beforeAll(async () => {
    ({ gateway, face } = await start({ http: { tokens: [{ token: TOKEN, persona: 'tester' }], metrics: { enabled: true, token: METRICS_TOKEN } } }));
  });
  afterAll(async () => {
    await face?.close();
    await gateway?.close();
  });

  it('/healthz answers without a token, whatever the Host (a load balancer probes by address)', async () => {
    const r = await get(face.port, '/healthz', { host: '10.1.2.3:8080' });
    expect(r.status).toBe(200);
    expect(JSON.parse(r.body)).toEqual({ status: 'alive' });
  });

  it('/readyz: 200 once started, naming each check', async () => {
    const r = await get(face.port, '/readyz', { host: '10.1.2.3:8080' });
    expect(r.status).toBe(200);
    expect(JSON.parse(r.body)).toEqual({
      status: 'ready',
      checks: { store: { ready: true }, upstreams: { ready: true, connected: 1, total: 1 }, bm25: { ready: true, detail: 'index ready' } },
    });
  });

  it('/metrics needs its own token: none, or a host token, gets 401', async () => {
    expect((await get(face.port, '/metrics')).status).toBe(401);
    expect((await get(face.port, '/metrics', { authorization: `Bearer ${TOKEN}` })).status).toBe(401);
  });

  it('/metrics counts what a host did: requests by method and outcome, find_tools and tools/call latencies, states', async () => {
    const client = new Client({ name: 'ops-host', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${face.port}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } } });
    await client.connect(transport);
    await client.listTools();
    await client.callTool({ name: 'find_tools', arguments: { query: 'simple text response' } });
    expect((await client.callTool({ name: 'test_simple_text', arguments: {} })).isError).toBeFalsy();
    expect((await client.callTool({ name: 'test_error_handling', arguments: {} })).isError).toBe(true);
    await expect(client.request({ method: 'prompts/get', params: { name: 'no_such_prompt' } })).rejects.toThrow();

    const r = await get(face.port, '/metrics', { authorization: `Bearer ${METRICS_TOKEN}`, host: '10.1.2.3:8080' });
    expect(r.status).toBe(200);
    expect(r.type).toMatch(/^text\/plain; version=0\.0\.4/);
    const m = r.body;
    expect(sample(m, 'tool_curator_requests_total{method="initialize",outcome="ok"}')).toBe(1);
    expect(sample(m, 'tool_curator_requests_total{method="tools/list",outcome="ok"}')).toBe(1);
    expect(sample(m, 'tool_curator_requests_total{method="tools/call",outcome="ok"}')).toBe(2);
    expect(sample(m, 'tool_curator_requests_total{method="tools/call",outcome="tool_error"}')).toBe(1);
    expect(sample(m, 'tool_curator_requests_total{method="prompts/get",outcome="error"}')).toBe(1);
    expect(sample(m, 'tool_curator_find_tools_seconds_count{outcome="ok"}')).toBe(1);
    expect(sample(m, 'tool_curator_tool_call_seconds_count{outcome="ok"}')).toBe(1);
    expect(sample(m, 'tool_curator_tool_call_seconds_count{outcome="tool_error"}')).toBe(1);
    expect(sample(m, 'tool_curator_tool_call_seconds_bucket{le="60",outcome="ok"}')).toBe(1);
    expect(sample(m, 'tool_curator_upstream_state{upstream="conformance",state="ready"}')).toBe(1);
    expect(sample(m, 'tool_curator_upstream_state{upstream="conformance",state="failed"}')).toBe(0);
    expect(sample(m, 'tool_curator_index_state{state="ready"}')).toBe(1);
    expect(sample(m, 'tool_curator_index_state{state="building"}')).toBe(0);
    expect(sample(m, 'tool_curator_catalog_tools')).toBe(gateway.catalog.length);
    expect(sample(m, 'tool_curator_http_sessions')).toBe(1);
    expect(sample(m, 'tool_curator_approvals_pending')).toBe(0);
    expect(m).toContain('tool_curator_process_cpu_seconds_total');
    await transport.terminateSession();
    await client.close();
  });

  it('/readyz: 503 naming the store when the store stops answering, and the store error is counted', async () => {
    await gateway.store.close();
    const r = await get(face.port, '/readyz');
    expect(r.status).toBe(503);
    const body = JSON.parse(r.body);
    expect(body.status).toBe('not ready');
    expect(body.checks.store).toEqual({ ready: false, detail: 'the store did not answer (see the gateway log)' });
    expect(body.checks.upstreams.ready).toBe(true);
    // A scrape's own failed read (approvals pending) is counted after the counter was
    // written out (the store answers asynchronously), so the second scrape shows the first's.
    await get(face.port, '/metrics', { authorization: `Bearer ${METRICS_TOKEN}` });
    const m = (await get(face.port, '/metrics', { authorization: `Bearer ${METRICS_TOKEN}` })).body;
    expect(sample(m, 'tool_curator_store_errors_total{operation="ping"}')).toBe(1);
    expect(sample(m, 'tool_curator_store_errors_total{operation="approvals list (metrics)"}')).toBe(1);
  });
});

describe('metrics off (the default), an upstream that never starts', () => {
  let gateway: Gateway;
  let face: HttpFace;
  beforeAll(async () => {
    ({ gateway, face } = await start({
      http: { tokens: [{ token: TOKEN, persona: 'tester' }] },
      upstreams: { broken: { command: process.execPath, args: ['-e', 'process.exit(3)'] } },
    }));
  });
  afterAll(async () => {
    await face?.close();
    await gateway?.close();
  });

  it('/metrics is not served', async () => {
    expect((await get(face.port, '/metrics', { authorization: `Bearer ${TOKEN}` })).status).toBe(404);
  });

  it('/readyz: 503, no upstream connected, naming the one that failed', async () => {
    const r = await get(face.port, '/readyz');
    expect(r.status).toBe(503);
    expect(JSON.parse(r.body).checks.upstreams).toEqual({ ready: false, detail: 'no upstream is connected', connected: 0, total: 1, not_connected: { broken: 'failed' } });
  });
});

describe('http.metrics config checks', () => {
  it('metrics without a token on a non-loopback address are refused, naming the key', async () => {
    const gateway = await Gateway.create(loadConfig(conformanceConfig({ http: { host: '0.0.0.0', tokens: [{ token: TOKEN, persona: 'tester' }], metrics: { enabled: true } } })), { noEmbedder: true });
    try {
      await expect(serveHttp(gateway, 0)).rejects.toThrow(/http\.metrics\.token: metrics without a token are served only on a loopback address/);
    } finally {
      await gateway.close();
    }
  });

  it('without a token on loopback, /metrics is behind the Host check', async () => {
    const { gateway, face } = await start({ http: { tokens: [{ token: TOKEN, persona: 'tester' }], metrics: { enabled: true } } });
    try {
      expect((await get(face.port, '/metrics', { host: 'evil.example.com' })).status).toBe(403);
      const r = await get(face.port, '/metrics', { host: `127.0.0.1:${face.port}` });
      expect(r.status).toBe(200);
      expect(sample(r.body, 'tool_curator_http_sessions')).toBe(0);
    } finally {
      await face.close();
      await gateway.close();
    }
  });
});

describe('http.stateless config check', () => {
  it('stateless HTTP in the dynamic exposure mode is refused, naming the key', async () => {
    const gateway = await Gateway.create(loadConfig(conformanceConfig({ http: { tokens: [{ token: TOKEN, persona: 'tester' }], stateless: true } })), { noEmbedder: true });
    try {
      await expect(serveHttp(gateway, 0)).rejects.toThrow(/http\.stateless: stateless HTTP needs exposure\.mode: static/);
    } finally {
      await gateway.close();
    }
  });
});
