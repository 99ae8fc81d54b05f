/**
 * The MCP conformance suite's server scenarios (spec 2025-11-25), run by its own CLI:
 * first against the conformance upstream directly (every scenario must pass: the
 * upstream is complete), then against the gateway in HTTP mode (`serve --http`, with
 * http.anonymous because the suite sends no token) fronting that upstream over stdio and
 * over Streamable HTTP. Results through the gateway must match
 * test/conformance/expected-failures.yaml, which may only shrink.
 */
import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnUntil } from '../helpers/process.js';
import { CLI, ROOT } from '../helpers/reference.js';
import { expectedFailures, problems, runServerSuite, serverScenarios } from './suite.js';
import { serveConformanceHttp, type ConformanceHttp } from './upstream.js';

const SUITE_MS = 150_000;

/** Starts `tool-curator serve --http 0` with a committed conformance config; resolves with its /mcp URL. */
async function startGateway(config: string, env: Record<string, string> = {}): Promise<{ child: ChildProcess; url: string }> {
  const { child, stderr } = await spawnUntil(
    process.execPath,
    [CLI, 'serve', '--config', join(ROOT, 'test/conformance', config), '--http', '0'],
    /serving MCP over Streamable HTTP/,
    env,
    60_000,
  );
  const url = /"url":"(http:\/\/127\.0\.0\.1:\d+\/mcp)"/.exec(stderr())?.[1];
  if (!url) throw new Error(`no URL in the gateway's log:\n${stderr()}`);
  return { child, url };
}

async function check(run: string, url: string, scenarios: string[]): Promise<void> {
  const results = await runServerSuite(url, SUITE_MS);
  const passed = scenarios.filter((s) => results.get(s)?.passed).length;
  const warned = scenarios.filter((s) => results.get(s)?.warnings.length).map((s) => `${s} (${results.get(s)!.warnings.length})`);
  console.info(`conformance ${run}: ${passed}/${scenarios.length} scenarios pass${warned.length ? `; warnings: ${warned.join(', ')}` : ''}`);
  expect(problems(results, scenarios, expectedFailures(run), run)).toEqual([]);
}

describe('MCP conformance suite, server scenarios', () => {
  let scenarios: string[];
  let upstream: ConformanceHttp;
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    scenarios = await serverScenarios();
    upstream = await serveConformanceHttp();
  });
  afterAll(async () => {
    for (const c of children) c.kill();
    await upstream?.close();
  });

  it('lists the 2025-11-25 server scenarios', () => {
    expect(scenarios.length).toBeGreaterThanOrEqual(30);
    expect(scenarios).toEqual(expect.arrayContaining(['server-initialize', 'tools-call-with-progress', 'resources-subscribe', 'dns-rebinding-protection']));
  });

  it('against the conformance upstream directly: every scenario passes', { timeout: SUITE_MS + 10_000 }, async () => {
    await check('direct', upstream.url, scenarios);
  });

  it('through the gateway, upstream over stdio: as expected-failures.yaml says', { timeout: SUITE_MS + 40_000 }, async () => {
    const gateway = await startGateway('gateway.stdio.yaml');
    children.push(gateway.child);
    await check('stdio', gateway.url, scenarios);
  });

  it('through the gateway, upstream over Streamable HTTP: as expected-failures.yaml says', { timeout: SUITE_MS + 40_000 }, async () => {
    const gateway = await startGateway('gateway.http.yaml', { CONFORMANCE_UPSTREAM_URL: upstream.url });
    children.push(gateway.child);
    await check('http', gateway.url, scenarios);
  });
});
