/**
 * Runs the MCP conformance suite (@modelcontextprotocol/conformance, pinned in
 * test/conformance/runner with the Node 22 it needs) and reads its per-scenario results.
 *
 * A scenario passes when none of its checks is a FAILURE — the rule of the CLI's own exit
 * code. WARNINGs (SHOULD-level checks) are kept and reported but do not fail a scenario:
 * the CLI's --expected-failures baseline would count them, and then server-sse-polling
 * would "fail" against the SDK's own transport, which withholds SSE priming events from
 * the protocol version (2025-03-26) that scenario's raw requests declare.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { load } from 'js-yaml';
import { ROOT } from '../helpers/reference.js';

const BIN = join(ROOT, 'test/conformance/runner/node_modules/.bin');
export const NODE22 = join(BIN, 'node');
export const CONFORMANCE = join(BIN, 'conformance');
export const SPEC_VERSION = '2025-11-25';

interface Check {
  id: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | string;
  errorMessage?: string;
}

export interface ScenarioResult {
  passed: boolean;
  /** `id: message` of each FAILURE check. */
  failures: string[];
  /** `id: message` of each WARNING check. */
  warnings: string[];
}

function run(args: string[], timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(NODE22, [CONFORMANCE, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      const last = [...out.matchAll(/=== Running scenario: (\S+) ===/g)].pop()?.[1];
      reject(new Error(`conformance ${args[0]} did not finish in ${timeoutMs} ms${last ? `; it was running ${last}` : ''}`));
    }, timeoutMs);
    child.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    // Exit code 1 only says that some scenario failed: the results are read from disk.
    child.once('close', () => {
      clearTimeout(timer);
      resolve(out);
    });
  });
}

/** Names of the suite's server scenarios for SPEC_VERSION, in its order. */
export async function serverScenarios(timeoutMs = 30_000): Promise<string[]> {
  const out = await run(['list', '--server', '--spec-version', SPEC_VERSION], timeoutMs);
  return [...out.matchAll(/^\s+- (\S+)/gm)].map((m) => m[1]!);
}

/** Runs every server scenario for SPEC_VERSION against `url` in one suite run; results by scenario. */
export async function runServerSuite(url: string, timeoutMs = 150_000): Promise<Map<string, ScenarioResult>> {
  const dir = mkdtempSync(join(tmpdir(), 'tc-conformance-'));
  await run(['server', '--url', url, '--suite', 'all', '--spec-version', SPEC_VERSION, '-o', dir], timeoutMs);
  const results = new Map<string, ScenarioResult>();
  for (const entry of readdirSync(dir)) {
    // <dir>/server-<scenario>-<ISO time with : and . as ->/checks.json
    const scenario = /^server-(.+)-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z$/.exec(entry)?.[1];
    if (!scenario) continue;
    const checks = JSON.parse(readFileSync(join(dir, entry, 'checks.json'), 'utf8')) as Check[];
    const of = (status: string) => checks.filter((c) => c.status === status).map((c) => `${c.id}: ${c.errorMessage ?? '(no message)'}`);
    const failures = of('FAILURE');
    results.set(scenario, { passed: failures.length === 0, failures, warnings: of('WARNING') });
  }
  return results;
}

/** test/conformance/expected-failures.yaml: per run name, the scenarios known to fail. */
export function expectedFailures(run: string): string[] {
  const doc = load(readFileSync(join(ROOT, 'test/conformance/expected-failures.yaml'), 'utf8')) as Record<string, string[] | null> | null;
  return doc?.[run] ?? [];
}

/**
 * What is wrong with a run against its expected failures: scenarios without a result,
 * failures not listed, and listed scenarios that now pass (the list may only shrink).
 * @returns one sentence per problem; empty when the run matches.
 */
export function problems(results: Map<string, ScenarioResult>, scenarios: string[], expected: string[], run: string): string[] {
  const out: string[] = [];
  for (const s of scenarios) {
    const r = results.get(s);
    if (!r) out.push(`${s}: no result (the suite did not run it)`);
    else if (!r.passed && !expected.includes(s)) out.push(`${s} fails and is not in expected-failures.yaml (${run}): ${r.failures.join('; ')}`);
    else if (r.passed && expected.includes(s)) out.push(`${s} now passes: remove it from the "${run}" list in test/conformance/expected-failures.yaml`);
  }
  for (const s of expected) if (!scenarios.includes(s)) out.push(`${s} in expected-failures.yaml (${run}) is not a ${SPEC_VERSION} server scenario: remove it`);
  return out;
}
