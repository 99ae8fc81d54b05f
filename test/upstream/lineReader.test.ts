/**
 * The bounded read side of upstream connections, without a transport: the stdio line
 * reader (lineReader.ts) and the SSE/JSON bound of remote upstreams (boundedFetch.ts),
 * fed byte streams cut at awkward places.
 */
import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { boundedFetch } from '../../src/upstream/boundedFetch.js';
import { BoundedLineReader, describeLine, type OversizedLine } from '../../src/upstream/lineReader.js';
import { MessageTooLargeError, tooLargeResponse } from '../../src/upstream/limits.js';

const line = (m: unknown) => `${JSON.stringify(m)}\n`;

/** Feeds `text` in pieces of `step` bytes; returns what was read and what was skipped. */
function feed(max: number, text: string, step: number) {
  const skipped: OversizedLine[] = [];
  const reader = new BoundedLineReader(max, (l) => {
    skipped.push(l);
    return l.id === undefined ? undefined : tooLargeResponse(l.id, l.bytes, max);
  });
  const read: JSONRPCMessage[] = [];
  const bytes = Buffer.from(text);
  for (let i = 0; i < bytes.length; i += step) {
    reader.append(bytes.subarray(i, i + step));
    for (let m = reader.readMessage(); m; m = reader.readMessage()) read.push(m);
  }
  return { read, skipped };
}

describe('BoundedLineReader', () => {
  it('reads lines split anywhere; skips the one over the limit and answers its request instead; the rest go on', () => {
    const before = { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'before' } };
    const big = { result: { content: [{ type: 'text', text: 'x'.repeat(5000) }] }, jsonrpc: '2.0', id: 7 };
    const after = { result: { content: [] }, jsonrpc: '2.0', id: 8 };
    for (const step of [1, 3, 64, 100_000]) {
      const { read, skipped } = feed(1000, line(before) + line(big) + line(after), step);
      expect(skipped).toEqual([{ bytes: JSON.stringify(big).length, kind: 'response', id: 7 }]);
      expect(read).toEqual([before, tooLargeResponse(7, JSON.stringify(big).length, 1000), after]);
    }
  });

  it('tells what a skipped line was from its two ends, whatever the key order', () => {
    const pad = 'y'.repeat(2000);
    const ends = (m: unknown) => {
      const t = JSON.stringify(m);
      return describeLine(t.slice(0, 512), t.slice(-512), t.length);
    };
    // TypeScript SDK order (id last), other SDKs (id first), string ids, requests, notifications.
    expect(ends({ result: { pad }, jsonrpc: '2.0', id: 3 })).toMatchObject({ kind: 'response', id: 3 });
    expect(ends({ jsonrpc: '2.0', id: 'a"b', result: { pad } })).toMatchObject({ kind: 'response', id: 'a"b' });
    expect(ends({ jsonrpc: '2.0', id: 4, error: { code: 1, message: pad } })).toMatchObject({ kind: 'response', id: 4 });
    expect(ends({ method: 'sampling/createMessage', params: { pad }, jsonrpc: '2.0', id: 0 })).toMatchObject({ kind: 'request', id: 0 });
    expect(ends({ method: 'notifications/message', params: { pad }, jsonrpc: '2.0' })).toEqual({ kind: 'notification', bytes: expect.any(Number) });
    // An "id" inside the result is not the message's id.
    expect(ends({ result: { items: [{ id: 99 }], pad }, jsonrpc: '2.0', id: 5 })).toMatchObject({ id: 5 });
  });
});

/** A fetch whose answer is `body` as `type`, in chunks of `step` bytes. */
function answering(type: string, body: string, step: number, headers: Record<string, string> = {}) {
  return async () => {
    const bytes = Buffer.from(body);
    const stream = new ReadableStream<Uint8Array>({
      start(c) {
        for (let i = 0; i < bytes.length; i += step) c.enqueue(new Uint8Array(bytes.subarray(i, i + step)));
        c.close();
      },
    });
    return new Response(stream, { status: 200, headers: { 'content-type': type, 'mcp-session-id': 's1', ...headers } });
  };
}
const request = (id: number) => ({ method: 'POST', body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'big' } }) });

describe('boundedFetch', () => {
  it('SSE: events pass whole; one over the limit becomes an error answer to the POST\'s request; LF and CRLF; any chunking', async () => {
    const small = { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 1 } };
    const big = { result: { content: [{ type: 'text', text: 'x'.repeat(3000) }] }, jsonrpc: '2.0', id: 9 };
    for (const eol of ['\n', '\r\n']) {
      const sse = `event: message${eol}data: ${JSON.stringify(small)}${eol}${eol}event: message${eol}data: ${JSON.stringify(big)}${eol}${eol}`;
      for (const step of [1, 7, 4096]) {
        const res = await boundedFetch('u', 1000, answering('text/event-stream', sse, step))('http://x/mcp', request(9));
        expect(res.headers.get('mcp-session-id')).toBe('s1');
        const events = (await res.text()).split(/\r?\n\r?\n/).filter(Boolean).map((e) => JSON.parse(/data: (.*)/.exec(e)![1]!));
        const bigEvent = `event: message${eol}data: ${JSON.stringify(big)}${eol}${eol}`;
        expect(events).toEqual([small, tooLargeResponse(9, Buffer.byteLength(bigEvent), 1000)]);
      }
    }
  });

  it('SSE without a POST (standalone or legacy stream): an oversized answer is answered under its own id; an oversized request of the upstream is dropped', async () => {
    const answer = { result: { content: [{ type: 'text', text: 'x'.repeat(3000) }] }, jsonrpc: '2.0', id: 12 };
    const ask = { method: 'sampling/createMessage', params: { pad: 'y'.repeat(3000) }, jsonrpc: '2.0', id: 0 };
    const ok = { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'still here' } };
    const sse = [answer, ask, ok].map((m) => `event: message\ndata: ${JSON.stringify(m)}\n\n`).join('');
    const res = await boundedFetch('u', 1000, answering('text/event-stream', sse, 256))('http://x/mcp', { method: 'GET' });
    const events = (await res.text()).split('\n\n').filter(Boolean).map((e) => JSON.parse(/data: (.*)/.exec(e)![1]!));
    expect(events).toEqual([tooLargeResponse(12, Buffer.byteLength(`event: message\ndata: ${JSON.stringify(answer)}\n\n`), 1000), ok]);
  });

  it('JSON: an answer over the limit fails its request with MessageTooLargeError, from Content-Length or as it streams; a small one passes', async () => {
    const big = JSON.stringify({ result: { text: 'x'.repeat(3000) }, jsonrpc: '2.0', id: 1 });
    await expect(boundedFetch('u', 1000, answering('application/json', big, 100, { 'content-length': String(big.length) }))('http://x/mcp', request(1))).rejects.toEqual(new MessageTooLargeError(big.length, 1000));
    await expect(boundedFetch('u', 1000, answering('application/json', big, 100))('http://x/mcp', request(1))).rejects.toBeInstanceOf(MessageTooLargeError);
    const small = JSON.stringify({ result: {}, jsonrpc: '2.0', id: 2 });
    expect(await (await boundedFetch('u', 1000, answering('application/json', small, 5))('http://x/mcp', request(2))).json()).toEqual(JSON.parse(small));
  });
});
