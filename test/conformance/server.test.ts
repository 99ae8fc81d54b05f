/**
 * The MCP conformance suite's server scenarios, both requirement sets (2025-11-25 on the
 * stateful wire, 2026-07-28 on the stateless one), run by its own CLI:
 *
 * - against the conformance upstreams directly: the 2025 upstream (upstream.ts) at
 *   2025-11-25; the 2026 upstream (upstream2026.ts) at both; and the 2026 upstream serving
 *   only the 2025 catalogue at 2026-07-28, which is what a perfect gateway in front of the
 *   2025 upstream shows a 2026 host;
 * - against the gateway's HTTP face (`serve --http`, http.anonymous because the suite
 *   sends no token) in front of each upstream, reached over stdio and over Streamable
 *   HTTP, both requirement sets on the same endpoint;
 * - against stdio faces through stdioBridge.ts (the suite drives only HTTP servers): the
 *   upstreams' own, and the gateway's (`serve` over stdio) in front of each upstream.
 *
 * Every run must match expected-failures.yaml, which lists only what an upstream itself
 * cannot pass. The scenarios a requirement set runs without scoring (the tasks extension,
 * pending ones) are reported, never scored.
 */
import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnUntil } from '../helpers/process.js';
import { CLI, ROOT } from '../helpers/reference.js';
import { expectedFailures, problems, requirements, REVISIONS, runServerSuite, unscoredReport, type Revision } from './suite.js';
import { serveStdioOverHttp } from './stdioBridge.js';
import { serve2026Http } from './upstream2026.js';
import { serveConformanceHttp } from './upstream.js';
import type { ConformanceHttp } from './upstreamServing.js';

const RUN_MS = 400_000;
const DIST = join(ROOT, 'dist/test/conformance');

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

/** Runs one requirement set against `url` and compares with what the `lists` of expected-failures.yaml say cannot pass. */
async function check(run: string, url: string, revision: Revision, lists: string | string[]): Promise<void> {
  const { server, notScored } = requirements(revision);
  const results = await runServerSuite(url, revision, RUN_MS);
  const passed = server.filter((s) => results.get(s)?.passed).length;
  const warned = server.filter((s) => results.get(s)?.warnings.length).map((s) => `${s} (${results.get(s)!.warnings.length})`);
  console.info(
    [
      `conformance ${run} at ${revision}: ${passed}/${server.length} required scenarios pass${warned.length ? `; warnings: ${warned.join(', ')}` : ''}`,
      ...server
        .filter((s) => results.get(s) && !results.get(s)!.passed)
        .map((s) => `  FAIL ${s}: ${results.get(s)!.failures.map((f) => `${f.check}: ${f.message}`).join('; ').slice(0, 240)}`),
      ...unscoredReport(results, notScored).map((l) => `  ${l}`),
    ].join('\n'),
  );
  expect(problems(results, server, expectedFailures(lists, revision), `${run} at ${revision}`)).toEqual([]);
}

