import type { CallToolResult } from '@modelcontextprotocol/client';
import { describe, expect, test } from 'vitest';
import { configSecrets } from '../../../src/guards/secrets/config.js';
import { secretsGuard } from '../../../src/guards/secrets/guard.js';
import { HeldSecrets } from '../../../src/guards/secrets/held.js';
import { SecretRedactor, type PatternMode } from '../../../src/guards/secrets/redactor.js';
import type { CallContext } from '../../../src/guards/types.js';
import { gatewayConfigSchema } from '../../../src/config/schema.js';

const GITHUB = 'ghp_4mZ1cTq8Xr2VbN7kLw0PdY3sHj6fUe9AoGi5';

function call(mode: PatternMode, args: Record<string, unknown>, answer: CallToolResult) {
  const forwarded: Record<string, unknown>[] = [];
  const ctx: CallContext = { session: { sessionId: 's' }, requestedName: 'write_note', args, decisions: [], notes: [] };
  const guard = secretsGuard(new SecretRedactor(new HeldSecrets(), mode));
  return {
    ctx,
    forwarded,
    run: () =>
      guard(ctx, async (c) => {
        forwarded.push(c.args);
        return answer;
      }),
  };
}

describe('secretsGuard (guards.secrets)', () => {
  const ok: CallToolResult = { content: [{ type: 'text', text: 'saved' }] };

  test('block: arguments carrying a GitHub token refuse the call before it is forwarded', async () => {
    const c = call('block', { note: `my token is ${GITHUB}` }, ok);
    const result = await c.run();
    expect(c.forwarded).toEqual([]);
    expect(result).toEqual({ isError: true, content: [{ type: 'text', text: 'write_note was not called: its arguments carry a secret (GitHub token), and this gateway does not pass secrets to tools (guards.secrets: block).' }] });
    expect(c.ctx.decisions).toEqual(['refused']);
  });

  test('block: a result carrying a JWT becomes an error naming the kind', async () => {
    const jwt = 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U';
    const c = call('block', { note: 'hi' }, { content: [{ type: 'text', text: `session ${jwt}` }] });
    expect(await c.run()).toEqual({ isError: true, content: [{ type: 'text', text: 'the result of write_note was withheld: it carries a secret (JWT), and this gateway does not pass secrets to the model (guards.secrets: block).' }] });
    expect(c.forwarded).toEqual([{ note: 'hi' }]);
  });

  test('redact: the token is replaced before the call goes upstream, and the model is told', async () => {
    const c = call('redact', { note: `my token is ${GITHUB}`, n: 2 }, ok);
    const result = await c.run();
    expect(c.forwarded).toEqual([{ note: 'my token is [secret removed: GitHub token]', n: 2 }]);
    expect(result.content).toEqual([{ type: 'text', text: '[tool-curator] removed from the arguments before the call: GitHub token' }, { type: 'text', text: 'saved' }]);
    expect(c.ctx.notes).toEqual(['secret removed from the arguments: GitHub token']);
  });

  test('off: arguments and results pass as they are', async () => {
    const c = call('off', { note: GITHUB }, { content: [{ type: 'text', text: GITHUB }] });
    expect(await c.run()).toEqual({ content: [{ type: 'text', text: GITHUB }] });
    expect(c.forwarded).toEqual([{ note: GITHUB }]);
  });
});

