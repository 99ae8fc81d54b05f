/**
 * `tool-curator serve --http` with `http.oauth`, as an operator runs it: the built CLI in
 * its own process, a real OpenID provider (oidc-provider on loopback), an MCP SDK client
 * signing in with client credentials. The access token never appears in the gateway's
 * output; a rule naming an unknown persona stops the start with the key named.
 */
import type { ChildProcess } from 'node:child_process';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, ClientCredentialsProvider, StreamableHTTPClientTransport, type CallToolResult } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { conformanceConfig } from '../../helpers/conformance.js';
import { startIdp, type Idp } from '../../helpers/idp.js';
import { freePort, spawnUntil } from '../../helpers/process.js';
import { CLI } from '../../helpers/reference.js';

const SECRET = 'service-secret-0123456789abcdefghij';

function config(issuer: string, resource: string, persona = 'tester'): string {
  const personas = join(mkdtempSync(join(tmpdir(), 'tc-oauth-cli-')), 'personas.yaml');
  writeFileSync(personas, 'tester:\n  allow: ["*"]\n');
  return conformanceConfig({
    policy: { personas },
    // The upstream's start took over the 20 s default on a loaded machine.
    timeouts: { startup_ms: 120_000 },
    http: { oauth: { issuer, resource, scopes: ['mcp:tools'], personas: [{ persona, when: { claim: 'groups', includes: 'mcp-users' } }] } },
  });
}

describe('serve --http with http.oauth', () => {
  let idp: Idp;
  let gateway: ChildProcess;
  let stderr: () => string;
  let resource: string;

  beforeAll(async () => {
    const port = await freePort();
    resource = `http://127.0.0.1:${port}/mcp`;
    idp = await startIdp({
      resources: [resource],
      scope: 'mcp:tools',
      accounts: {},
      services: { 'report-bot': { secret: SECRET, claims: { groups: ['mcp-users'] } } },
      publicClient: { id: 'test-host', redirectUri: 'http://127.0.0.1:8976/callback' },
      introspector: { id: 'tool-curator', secret: 'introspection-secret-0123456789abcdef' },
    });
    // Listening, and the upstream's tools in the catalog.
    const servingAndReady = /(?=[\s\S]*serving MCP over Streamable HTTP)(?=[\s\S]*"msg":"gateway ready")/;
    const started = await spawnUntil(process.execPath, [CLI, 'serve', '--config', config(idp.issuer, resource), '--http', String(port)], servingAndReady, { TOOL_CURATOR_LOG: 'info' }, 150_000);
    gateway = started.child;
    stderr = started.stderr;
  }, 200_000);
  afterAll(async () => {
    gateway?.kill();
    await idp?.close();
  });

  it('a service signs in with client credentials and calls a tool; its token is never written to the log', async () => {
    expect(stderr()).toContain('"msg":"hosts sign in with the identity provider (http.oauth)"');
    const authProvider = new ClientCredentialsProvider({ clientId: 'report-bot', clientSecret: SECRET, scope: 'mcp:tools', expectedIssuer: idp.issuer });
    const client = new Client({ name: 'report-bot', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(resource), { authProvider }));
    const result = (await client.callTool({ name: 'test_simple_text', arguments: {} })) as CallToolResult;
    expect(result.content).toEqual([{ type: 'text', text: 'This is a simple text response for testing.' }]);
    await client.close();
    const token = authProvider.tokens()!.access_token;
    expect(token.length).toBeGreaterThan(100);
    expect(stderr()).not.toContain(token);
    expect(stderr()).not.toContain(SECRET);
  });

  it('refuses to start when a rule names a persona personas.yaml lacks, naming the rule', () => {
    const run = spawnSync(process.execPath, [CLI, 'serve', '--config', config(idp.issuer, resource, 'nobody'), '--http', '0'], { encoding: 'utf8', timeout: 60_000 });
    expect(run.status).not.toBe(0);
    expect(run.stderr).toMatch(/http\.oauth\.personas\.0\.persona: unknown persona "nobody"; personas\.yaml defines: tester/);
    expect(run.stderr).not.toMatch(/serving MCP over Streamable HTTP/);
  });
});