/** The era a negotiating client (`versionNegotiation: auto`) lands on with a server. */
async function eraOf(transport: StreamableHTTPClientTransport | StdioClientTransport): Promise<string | undefined> {
  const client = new Client({ name: 'era-probe', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
  await client.connect(transport);
  const era = client.getProtocolEra();
  await client.close();
  return era;
}

describe('MCP conformance suite, server scenarios', () => {
  const upstreams: ConformanceHttp[] = [];
  const children: ChildProcess[] = [];
  let up2025: ConformanceHttp;
  let up2026: ConformanceHttp;

  beforeAll(async () => {
    up2025 = await serveConformanceHttp();
    up2026 = await serve2026Http();
    upstreams.push(up2025, up2026);
  });
  afterAll(async () => {
    for (const c of children) c.kill();
    for (const u of upstreams) await u.close();
  });

  it('reads both requirement sets of the pinned suite: 30 and 37 required server scenarios', () => {
    expect(requirements('2025-11-25').server).toHaveLength(30);
    expect(requirements('2026-07-28').server).toHaveLength(37);
    expect(requirements('2026-07-28').notScored.filter((n) => n.scenario.startsWith('tasks-')).map((n) => n.reason)).toEqual(Array(10).fill('extension'));
  });

  it('the 2025 upstream is 2025-only and the 2026 upstream negotiates 2026-07-28, over HTTP and over stdio', { timeout: 60_000 }, async () => {
    const stdio = (script: string) => new StdioClientTransport({ command: process.execPath, args: [join(DIST, script)], stderr: 'ignore' });
    expect(await eraOf(new StreamableHTTPClientTransport(new URL(up2025.url)))).toBe('legacy');
    expect(await eraOf(stdio('upstream.js'))).toBe('legacy');
    expect(await eraOf(new StreamableHTTPClientTransport(new URL(up2026.url)))).toBe('modern');
    expect(await eraOf(stdio('upstream2026.js'))).toBe('modern');
  });

  it('the 2026 upstream over stdio carries a three-round input_required call to a modern client', { timeout: 60_000 }, async () => {
    const answers: Record<string, string>[] = [{ name: 'Alice' }, { color: 'blue' }];
    const client = new Client({ name: 'mrtr-host', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' }, capabilities: { elicitation: { form: {} } } });
    const asked: string[] = [];
    client.setRequestHandler('elicitation/create', async (request) => {
      asked.push(request.params.message);
      return { action: 'accept', content: answers[asked.length - 1]! };
    });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [join(DIST, 'upstream2026.js')], stderr: 'ignore' }));
    const result = await client.callTool({ name: 'test_input_required_result_multi_round', arguments: {} });
    await client.close();
    expect(asked).toEqual(['Step 1: What is your name?', 'Step 2: What is your favorite color?']);
    expect(result.content).toEqual([{ type: 'text', text: 'Multi-round complete for Alice who likes blue' }]);
  });

  describe('the upstreams directly', () => {
    it('the 2025 upstream at 2025-11-25', { timeout: RUN_MS + 10_000 }, async () => {
      await check('upstream2025', up2025.url, '2025-11-25', 'upstream2025');
    });
    for (const revision of REVISIONS) {
      it(`the 2026 upstream at ${revision}`, { timeout: RUN_MS + 10_000 }, async () => {
        await check('upstream2026', up2026.url, revision, 'upstream2026');
      });
    }
    it('the 2026 upstream serving only the 2025 catalogue at 2026-07-28 fails just what expected-failures.yaml lists for the 2025 upstream', { timeout: RUN_MS + 10_000 }, async () => {
      const catalogue2025 = await serve2026Http(0, '127.0.0.1', '2025');
      upstreams.push(catalogue2025);
      await check('upstream2026 (2025 catalogue)', catalogue2025.url, '2026-07-28', 'upstream2025');
    });
  });

  // The gateway in front of each upstream, over each link; both requirement sets on one endpoint.
  const fronts = [
    { upstream: 'upstream2025', link: 'stdio', config: 'gateway.stdio.yaml', list: 'gateway-upstream2025' },
    { upstream: 'upstream2025', link: 'http', config: 'gateway.http.yaml', list: 'gateway-upstream2025' },
    { upstream: 'upstream2026', link: 'stdio', config: 'gateway.stdio2026.yaml', list: ['upstream2026', 'gateway-upstream2026'] },
    { upstream: 'upstream2026', link: 'http', config: 'gateway.http2026.yaml', list: ['upstream2026', 'gateway-upstream2026'] },
  ] as const;
  for (const front of fronts) {
    describe(`the gateway in front of the ${front.upstream.slice(-4)} upstream over ${front.link}`, () => {
      let gateway: { child: ChildProcess; url: string };
      beforeAll(async () => {
        const url = front.upstream === 'upstream2025' ? up2025.url : up2026.url;
        gateway = await startGateway(front.config, front.link === 'http' ? { CONFORMANCE_UPSTREAM_URL: url } : {});
        children.push(gateway.child);
      }, 90_000);
      afterAll(() => void gateway?.child.kill());
      for (const revision of REVISIONS) {
        it(`at ${revision}: as expected-failures.yaml says for the ${front.upstream.slice(-4)} upstream`, { timeout: RUN_MS + 10_000 }, async () => {
          await check(`gateway → ${front.upstream} over ${front.link}`, gateway.url, revision, front.list);
        });
      }
    });
  }

  // The stdio faces, through the bridge: the upstreams' own, then the gateway's.
  const script = (name: string) => ({ command: process.execPath, args: [join(DIST, name)] });
  const gateway = (config: string) => ({ command: process.execPath, args: [CLI, 'serve', '--config', join(ROOT, 'test/conformance', config)], cwd: ROOT });
  const stdioFaces = [
    { name: 'the 2025 upstream over stdio', server: script('upstream.js'), revisions: ['2025-11-25'], lists: ['upstream2025', 'stdio-bridge'] },
    { name: 'the 2026 upstream over stdio', server: script('upstream2026.js'), revisions: REVISIONS, lists: ['upstream2026', 'stdio-bridge', 'upstream2026-stdio-face'] },
    { name: 'the gateway over stdio → 2025 upstream over stdio', server: gateway('gateway.stdio.yaml'), revisions: REVISIONS, lists: ['gateway-upstream2025', 'stdio-bridge', 'upstream2026-stdio-face'] },
    { name: 'the gateway over stdio → 2026 upstream over stdio', server: gateway('gateway.stdio2026.yaml'), revisions: REVISIONS, lists: ['upstream2026', 'gateway-upstream2026', 'stdio-bridge', 'upstream2026-stdio-face'] },
  ] as const;
  for (const face of stdioFaces) {
    describe(`${face.name}, through the stdio bridge`, () => {
      let bridge: ConformanceHttp;
      beforeAll(async () => {
        bridge = await serveStdioOverHttp(face.server);
        upstreams.push(bridge);
      });
      for (const revision of face.revisions) {
        it(`at ${revision}: as expected-failures.yaml says (${face.lists.join(', ')})`, { timeout: RUN_MS + 10_000 }, async () => {
          await check(face.name, bridge.url, revision, [...face.lists]);
        });
      }
    });
  }
});
