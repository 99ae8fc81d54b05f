/**
 * The MCP conformance suite's client scenarios against the gateway's upstream side: for
 * each scenario the suite starts its test server (and authorization server) and runs
 * client-host.mjs, a host that starts the built gateway with the scenario's URL as its one
 * upstream and calls the scenario's tool through it. The results are compared with
 * expected-client-failures.yaml, which may only shrink.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { load } from 'js-yaml';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(__dirname, '../..');
const BIN = join(ROOT, 'test/conformance/runner/node_modules/.bin');
const HOST = `${process.execPath} ${join(ROOT, 'test/conformance/client-host.mjs')}`;

/** Every client scenario of the suite at 0.1.16 (`conformance list`). */
export const SCENARIOS = [
  'initialize',
  'tools_call',
  'sse-retry',
  'elicitation-sep1034-client-defaults',
  'auth/metadata-default',
  'auth/metadata-var1',
  'auth/metadata-var2',
  'auth/metadata-var3',
  'auth/basic-cimd',
  'auth/scope-from-www-authenticate',
  'auth/scope-from-scopes-supported',
  'auth/scope-omitted-when-undefined',
  'auth/scope-step-up',
  'auth/scope-retry-limit',
  'auth/token-endpoint-auth-basic',
  'auth/token-endpoint-auth-post',
  'auth/token-endpoint-auth-none',
  'auth/pre-registration',
  'auth/2025-03-26-oauth-metadata-backcompat',
  'auth/2025-03-26-oauth-endpoint-fallback',
  'auth/resource-mismatch',
  'auth/offline-access-scope',
  'auth/offline-access-not-supported',
  'auth/client-credentials-jwt',
  'auth/client-credentials-basic',
  'auth/cross-app-access-complete-flow',
];

export interface ScenarioResult {
  scenario: string;
  passed: boolean;
  /** "Passed: x/y, ..." as the suite printed it. */
  summary: string;
  output: string;
}

/** Runs one scenario; the suite's own verdict (checks, warnings, client exit, timeout) decides. */
export function runScenario(scenario: string): Promise<ScenarioResult> {
  return new Promise((done) => {
    // The gateway spawns under load on a shared machine: give the host two minutes, not the default 30 s.
    const child = spawn(join(BIN, 'node'), [join(BIN, 'conformance'), 'client', '--command', HOST, '--scenario', scenario, '--timeout', '120000'], { cwd: ROOT });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    // A runner that cannot start (not installed: `npm run conformance:install`) fails the scenario at once; 'exit' would never come.
    child.once('error', (err) => done({ scenario, passed: false, summary: `could not start the conformance runner: ${err.message}`, output }));
    child.once('exit', (code) => {
      const summary = /Passed: [^\n]*/.exec(output)?.[0] ?? 'no summary';
      done({ scenario, passed: code === 0 && /OVERALL: PASSED/.test(output), summary, output });
    });
  });
}

const expected = (load(readFileSync(join(__dirname, 'expected-client-failures.yaml'), 'utf8')) as { client: string[] }).client;

describe('conformance client scenarios through the gateway', () => {
  it(
    'passes every scenario except the expected failures, and every expected failure still fails',
    async () => {
      const results: ScenarioResult[] = [];
      // Two at a time: each runs a suite server, the gateway and its auth command.
      const queue = [...SCENARIOS];
      await Promise.all(
        [0, 1].map(async () => {
          for (let s = queue.shift(); s; s = queue.shift()) results.push(await runScenario(s));
        }),
      );
      for (const r of results) console.log(`${r.passed ? 'PASS' : 'FAIL'}  ${r.scenario}  (${r.summary})`);
      const unexpected = results.filter((r) => !r.passed && !expected.includes(r.scenario));
      const stale = results.filter((r) => r.passed && expected.includes(r.scenario));
      for (const r of unexpected) console.error(`--- ${r.scenario} failed:\n${r.output.slice(-4000)}`);
      expect(unexpected.map((r) => `${r.scenario}: ${r.summary}`), 'scenarios that fail and are not in expected-client-failures.yaml').toEqual([]);
      expect(stale.map((r) => r.scenario), 'scenarios that now pass: remove them from expected-client-failures.yaml').toEqual([]);
      expect(results).toHaveLength(SCENARIOS.length);
    },
    60 * 60_000,
  );
});
