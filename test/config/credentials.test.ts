/**
 * One credential, one job (src/config/credentials.ts): a host token that is also the
 * approvals token, a metrics token that is also a host's or the approvals token, and two
 * host tokens with one value are refused when the config loads, by every command, exit 2,
 * naming both keys and never the value.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dump } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/load.js';
import { CLI } from '../helpers/reference.js';

const STUDENT = 'stud-token-0123456789abcdef';
const STUDENT2 = 'stud2-token-0123456789abcdef';
const APPROVALS = 'appr-token-0123456789abcdef';
const METRICS = 'metrics-token-0123456789abcdef';

function configWith(http: Record<string, unknown>): string {
  const dir = mkdtempSync(join(tmpdir(), 'tc-credentials-'));
  const configPath = join(dir, 'gateway.config.yaml');
  writeFileSync(configPath, dump({ upstreams: {}, store: join(dir, 'store.db'), curator: { mode: 'bm25', embedder: 'none' }, http }));
  return configPath;
}

const tokens = (second = STUDENT2) => [
  { token: STUDENT, persona: 'student', user_id: 'S0001' },
  { token: second, persona: 'student', user_id: 'S0002' },
];

function loadError(http: Record<string, unknown>): ConfigError {
  try {
    loadConfig(configWith(http));
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return err as ConfigError;
  }
  throw new Error('the config loaded');
}

describe('http secrets that are also another credential', () => {
  it('the approvals token equal to a host token is refused, naming both keys', () => {
    const e = loadError({ tokens: tokens(), approvals_token: STUDENT2 });
    expect(e.keyPath).toBe('http.approvals_token');
    expect(e.expectation).toMatch(/^has the same value as the token of http\.tokens\.1 \(persona student, user S0002\): that host could approve its own parked calls/);
    expect(e.message).not.toContain(STUDENT2);
  });

  it('two host tokens with one value are refused, naming both entries by index and user', () => {
    const e = loadError({ tokens: tokens(STUDENT), approvals_token: APPROVALS });
    expect(e.keyPath).toBe('http.tokens.1.token');
    expect(e.expectation).toContain('the token of http.tokens.0 (persona student, user S0001)');
    expect(e.expectation).toContain('http.tokens.1 (persona student, user S0002) could never be used');
    expect(e.message).not.toContain(STUDENT);
  });

  it('the metrics token equal to a host token or to the approvals token is refused', () => {
    const host = loadError({ tokens: tokens(), approvals_token: APPROVALS, metrics: { enabled: true, token: STUDENT } });
    expect([host.keyPath, host.expectation]).toEqual([
      'http.metrics.token',
      'has the same value as the token of http.tokens.0 (persona student, user S0001): whoever scrapes the metrics could act as that host. Give the scraper its own secret',
    ]);
    const approvals = loadError({ tokens: tokens(), approvals_token: APPROVALS, metrics: { enabled: true, token: APPROVALS } });
    expect([approvals.keyPath, approvals.expectation]).toEqual([
      'http.metrics.token',
      'has the same value as http.approvals_token: whoever scrapes the metrics could approve parked calls on the approvals page. Give the scraper its own secret',
    ]);
  });

  it('distinct secrets load', () => {
    const loaded = loadConfig(configWith({ tokens: tokens(), approvals_token: APPROVALS, metrics: { enabled: true, token: METRICS } }));
    expect(loaded.config.http.tokens.map((t) => t.user_id)).toEqual(['S0001', 'S0002']);
    expect(loaded.config.http.approvals_token).toBe(APPROVALS);
  });

  it('`serve --http` and `audit` exit 2 with the keys on stderr, never the token', () => {
    const configPath = configWith({ tokens: tokens(), approvals_token: STUDENT });
    const env = { ...process.env, TOOL_CURATOR_LOG: 'warn' };
    for (const args of [['serve', '--http', '0'], ['audit']]) {
      const run = spawnSync(process.execPath, [CLI, ...args, '--config', configPath], { encoding: 'utf8', env, timeout: 60_000 });
      expect(run.status).toBe(2);
      expect(run.stderr).toContain('http.approvals_token: has the same value as the token of http.tokens.0 (persona student, user S0001)');
      expect(run.stderr).not.toContain(STUDENT);
      expect(run.stdout).toBe('');
    }
  }, 120_000);
});
