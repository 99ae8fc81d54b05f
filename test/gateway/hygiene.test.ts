/**
 * Protocol hygiene of the built gateway, from the host's side, against two university
 * servers: over stdio an oversized line, a malformed request with an id, a batch and a
 * line that is not JSON each get a JSON-RPC error and the gateway keeps serving; over
 * HTTP two concurrent POSTs with the same id in one session each get their own answer.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { universityConfig } from '../guards/university.js';
import { RawHttp, RawStdio, startHttpGateway, type Message } from '../helpers/raw.js';
import { ROOT } from '../helpers/reference.js';

const TOKEN = 'hygiene-test-token-0123456789';

function config(): string {
  const uni = universityConfig({
    curator: { mode: 'bm25', top_k: 5, embedder: 'none' },
    http: { tokens: [{ token: TOKEN, persona: 'student', user_id: 'S0001' }] },
    timeouts: { startup_ms: 120_000 },
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
    http = await startHttpGateway(config());
  }, 180_000);
  afterAll(() => http?.child.kill('SIGTERM'));

  it('each of two concurrent same-id requests gets its own answer, five times over', async () => {
    const session = new RawHttp(http.url, TOKEN);
    await session.initialize();
    const find = (query: string) => ({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'find_tools', arguments: { query } } });
    const names = (ms: Message[]) => {
      const answer = ms.find((m) => m.id === 7);
      const text = (answer?.result as { content: { text: string }[] } | undefined)?.content[0]?.text;
      return text ? (JSON.parse(text) as { tools: { name: string }[] }).tools.map((t) => t.name) : [];
    };
    for (let round = 0; round < 5; round++) {
      const [fees, exams] = await Promise.all([
        session.post(find('pay my outstanding fee dues'), AbortSignal.timeout(60_000)),
        session.post(find('am I eligible to sit the exam hall ticket'), AbortSignal.timeout(60_000)),
      ]);
      expect(fees.status).toBe(200);
      expect(exams.status).toBe(200);
      expect(names(fees.messages)).toContain('get_fee_dues');
      expect(names(exams.messages)).toContain('get_exam_eligibility');
    }
  }, 180_000);
});
