/** The rule of expected-failures.yaml: a run must match it exactly, so the list can only shrink. */
import { describe, expect, it } from 'vitest';
import { expectedFailures, problems, type ScenarioResult } from './suite.js';

const pass: ScenarioResult = { passed: true, failures: [], warnings: [] };
const fail: ScenarioResult = { passed: false, failures: ['prompts-list: Failed: MCP error -32601: Method not found'], warnings: [] };
const scenarios = ['ping', 'prompts-list', 'resources-list'];

describe('problems(): a run against its expected failures', () => {
  it('matches when exactly the listed scenarios fail; warnings alone do not fail a scenario', () => {
    const results = new Map([['ping', { ...pass, warnings: ['x: SHOULD'] }], ['prompts-list', fail], ['resources-list', pass]]);
    expect(problems(results, scenarios, ['prompts-list'], 'stdio')).toEqual([]);
  });

  it('names an unlisted failure with the suite\'s message, a listed scenario that passes, a missing result and an unknown entry', () => {
    const results = new Map([['ping', pass], ['prompts-list', fail]]);
    expect(problems(results, scenarios, ['ping', 'no-such-scenario'], 'http')).toEqual([
      'ping now passes: remove it from the "http" list in test/conformance/expected-failures.yaml',
      'prompts-list fails and is not in expected-failures.yaml (http): prompts-list: Failed: MCP error -32601: Method not found',
      'resources-list: no result (the suite did not run it)',
      'no-such-scenario in expected-failures.yaml (http) is not a 2025-11-25 server scenario: remove it',
    ]);
  });

  it('reads the committed file: nothing may fail directly; the gateway runs list real scenario names', () => {
    expect(expectedFailures('direct')).toEqual([]);
    for (const run of ['stdio', 'http']) for (const s of expectedFailures(run)) expect(s).toMatch(/^[a-z0-9-]+$/);
  });
});