describe('configSecrets', () => {
  test('every credential of a configuration, labelled; descriptive headers and ordinary env values are not held', () => {
    const config = gatewayConfigSchema.parse({
      upstreams: {
        crm: { url: 'https://crm.example/mcp', headers: { Authorization: 'Bearer crm-static-0a9b8c7d', Accept: 'application/json', 'X-Api-Key': 'k-55e1d0c9b8' } },
        gh: { command: 'node', args: ['gh.js'], env: { GITHUB_TOKEN: 'ghp_envvalue000111', LOG_LEVEL: 'debug-verbose', DATABASE_URL: 'postgres://u:db-pass-123@db/x' }, secret_env: ['DATABASE_URL'] },
        docs: { url: 'https://docs.example/mcp', auth: { oauth: { client_id: 'tc', client_secret: 'docs-client-secret-1' } } },
        m2m: { url: 'https://m2m.example/mcp', auth: { client_credentials: { client_id: 'gw', client_secret: 'm2m-secret-2222' } } },
      },
      store: 'postgres://tc:store-pass-9876@db.internal/tc',
      http: { tokens: [{ token: 'host-token-0123456789ab', persona: 'p' }], approvals_token: 'approvals-0123456789ab', metrics: { enabled: true, token: 'metrics-0123456789abcd' } },
      per_user: { sign_in: { client_id: 'consent', client_secret: 'consent-secret-77' } },
    });
    expect(configSecrets(config)).toEqual([
      { value: 'Bearer crm-static-0a9b8c7d', label: 'header Authorization of upstream crm' },
      { value: 'k-55e1d0c9b8', label: 'header X-Api-Key of upstream crm' },
      { value: 'ghp_envvalue000111', label: 'env GITHUB_TOKEN of upstream gh' },
      { value: 'postgres://u:db-pass-123@db/x', label: 'env DATABASE_URL of upstream gh' },
      { value: 'docs-client-secret-1', label: 'OAuth client secret of upstream docs' },
      { value: 'm2m-secret-2222', label: 'OAuth client secret of upstream m2m' },
      { value: 'host-token-0123456789ab', label: 'host token' },
      { value: 'approvals-0123456789ab', label: 'approvals token' },
      { value: 'metrics-0123456789abcd', label: 'metrics token' },
      { value: 'consent-secret-77', label: 'sign-in client secret' },
      { value: 'store-pass-9876', label: 'store password' },
    ]);
  });

  test("the credentials in a remote upstream's URL are held: its password and each query parameter named as a key or token (attack8)", () => {
    const config = gatewayConfigSchema.parse({
      upstreams: {
        exa: { url: 'https://mcp.exa.example/mcp?exaApiKey=exa-key-7f3e2d1c&profile=web-search', transport: 'streamable-http' },
        hosted: { url: 'https://svc:basic-pass-4b5c6d@mcp.hosted.example/mcp?access_token=tok%2Fen-9a8b7c6d&region=eu-west-1' },
        plain: { url: 'https://plain.example/mcp?mode=readonly-everything' },
      },
    });
    expect(configSecrets(config)).toEqual([
      { value: 'exa-key-7f3e2d1c', label: 'URL parameter exaApiKey of upstream exa' },
      { value: 'basic-pass-4b5c6d', label: 'URL password of upstream hosted' },
      { value: 'tok/en-9a8b7c6d', label: 'URL parameter access_token of upstream hosted' },
    ]);
    const held = new HeldSecrets();
    held.set('c', configSecrets(config));
    expect(new SecretRedactor(held, 'off').redactText('rejected GET /mcp?exaApiKey=exa-key-7f3e2d1c&profile=web-search')).toBe(
      'rejected GET /mcp?exaApiKey=[secret removed: URL parameter exaApiKey of upstream exa]&profile=web-search',
    );
    expect(new SecretRedactor(held, 'off').redactText('GET /mcp?access_token=tok%2Fen-9a8b7c6d')).toBe('GET /mcp?access_token=[secret removed: URL parameter access_token of upstream hosted]');
  });

  test("a token in a remote upstream's URL path is held; names, versions and short ids in the path are not", () => {
    const config = gatewayConfigSchema.parse({
      upstreams: {
        zap: { url: 'https://mcp.zap.example/api/mcp/s/NzQ3YjE2ZmItODk0Ni00OWZl/mcp' },
        pipe: { url: 'https://mcp.pipe.example/6f1c2a9e-3b7d-4e58-a0c4-9d2e7b1f5a36/gmail' },
        named: { url: 'https://tools.example/v1/github-enterprise-server/team-tools-2024/mcp' },
        short: { url: 'https://tools.example/tenant/a1b2c3/mcp' },
      },
    });
    expect(configSecrets(config)).toEqual([
      { value: 'NzQ3YjE2ZmItODk0Ni00OWZl', label: 'URL path token of upstream zap' },
      { value: '6f1c2a9e-3b7d-4e58-a0c4-9d2e7b1f5a36', label: 'URL path token of upstream pipe' },
    ]);
    const held = new HeldSecrets();
    held.set('c', configSecrets(config));
    expect(new SecretRedactor(held, 'off').redactText('404 for POST https://mcp.zap.example/api/mcp/s/NzQ3YjE2ZmItODk0Ni00OWZl/mcp')).toBe(
      '404 for POST https://mcp.zap.example/api/mcp/s/[secret removed: URL path token of upstream zap]/mcp',
    );
  });

  test("the credentials on a stdio upstream's command line are held: --api-key VALUE, --token=VALUE; other options are not (attack8)", () => {
    const config = gatewayConfigSchema.parse({
      upstreams: { argy: { command: 'npx', args: ['@vendor/server', '--api-key', 'arg-key-5e4d3c2b1a', '--token=arg-token-0f9e8d7c', '--verbose', '--port', '8080', '-k', 'short-key-value'] } },
    });
    expect(configSecrets(config)).toEqual([
      { value: 'arg-key-5e4d3c2b1a', label: 'argument --api-key of upstream argy' },
      { value: 'arg-token-0f9e8d7c', label: 'argument --token of upstream argy' },
    ]);
  });

  test('the env password inside a URL is removed on its own too', () => {
    const held = new HeldSecrets();
    held.set('c', [{ value: 'postgres://u:db-pass-123@db/x', label: 'env DATABASE_URL of upstream gh' }]);
    expect(new SecretRedactor(held, 'off').redactText('auth failed for password db-pass-123')).toBe('auth failed for password [secret removed: env DATABASE_URL of upstream gh]');
  });
});
