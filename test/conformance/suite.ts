/**
 * Runs the MCP conformance suite (@modelcontextprotocol/conformance, pinned in
 * test/conformance/runner with the Node 22 it needs) and reads its per-scenario results,
 * per requirement set: the suite's frozen `requirements/<revision>.yaml` for 2025-11-25
 * (the stateful wire) and 2026-07-28 (the stateless wire), which name the scenarios a
 * revision requires and those it runs without scoring (the tasks extension, pending
 * scenarios, scenarios added after the release).
 *
 * A scenario passes when none of its checks is a FAILURE — the rule of the CLI's own exit
 * code. WARNINGs (SHOULD-level checks), SKIPPED and INFO are kept for the report only.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { load } from 'js-yaml';
import { ROOT } from '../helpers/reference.js';

const BIN = join(ROOT, 'test/conformance/runner/node_modules/.bin');
export const NODE22 = join(BIN, 'node');
export const CONFORMANCE = join(BIN, 'conformance');
const PACKAGE = join(ROOT, 'test/conformance/runner/node_modules/@modelcontextprotocol/conformance');

export const REVISIONS = ['2025-11-25', '2026-07-28'] as const;
export type Revision = (typeof REVISIONS)[number];

export interface Requirements {
  /** Server scenarios the revision requires, in the suite's order. */
  server: string[];
  /** Client scenarios the revision requires. */
  client: string[];
  /** Scenarios run and reported, never scored, with the suite's reason (extension, pending, added-after-release). */
  notScored: { scenario: string; leg: 'server' | 'client'; reason: string }[];
}

/** The suite's requirement set for `revision`, read from the installed package (the suite's own truth). */
export function requirements(revision: Revision): Requirements {
  const doc = load(readFileSync(join(PACKAGE, 'requirements', `${revision}.yaml`), 'utf8')) as Partial<Requirements> & {
    not_scored?: Requirements['notScored'];
  };
  return { server: doc.server ?? [], client: doc.client ?? [], notScored: doc.not_scored ?? [] };
}

interface Check {
  id: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'SKIPPED' | 'INFO' | string;
  errorMessage?: string;
  /** What the check requires; the message when a failure carries none. */
  description?: string;
}

export interface Failure {
  /** The suite's check id (`wire-schema-valid`, `sep-2322-elicitation-incomplete`, …). */
  check: string;
  message: string;
}

export interface ScenarioResult {
  passed: boolean;
  /** Each FAILURE check. */
  failures: Failure[];
  /** `id: message` of each WARNING check. */
  warnings: string[];
}

/** Per-scenario bound passed to the CLI (its default is 30 s): a hanging relay costs seconds, not minutes. */
export const SCENARIO_MS = 20_000;

/**
 * Runs the CLI; resolves with its output once it exits, or once `timeoutMs` passed (it is
 * killed then, and the output says which scenario was running): the results written so
 * far are still read, and a scenario without one is reported as such.
 */
function run(args: string[], timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(NODE22, [CONFORMANCE, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      const last = [...out.matchAll(/=== Running scenario: (\S+) ===/g)].pop()?.[1];
      out += `\nconformance ${args[0]} did not finish in ${timeoutMs} ms${last ? `; it was running ${last}` : ''}\n`;
    }, timeoutMs);
    child.once('error', (err) => {
      clearTimeout(timer);
      reject(new Error(`could not start the conformance runner (npm run conformance:install): ${err.message}`));
    });
    // Exit code 1 only says that some scenario failed: the results are read from disk.
    child.once('close', () => {
      clearTimeout(timer);
      resolve(out);
    });
  });
}

function readChecks(file: string, crash = 'the suite wrote no checks (the scenario timed out or crashed)'): ScenarioResult {
  // A scenario that threw (the CLI prints "Failed to run scenario") has a directory but no checks.
  if (!existsSync(file)) return { passed: false, failures: [{ check: 'no-checks', message: crash }], warnings: [] };
  const checks = JSON.parse(readFileSync(file, 'utf8')) as Check[];
  const said = (c: Check) => c.errorMessage ?? (c.description ? `not met: ${c.description}` : '(no message)');
  const failures = checks.filter((c) => c.status === 'FAILURE').map((c) => ({ check: c.id, message: said(c) }));
  const warnings = checks.filter((c) => c.status === 'WARNING').map((c) => `${c.id}: ${said(c)}`);
  return { passed: failures.length === 0, failures, warnings };
}

/**
 * Runs every scenario of the `revision` requirement set (scored and not scored) against
 * the server at `url`, in one suite run at that revision's wire; results by scenario.
 */
