/**
 * Invalid params of any spec method get -32602 Invalid params with a short message (the
 * SDK answered -32603 with a dump of schema issues for every method but tools/call), in
 * both eras, over Streamable HTTP and stdio; real SDK clients against the gateway with the
 * conformance upstream (which offers prompts, resources and completions).
 */
import { Client, ProtocolError, StreamableHTTPClientTransport, type Transport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { loadConfig } from '../../src/config/load.js';
import { Gateway } from '../../src/gateway/gateway.js';
import { serveHttp, type HttpFace } from '../../src/host/http.js';
import { invalidParamsMessage } from '../../src/host/invalidParams.js';
import { conformanceConfig } from '../helpers/conformance.js';
import { CLI, ROOT } from '../helpers/reference.js';

const TOKEN = 'invalid-params-token-0123456789';
const PIN = { versionNegotiation: { mode: { pin: '2026-07-28' as const } } };
type Era = 'legacy' | 'modern';

/** Method, params, and the message the gateway answers with. */
const CASES: { method: string; params: Record<string, unknown>; message: string; eras: Era[] }[] = [
  { method: 'prompts/get', params: { name: 5 }, message: 'Invalid params for prompts/get: params.name: expected string, received number', eras: ['legacy', 'modern'] },
  { method: 'resources/read', params: { uri: {} }, message: 'Invalid params for resources/read: params.uri: expected string, received object', eras: ['legacy', 'modern'] },
  { method: 'completion/complete', params: { argument: { name: 'arg1', value: 'a' } }, message: 'Invalid params for completion/complete: params.ref is required', eras: ['legacy', 'modern'] },
  { method: 'tools/list', params: { cursor: 7 }, message: 'Invalid params for tools/list: params.cursor: expected string, received number', eras: ['legacy', 'modern'] },
  // logging/setLevel is not a 2026-07-28 method (a 2026 client refuses to send it).
  {
    method: 'logging/setLevel',
    params: { level: 'loud' },
    message: 'Invalid params for logging/setLevel: params.level: Invalid option: expected one of "debug"|"info"|"notice"|"warning"|"error"|"critical"|"alert"|"emergency"',
    eras: ['legacy'],
  },
  { method: 'tools/call', params: { name: 5 }, message: 'Invalid params for tools/call: params.name: expected string, received number', eras: ['legacy', 'modern'] },
];

async function connected(era: Era, transport: Transport): Promise<Client> {
  const client = new Client({ name: `host-${era}`, version: '1.0.0' }, era === 'modern' ? PIN : {});
  await client.connect(transport);
  expect(client.getProtocolEra()).toBe(era);
  return client;
}

/** The error `client` gets for `method` with `params` (a raw request: the SDK client checks no params it sends). */
async function errorOf(client: Client, method: string, params: Record<string, unknown>): Promise<{ code: unknown; message: string }> {
  const error = await client.request({ method, params } as never, z.any()).then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(error).toBeInstanceOf(ProtocolError);
  const { code, message } = error as ProtocolError;
  return { code, message };
}

/** Every case for the era gets -32602 and its short message; a valid request on the same connection still works. */
async function expectInvalidParams(client: Client, era: Era): Promise<void> {
  for (const { method, params, message, eras } of CASES.filter((c) => c.eras.includes(era))) {
    const answer = await errorOf(client, method, params);
    expect({ method, ...answer }).toEqual({ method, code: -32602, message });
    expect(answer.message).not.toMatch(/invalid_type|"code"|"path"|\n/);
  }
  const prompt = await client.getPrompt({ name: 'test_simple_prompt' });
  expect(prompt.messages[0]!.content).toEqual({ type: 'text', text: 'This is a simple prompt for testing.' });
}

describe('invalid params, over Streamable HTTP', () => {
  let gateway: Gateway;
  let face: HttpFace;
  beforeAll(async () => {
    gateway = await Gateway.start(loadConfig(conformanceConfig({ http: { tokens: [{ token: TOKEN, persona: 'tester', user_id: 'u1' }] } })), { noEmbedder: true });
    face = await serveHttp(gateway, 0, '127.0.0.1');
  }, 60_000);
  afterAll(async () => {
    await face?.close();
    await gateway?.close();
  });
  const http = () => new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${face.port}/mcp`), { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } });

  it.each(['legacy', 'modern'] as const)('a %s host gets -32602 with a short message naming the param', async (era) => {
    const client = await connected(era, http());
    await expectInvalidParams(client, era);
    await client.close();
  });
});

describe('invalid params, over stdio', () => {
  it.each(['legacy', 'modern'] as const)('a %s host gets -32602 with a short message naming the param', { timeout: 90_000 }, async (era) => {
    const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, 'serve', '--config', conformanceConfig()], cwd: ROOT, stderr: 'ignore' });
    const client = await connected(era, transport);
    try {
      await expectInvalidParams(client, era);
    } finally {
      await client.close();
    }
  });
});

describe('invalidParamsMessage', () => {
  it('names at most three issues and counts the rest; a message that is no list of issues names the method only', () => {
    const issue = (key: string) => ({ code: 'invalid_type', path: ['params', key], message: 'Invalid input: expected string, received number' });
    expect(invalidParamsMessage('x/y', JSON.stringify(['a', 'b', 'c', 'd'].map(issue)))).toBe(
      'Invalid params for x/y: params.a: expected string, received number; params.b: expected string, received number; params.c: expected string, received number (and 1 more)',
    );
    expect(invalidParamsMessage('x/y', 'Something else')).toBe('Invalid params for x/y: they do not match the MCP schema of x/y');
    expect(invalidParamsMessage('x/y', JSON.stringify([{ code: 'custom', path: ['params', 'k'], message: 'z'.repeat(500) }])).length).toBeLessThan(200);
  });
});
