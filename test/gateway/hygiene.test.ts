/**
 * Protocol hygiene of the built gateway, from the host's side, against two university
 * servers: over stdio an oversized line, a malformed request with an id, a batch and a
 * line that is not JSON each get a JSON-RPC error and the gateway keeps serving; over
 * HTTP two concurrent POSTs with the same id in one session each get their own answer.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { dump } from 'js-yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { universityConfig } from '../guards/university.js';
import { RawHttp, RawStdio, startHttpGateway, type Message } from '../helpers/raw.js';
import { ROOT } from '../helpers/reference.js';

const TOKEN = 'hygiene-test-token-0123456789';

function config(): string {
  const uni = universityConfig({
    curator: { mode: 'bm25', top_k: 5, embedder: 'none' },
    http: { tokens: [{ token: TOKEN, persona: 'student', user_id: 'S0001' }] },
    timeouts: { startup_ms: 120_000, list_wait_ms: 120_000 },
    policy: { personas: join(ROOT, 'personas.yaml') },
  });
  return uni.configPath;
}

describe('stdio hygiene', () => {
  let g: RawStdio;
  beforeAll(async () => {
    g = new RawStdio(config());
    await g.initialize();
  }, 120_000);
  afterAll(() => g?.child.kill('SIGTERM'));

  it('answers a 10 MiB line with -32600 naming the bound, and keeps serving', async () => {
    await g.send(`{"jsonrpc":"2.0","id":"big","method":"tools/call","params":{"name":"${'a'.repeat(10 * 1024 * 1024)}"}}`);
    const answer = await g.next((m) => m.id === 'big', 60_000);
    expect(answer.error?.code).toBe(-32600);
    expect(answer.error?.message).toMatch(/over the 4194304-byte bound/);
    expect(g.child.exitCode).toBeNull();
    expect((await g.request('after-big', 'ping', {}, 60_000)).result).toEqual({});
  }, 120_000);

  it('answers a malformed request that carries an id with -32600 and that id', async () => {
    const answer = await g.request(41, 'tools/list', null, 60_000);
    expect(answer.error?.code).toBe(-32600);
  }, 60_000);

  it('answers a batch array and a line that is not JSON with errors', async () => {
    await g.send([{ jsonrpc: '2.0', id: 'b1', method: 'ping' }, { jsonrpc: '2.0', id: 'b2', method: 'ping' }]);
    await g.send('{"jsonrpc": "2.0", "id": 7, "method": ');
    const batch = await g.next((m) => m.error?.message.includes('batches') === true, 60_000);
    expect(batch.error!.code).toBe(-32600);
    const parse = await g.next((m) => m.error?.code === -32700, 60_000);
    expect(parse.id).toBeUndefined();
    expect((await g.request('still-here', 'ping', {}, 60_000)).result).toEqual({});
  }, 60_000);
});

describe('HTTP: concurrent POSTs with the same id in one session', () => {
  let http: Awaited<ReturnType<typeof startHttpGateway>>;
  beforeAll(async () => {
    // A real upstream whose tool takes a while, so that the two requests overlap.
    const uni = universityConfig();
    const script = join(uni.dir, 'slow.mjs');
    writeFileSync(script, `
      const { McpServer } = await import(${JSON.stringify(join(ROOT, 'node_modules/@modelcontextprotocol/server/dist/index.mjs'))});
      const { StdioServerTransport } = await import(${JSON.stringify(join(ROOT, 'node_modules/@modelcontextprotocol/server/dist/stdio.mjs'))});
      const { z } = await import(${JSON.stringify(join(ROOT, 'node_modules/zod/index.js'))});
      const server = new McpServer({ name: 'slow', version: '1' });
      server.registerTool('slow_echo', { description: 'echoes after a second', inputSchema: z.object({ text: z.string() }), annotations: { readOnlyHint: true } },
        async ({ text }) => { await new Promise((r) => setTimeout(r, 1000)); return { content: [{ type: 'text', text }] }; });
      await server.connect(new StdioServerTransport());`);
    const configPath = join(uni.dir, 'slow.config.yaml');
    writeFileSync(configPath, dump({
      upstreams: { slow: { command: process.execPath, args: [script] } },
      curator: { mode: 'bm25', embedder: 'none' },
      store: join(uni.dir, 'slow.db'),
      timeouts: { startup_ms: 120_000, list_wait_ms: 120_000 },
      http: { tokens: [{ token: TOKEN, persona: 'tester' }] },
    }));
    http = await startHttpGateway(configPath);
  }, 180_000);
  afterAll(() => http?.child.kill('SIGTERM'));

  it('each of two concurrent same-id requests gets its own answer, five times over', async () => {
    const session = new RawHttp(http.url, TOKEN);
    await session.initialize();
    const call = (text: string) => ({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'slow_echo', arguments: { text } } });
    const echoed = (ms: Message[]) => (ms.find((m) => m.id === 7)?.result as { content: { text: string }[] } | undefined)?.content[0]?.text;
    for (let round = 0; round < 5; round++) {
      const [a, b] = await Promise.all([
        session.post(call(`a${round}`), AbortSignal.timeout(60_000)),
        session.post(call(`b${round}`), AbortSignal.timeout(60_000)),
      ]);
      expect([a.status, b.status]).toEqual([200, 200]);
      expect([echoed(a.messages), echoed(b.messages)]).toEqual([`a${round}`, `b${round}`]);
    }
  }, 180_000);
});
