/**
 * The openai provider against a real HTTP server on 127.0.0.1: request shape, batching,
 * order by `index`, normalization, retries on 503, no retry on 400, timeouts, and the
 * count and width checks.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { createOpenAIEmbedder } from '../../src/embedding/openai.js';
import { dot } from './helpers.js';

interface Seen {
  auth?: string;
  body: { model: string; input: string[]; dimensions?: number };
}
type Handler = (req: Seen, res: http.ServerResponse) => void;

/** Raw (unnormalized) vector the fake server returns for a text. */
const raw = (t: string) => [t.length, t.charCodeAt(0) % 7, 3];

/** Answers like OpenAI, items in reverse order (clients must sort by `index`). */
const ok: Handler = (req, res) => {
  const data = req.body.input.map((t, index) => ({ object: 'embedding', index, embedding: raw(t) })).reverse();
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'list', data }));
};

let server: http.Server;
let baseUrl: string;
let handler: Handler;
let seen: Seen[];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let text = '';
    req.on('data', (c: Buffer) => (text += c));
    req.on('end', () => {
      const s: Seen = { auth: req.headers.authorization, body: JSON.parse(text) as Seen['body'] };
      seen.push(s);
      if (req.url !== '/v1/embeddings') res.writeHead(404).end();
      else handler(s, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});
beforeEach(() => {
  handler = ok;
  seen = [];
});

describe('openai provider', () => {
  test('batches, sends model/dimensions/key, orders by index, normalizes', async () => {
    const e = await createOpenAIEmbedder({ baseUrl, model: 'fake-embed', apiKey: 'sk-test', dimensions: 3, batchSize: 3 });
    expect(e.id).toBe('openai:fake-embed:3');
    expect(e.dim).toBe(3);
    const texts = ['a', 'bb', 'ccc', 'dddd', 'eeeee', 'ffffff', 'g'];
    const vectors = await e.embedDocuments(texts);
    // probe + ceil(7 / 3) batches
    expect(seen.map((s) => s.body.input.length)).toEqual([1, 3, 3, 1]);
    expect(seen.every((s) => s.auth === 'Bearer sk-test' && s.body.model === 'fake-embed' && s.body.dimensions === 3)).toBe(true);
    texts.forEach((t, i) => {
      const r = raw(t);
      const n = Math.hypot(...r);
      expect(Array.from(vectors[i]!)).toEqual(r.map((x) => Math.fround(x / n)));
      expect(dot(vectors[i]!, vectors[i]!)).toBeCloseTo(1, 6);
    });
    expect(Array.from(await e.embedQuery('bb'))).toEqual(Array.from(vectors[1]!));
  });

  test('a 503 is retried, a 400 is not and its message reaches the caller', async () => {
    const e = await createOpenAIEmbedder({ baseUrl, model: 'fake-embed', retries: 2 });
    expect(e.id).toBe('openai:fake-embed');
    seen = [];
    let calls = 0;
    handler = (req, res) => (calls++ === 0 ? res.writeHead(503).end('overloaded') : ok(req, res));
    expect(await e.embedDocuments(['x'])).toHaveLength(1);
    expect(seen).toHaveLength(2);

    seen = [];
    handler = (_req, res) => res.writeHead(400, { 'content-type': 'application/json' })
      .end('{"error":{"message":"input must not be empty"}}');
    await expect(e.embedDocuments([''])).rejects.toThrow(/HTTP 400 .*input must not be empty/);
    expect(seen).toHaveLength(1);
  });

  test('a server that never answers times out after the retries', async () => {
    handler = () => undefined;
    const started = performance.now();
    await expect(createOpenAIEmbedder({ baseUrl, model: 'fake-embed', timeoutMs: 200, retries: 1 }))
      .rejects.toThrow(/no answer within 200 ms/);
    expect(seen).toHaveLength(2);
    // At least 2 × 200 ms timeouts + one 500 ms backoff (a lower bound holds under load; no upper bound).
    expect(performance.now() - started).toBeGreaterThan(850);
  });

  test('wrong vector count or width is rejected', async () => {
    const e = await createOpenAIEmbedder({ baseUrl, model: 'fake-embed' });
    handler = (req, res) => res.writeHead(200).end(JSON.stringify({ data: [{ index: 0, embedding: [1, 2, 3] }] }));
    await expect(e.embedDocuments(['a', 'b'])).rejects.toThrow('returned 1 vectors for 2 inputs');
    handler = (req, res) => res.writeHead(200).end(JSON.stringify({
      data: req.body.input.map((_, index) => ({ index, embedding: index === 1 ? [1, 2] : [1, 2, 3] })),
    }));
    await expect(e.embedDocuments(['a', 'b'])).rejects.toThrow('vector of length 2 at position 1, expected 3');
    handler = (req, res) => res.writeHead(200).end(JSON.stringify({
      data: req.body.input.map((_, index) => ({ index, embedding: [1, 2, 3, 4] })),
    }));
    await expect(e.embedDocuments(['a'])).rejects.toThrow('vector of length 4 at position 0, expected 3');
  });

  test('an unreachable endpoint fails with the network reason', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    await expect(createOpenAIEmbedder({ baseUrl: `http://127.0.0.1:${port}/v1`, model: 'm', retries: 0 }))
      .rejects.toThrow(new RegExp(`POST http://127.0.0.1:${port}/v1/embeddings: fetch failed \\(.*ECONNREFUSED`));
  });
});
