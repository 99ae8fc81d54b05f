/**
 * The MCP conformance suite's client scenarios against the gateway's upstream side, both
 * requirement sets: for each scenario the suite starts its test server (and
 * authorization server) at that revision's wire and runs client-host.mjs, a host that
 * starts the built gateway with the scenario's URL as its one upstream and does through
 * it what the suite's example client does directly. Scored scenarios are compared with
 * expected-client-failures.yaml, which may only shrink; the scenarios a requirement set
 * runs without scoring (extensions, added after the release) are run and reported.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/reference.js';
import { expectedFailures, problems, requirements, REVISIONS, runClientScenario, unscoredReport, type ScenarioResult } from './suite.js';

const HOST = `${process.execPath} ${join(ROOT, 'test/conformance/client-host.mjs')}`;
/** Per scenario: the gateway starts once or twice (auth) on a shared machine. */
const SCENARIO_MS = 120_000;

/** Runs `scenarios` two at a time: each runs a suite server, the gateway and its auth command. */
async function runAll(scenarios: string[], unscored: string[], revision: (typeof REVISIONS)[number]): Promise<Map<string, ScenarioResult>> {
  const results = new Map<string, ScenarioResult>();
  const queue = [...scenarios, ...unscored];
  await Promise.all(
    [0, 1].map(async () => {
      for (let s = queue.shift(); s; s = queue.shift()) results.set(s, await runClientScenario(HOST, s, revision, SCENARIO_MS, unscored.includes(s)));
    }),
  );
  return results;
}

describe('conformance client scenarios through the gateway', () => {
  for (const revision of REVISIONS) {
    it(
      `at ${revision}: every required scenario passes but the expected failures, which still fail`,
      async () => {
        const { client, notScored } = requirements(revision);
        const unscored = notScored.filter((n) => n.leg === 'client');
        const results = await runAll(client, unscored.map((n) => n.scenario), revision);
        const passed = client.filter((s) => results.get(s)?.passed).length;
        console.info(
          [
            `conformance client at ${revision}: ${passed}/${client.length} required scenarios pass`,
            ...client.map((s) => `  ${results.get(s)?.passed ? 'pass' : 'FAIL'} ${s}${results.get(s)?.passed ? '' : `: ${results.get(s)?.failures.map((f) => `${f.check}: ${f.message}`).join('; ').slice(0, 300)}`}`),
            ...unscoredReport(results, unscored).map((l) => `  ${l}`),
          ].join('\n'),
        );
        const file = 'expected-client-failures.yaml';
        expect(problems(results, client, expectedFailures('gateway', revision, file), `client at ${revision}`, file)).toEqual([]);
      },
      60 * 60_000,
    );
  }
});
