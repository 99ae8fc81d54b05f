/**
 * The relay end to end over Streamable HTTP on both sides: real SDK Clients as hosts of
 * one gateway in HTTP mode, and the fixture upstream served over Streamable HTTP. Several
 * sessions share the one upstream connection, so this is also where routing between
 * sessions is checked: log levels per session, log messages outside any call, and a
 * question refused when two sessions have calls in flight to the same upstream.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpGateway, httpHost, httpTokens, httpUpstream, json, relayConfig, TOKENS, text, type Host } from './harness.js';
import { relayScenarios } from './scenarios.js';

describe('relay: HTTP host, HTTP upstream', () => {
  const stops: (() => void)[] = [];
  const hosts: Host[] = [];
  let base: string;
  let host: Host;
  let bare: Host;

  beforeAll(async () => {
    const upstream = await httpUpstream();
    stops.push(upstream.stop);
    const gateway = await httpGateway(relayConfig(upstream.entry, httpTokens));
    stops.push(gateway.stop);
    base = gateway.base;
    host = await httpHost(base, TOKENS[0]!);
    bare = await httpHost(base, TOKENS[1]!, {});
    hosts.push(host, bare);
  }, 60_000);
  afterAll(async () => {
    await Promise.all(hosts.map((h) => h.close()));
    for (const stop of stops) stop();
  });

  relayScenarios(() => host, () => bare);

  it('filters log messages per session, each at its own level', async () => {
    const a = await httpHost(base, TOKENS[2]!);
    const b = await httpHost(base, TOKENS[2]!);
    hosts.push(a, b);
    await a.client.setLoggingLevel('debug');
    await b.client.setLoggingLevel('error');
    await a.client.callTool({ name: 'log', arguments: { level: 'info', text: 'info for a' } });
    await b.client.callTool({ name: 'log', arguments: { level: 'info', text: 'info for b' } });
    await b.client.callTool({ name: 'log', arguments: { level: 'error', text: 'error for b' } });
    await expect.poll(() => b.received.logs.length, { timeout: 5000 }).toBe(1);
    expect(b.received.logs).toEqual([{ level: 'error', logger: 'fixture', data: 'error for b' }]);
    expect(a.received.logs).toEqual([{ level: 'info', logger: 'fixture', data: 'info for a' }]);
  });

  it('sends a log message outside any call to every session that may use the upstream, at its level', async () => {
    const a = await httpHost(base, TOKENS[2]!);
    const b = await httpHost(base, TOKENS[2]!);
    hosts.push(a, b);
    await a.client.setLoggingLevel('debug');
    await b.client.setLoggingLevel('critical');
    expect(text(await a.client.callTool({ name: 'log_later', arguments: { level: 'warning', text: 'between calls', delay_ms: 100 } }))).toBe('will log');
    await expect.poll(() => a.received.logs, { timeout: 5000 }).toEqual([{ level: 'warning', logger: 'fixture', data: 'between calls' }]);
    expect(b.received.logs).toEqual([]);
  });

  it('refuses a question at once when two sessions have calls in flight to the upstream', async () => {
    const a = await httpHost(base, TOKENS[2]!);
    hosts.push(a);
    const abort = new AbortController();
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    const slow = a.client.callTool({ name: 'slow', arguments: { ms: 60_000 } }, { signal: abort.signal, onprogress: () => started() });
    await running;
    const before = host.received.sampling.length;
    const r = await host.client.callTool({ name: 'sample', arguments: { prompt: 'Whose question?' } });
    abort.abort('done');
    await expect(slow).rejects.toThrow();
    expect(r.isError).toBe(true);
    expect(json(r)).toEqual({
      code: -32600,
      message: 'sampling/createMessage refused by the gateway: 2 host sessions have tools/calls in flight to upstream "fixture", so it cannot tell whom to ask',
    });
    expect(host.received.sampling.length).toBe(before);
    expect(a.received.sampling).toEqual([]);
  });
});
