/**
 * Token variables of the `http` block are needed by `serve --http` only: every other
 * command (and stdio serve) runs with them unset; `serve --http` refuses with the key.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dump } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/load.js';
import { checkTokens } from '../../src/host/http.js';
import { CLI } from '../helpers/reference.js';

function configWithHttp(): string {
  const dir = mkdtempSync(join(tmpdir(), 'tc-httpenv-'));
  const configPath = join(dir, 'gateway.config.yaml');
  writeFileSync(configPath, dump({
    upstreams: {},
    store: join(dir, 'store.db'),
    curator: { mode: 'bm25', embedder: 'none' },
    http: { tokens: [{ token: '${TC_TEST_UNSET_TOKEN}', persona: 'student' }] },
  }));
  return configPath;
}

const env = { ...process.env, TC_TEST_UNSET_TOKEN: undefined, TOOL_CURATOR_LOG: 'warn' };

describe('http token variables are needed only by serve --http', () => {
  it('loadConfig succeeds and keeps the error for serveHttp', () => {
    const loaded = loadConfig(configWithHttp(), { PATH: process.env.PATH });
    expect(loaded.config.http.tokens).toEqual([]);
    expect(loaded.httpError).toBeInstanceOf(ConfigError);
    expect(loaded.httpError!.message).toContain('http.tokens.0.token: environment variable TC_TEST_UNSET_TOKEN is not set');
    expect(() => checkTokens(loaded)).toThrow(/TC_TEST_UNSET_TOKEN is not set/);
  });

  it('`audit` runs; `serve --http` exits 2 naming the key', () => {
    const configPath = configWithHttp();
    const audit = spawnSync(process.execPath, [CLI, 'audit', '--config', configPath], { encoding: 'utf8', env, timeout: 60_000 });
    expect(audit.stderr).toBe('');
    expect(audit.status).toBe(0);
    const serve = spawnSync(process.execPath, [CLI, 'serve', '--http', '0', '--config', configPath], { encoding: 'utf8', env, timeout: 60_000 });
    expect(serve.status).toBe(2);
    expect(serve.stderr).toContain('http.tokens.0.token: environment variable TC_TEST_UNSET_TOKEN is not set');
  }, 120_000);
});
