/** The rule of expected-failures.yaml: a run must match it exactly, so the list can only shrink. */
import { describe, expect, it } from 'vitest';
import { expectedFailures, problems, requirements, type ScenarioResult } from './suite.js';

const pass: ScenarioResult = { passed: true, failures: [], warnings: [] };
const fail = (check: string, message: string): ScenarioResult => ({ passed: false, failures: [{ check, message }], warnings: [] });
const scenarios = ['ping', 'prompts-list', 'resources-list', 'server-stateless'];
const listed = (...keys: string[]) => new Map(keys.map((k) => [k, 'a reason']));

describe('problems(): a run against its expected failures', () => {
  it('matches when exactly the listed scenarios and checks fail; warnings alone do not fail a scenario', () => {
    const results = new Map([
      ['ping', { ...pass, warnings: ['x: SHOULD'] }],
      ['prompts-list', fail('prompts-list', 'Failed: MCP error -32601: Method not found')],
      ['resources-list', pass],
      ['server-stateless', fail('sep-2575-server-no-log-without-loglevel', 'Not testable')],
    ]);
    expect(problems(results, scenarios, listed('prompts-list', 'server-stateless:sep-2575-server-no-log-without-loglevel'), 'stdio')).toEqual([]);
  });

  it("names an unlisted failure with the suite's message, a listed scenario or check that passes, a missing result and an unknown entry", () => {
    const results = new Map([
      ['ping', pass],
      ['prompts-list', fail('prompts-list', 'Failed: MCP error -32601: Method not found')],
      ['server-stateless', fail('sep-2575-server-implements-discover', 'Discovery failed')],
    ]);
    expect(problems(results, scenarios, listed('ping', 'server-stateless:sep-2575-server-no-log-without-loglevel', 'no-such-scenario'), 'http')).toEqual([
      'ping now passes: remove it from expected-failures.yaml (http)',
      'prompts-list fails and is not in expected-failures.yaml (http): prompts-list: Failed: MCP error -32601: Method not found',
      'resources-list: no result (the suite did not run it)',
      'server-stateless fails and is not in expected-failures.yaml (http): sep-2575-server-implements-discover: Discovery failed',
      'server-stateless:sep-2575-server-no-log-without-loglevel now passes: remove it from expected-failures.yaml (http)',
      'no-such-scenario in expected-failures.yaml (http) is not a required scenario of this run: remove it',
    ]);
  });

  it('reads the committed file: the 2026 upstream passes everything; every entry is a required scenario with its reason', () => {
    for (const revision of ['2025-11-25', '2026-07-28'] as const) expect([...expectedFailures('upstream2026', revision)]).toEqual([]);
    expect([...expectedFailures('upstream2025', '2025-11-25')]).toEqual([]);
    expect(expectedFailures('upstream2025', '2026-07-28').size).toBeGreaterThan(0);
    const lists = ['upstream2025', 'upstream2026', 'stdio-bridge', 'upstream2026-stdio-face'];
    for (const revision of ['2025-11-25', '2026-07-28'] as const) {
      const required = requirements(revision).server;
      for (const [key, reason] of expectedFailures(lists, revision)) {
        expect(required).toContain(key.split(':')[0]);
        expect(reason.length).toBeGreaterThan(20);
      }
    }
  });
});