export async function runServerSuite(url: string, revision: Revision, timeoutMs = 400_000): Promise<Map<string, ScenarioResult>> {
  const dir = mkdtempSync(join(tmpdir(), 'tc-conformance-'));
  const out = await run(['server', '--url', url, '--requirements', revision, '--timeout', String(SCENARIO_MS), '-o', dir], timeoutMs);
  const crashes = new Map([...out.matchAll(/^Failed to run scenario (\S+): (.*)$/gm)].map((m) => [m[1]!, `the scenario threw: ${m[2]}`]));
  const results = new Map<string, ScenarioResult>();
  for (const entry of readdirSync(dir)) {
    // <dir>/server-<scenario>-<ISO time with : and . as ->/checks.json
    const scenario = /^server-(.+)-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z$/.exec(entry)?.[1];
    if (scenario) results.set(scenario, readChecks(join(dir, entry, 'checks.json'), crashes.get(scenario)));
  }
  return results;
}

function findChecks(dir: string): string | undefined {
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    if (entry === 'checks.json') return path;
    if (statSync(path).isDirectory()) {
      const found = findChecks(path);
      if (found) return found;
    }
  }
  return undefined;
}

/**
 * Runs one client scenario at `revision`'s wire: the suite starts its test server (and
 * authorization server) and runs `command <url>`. Passes when the suite's overall verdict
 * does (its checks, the client's exit where the scenario counts it, its timeout).
 * `unscored`: a scenario the requirement set runs without scoring (an extension among them).
 */
export async function runClientScenario(command: string, scenario: string, revision: Revision, timeoutMs = 120_000, unscored = false): Promise<ScenarioResult> {
  const dir = mkdtempSync(join(tmpdir(), 'tc-conformance-client-'));
  const args = ['client', '--command', command, '--scenario', scenario, '--spec-version', revision, '--timeout', String(timeoutMs), '-o', dir];
  // An extension is "not on the spec timeline": a single-scenario run skips it unless forced (--requirements runs it).
  if (unscored) args.push('--force');
  const out = await run(args, timeoutMs + 30_000);
  const file = findChecks(dir);
  const result = file ? readChecks(file) : { passed: false, failures: [], warnings: [] };
  const overall = /OVERALL: PASSED/.test(out);
  if (!overall && result.failures.length === 0) {
    const why = out.split('\n').filter((l) => /error|fail|timed out/i.test(l)).slice(-3).join(' | ');
    result.failures.push({ check: 'overall', message: why || 'the suite reported no passing verdict' });
  }
  return { ...result, passed: overall && result.failures.length === 0 };
}

/**
 * test/conformance/expected-failures.yaml: what a conformance upstream (or a link to the
 * server under test) itself cannot pass, per revision — `scenario` (wholesale) or
 * `scenario:check-id` (one check, the suite's own baseline syntax) mapped to the reason.
 * @param lists the sections that apply to a run, merged.
 */
export function expectedFailures(lists: string | string[], revision: Revision, file = 'expected-failures.yaml'): Map<string, string> {
  const doc = load(readFileSync(join(ROOT, 'test/conformance', file), 'utf8')) as Record<string, Record<string, Record<string, string> | null>> | null;
  return new Map([lists].flat().flatMap((list) => Object.entries(doc?.[list]?.[revision] ?? {})));
}

/**
 * What is wrong with a run against its expected failures: scenarios without a result,
 * failing checks not listed, and listed scenarios or checks that now pass (the list may
 * only shrink), and listed names that are not required scenarios.
 * @returns one sentence per problem; empty when the run matches.
 */
export function problems(results: Map<string, ScenarioResult>, scenarios: string[], expected: Map<string, string>, run: string, file = 'expected-failures.yaml'): string[] {
  const out: string[] = [];
  for (const s of scenarios) {
    const r = results.get(s);
    if (!r) {
      out.push(`${s}: no result (the suite did not run it)`);
      continue;
    }
    const wholesale = expected.has(s);
    const unlisted = r.failures.filter((f) => !wholesale && !expected.has(`${s}:${f.check}`));
    if (unlisted.length) out.push(`${s} fails and is not in ${file} (${run}): ${unlisted.map((f) => `${f.check}: ${f.message}`).join('; ')}`);
    if (wholesale && r.passed) out.push(`${s} now passes: remove it from ${file} (${run})`);
    for (const key of expected.keys()) {
      const check = key.startsWith(`${s}:`) ? key.slice(s.length + 1) : undefined;
      if (check && !r.failures.some((f) => f.check === check)) out.push(`${key} now passes: remove it from ${file} (${run})`);
    }
  }
  for (const key of expected.keys()) {
    const s = key.split(':')[0]!;
    if (!scenarios.includes(s)) out.push(`${key} in ${file} (${run}) is not a required scenario of this run: remove it`);
  }
  return out;
}

/** One line per scenario a requirement set runs without scoring (the tasks extension among them), for the report. */
export function unscoredReport(results: Map<string, ScenarioResult>, notScored: Requirements['notScored']): string[] {
  return notScored
    .filter((n) => results.has(n.scenario))
    .map((n) => {
      const r = results.get(n.scenario)!;
      return `${r.passed ? 'pass' : 'FAIL'} ${n.scenario} (${n.reason}, not scored)${r.passed ? '' : `: ${r.failures.map((f) => `${f.check}: ${f.message}`).join('; ').slice(0, 300)}`}`;
    });
}
