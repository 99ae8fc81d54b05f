/**
 * `tool-curator doctor` on per-user upstreams whose setup is wrong, against a real
 * OAuth-protected MCP upstream (test/upstream/authServer.ts): no catalog authorization
 * yet, a consent page without its own sign-in beside http.oauth, consent links at an
 * address no browser can open, and no session with a user id. (A healthy setup with users
 * who consented is in perUserRelay.test.ts.)
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { openConfiguredStore } from '../../src/config/store.js';
import { formatDoctor, runDoctor } from '../../src/doctor/doctor.js';
import { startProtectedServer, type ProtectedServer } from '../upstream/authServer.js';

describe('doctor on per-user upstreams', () => {
  let upstream: ProtectedServer;

  beforeAll(async () => {
    upstream = await startProtectedServer();
  });

  afterAll(async () => {
    await upstream?.close();
  });

  /** Writes a config with the per-user upstream `tracker`, the persona `staff`, and `extra` top-level keys. */
  function config(extra: Record<string, unknown>): string {
    const dir = mkdtempSync(join(tmpdir(), 'tc-doctor-peruser-'));
    const file = join(dir, 'gateway.config.yaml');
    writeFileSync(join(dir, 'personas.yaml'), 'staff:\n  allow: ["tracker.*"]\n');
    writeFileSync(
      file,
      JSON.stringify({
        upstreams: { tracker: { url: upstream.mcpUrl, auth: { oauth: {}, per_user: true } } },
        curator: { mode: 'none' },
        store: join(dir, 'store.db'),
        policy: { personas: 'personas.yaml' },
        timeouts: { startup_ms: 60_000 },
        ...extra,
      }),
    );
    return file;
  }

  it('no catalog authorization, links at an unspecified address, no user id: each a warning naming what to do', async () => {
    const file = config({ http: { host: '0.0.0.0' } });
    // The store exists (a gateway ran), without any authorization in it.
    await (await openConfiguredStore(loadConfig(file))).close();
    const report = await runDoctor(file);
    const perUser = report.findings.filter((f) => f.check === 'per-user');
    expect(perUser.map((f) => [f.level, f.key])).toEqual([
      ['warn', 'upstreams.tracker.auth.per_user'],
      ['warn', 'per_user.public_url'],
      ['warn', 'http'],
    ]);
    expect(perUser[0]!.message).toBe(
      "tracker: acts with each user's own account; the gateway's own (catalog) authorization is missing, so its tools are in no catalog and no user can reach the consent link: run tool-curator auth tracker (ideally as a service account with the least scope); 0 user(s) hold their own authorization (tool-curator auth tracker --users)",
    );
    expect(perUser[1]!.message).toBe("consent links would start at the HTTP face's own address http://0.0.0.0:<port>, which no browser can open: set per_user.public_url to the address browsers reach the gateway at");
    expect(perUser[2]!.message).toContain('no session has a user id');
    expect(report.exitCode).toBe(1);
    expect(formatDoctor(report)).toMatch(/^per-user WARN {3}\S+gateway\.config\.yaml: per_user\.public_url: consent links would start at /m);
  }, 120_000);

  it('hosts signing in with http.oauth but a consent page without sign-in is an error; a loopback public_url for a face on every interface a warning', async () => {
    const file = config({
      http: {
        host: '0.0.0.0',
        oauth: { issuer: 'https://idp.example.com', resource: 'https://mcp.example.com/mcp', personas: [{ persona: 'staff' }] },
      },
      per_user: { public_url: 'http://127.0.0.1:8080' },
    });
    const report = await runDoctor(file);
    const perUser = report.findings.filter((f) => f.check === 'per-user');
    expect(perUser.map((f) => [f.level, f.key])).toEqual([
      ['warn', 'upstreams.tracker.auth.per_user'],
      ['error', 'per_user.sign_in'],
      ['warn', 'per_user.public_url'],
    ]);
    expect(perUser[1]!.message).toContain('set per_user.sign_in.client_id to a client of https://idp.example.com');
    expect(perUser[2]!.message).toBe('consent links start at http://127.0.0.1:8080, a loopback address, while the HTTP face listens on 0.0.0.0: browsers on other machines cannot open them; set per_user.public_url');
  }, 120_000);
});
