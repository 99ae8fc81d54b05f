/**
 * The stdio guard on its own: which lines pass to the SDK transport (as parsed messages), which get
 * an error answer (and with which id), and that line splitting holds across arbitrary
 * chunk boundaries and over the size bound.
 */
import { PassThrough } from 'node:stream';
import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { checkLine, guardedStdioTransport, idFromHead } from '../../src/gateway/stdioGuard.js';

describe('checkLine', () => {
  it('passes valid requests, notifications and responses', () => {
    expect(checkLine('{"jsonrpc":"2.0","id":1,"method":"ping"}')).toEqual({ message: { jsonrpc: '2.0', id: 1, method: 'ping' } });
    expect(checkLine('{"jsonrpc":"2.0","method":"notifications/initialized"}')).toEqual({ message: { jsonrpc: '2.0', method: 'notifications/initialized' } });
    expect(checkLine('{"jsonrpc":"2.0","id":"x","result":{}}')).toEqual({ message: { jsonrpc: '2.0', id: 'x', result: {} } });
  });

  it('rejects with the id a request carries, -32700 without id for bad JSON, and drops what has no usable id', () => {
    expect(checkLine('{"jsonrpc":"2.0","id":9,"method":"tools/list","params":null}').rejection).toMatchObject({ code: -32600, id: 9, answer: true });
    expect(checkLine('{"jsonrpc":"1.0","id":"a","method":"ping"}').rejection).toMatchObject({ code: -32600, id: 'a', answer: true });
    expect(checkLine('{"jsonrpc":"2.0","id":3}').rejection).toMatchObject({ code: -32600, id: 3, answer: true });
    expect(checkLine('{"jsonrpc":"2.0","id":1,"method":').rejection).toEqual({ code: -32700, message: 'Parse error: the line is not JSON', answer: true });
    expect(checkLine('[{"jsonrpc":"2.0","id":1,"method":"ping"}]').rejection).toMatchObject({ code: -32600, answer: true });
    expect(checkLine('{"jsonrpc":"2.0","id":null,"method":"ping"}').rejection).toMatchObject({ answer: false });
    expect(checkLine('{"jsonrpc":"2.0","method":7}').rejection).toMatchObject({ answer: false });
    expect(checkLine('{"jsonrpc":"2.0","id":4,"result":{},"error":{}}').rejection).toMatchObject({ answer: false });
  });
});

describe('idFromHead', () => {
  it('reads the request id before params, never an id inside the arguments', () => {
    expect(idFromHead('{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"aaaa')).toBe(42);
    expect(idFromHead('{"jsonrpc":"2.0","id":"r-1","method":"x"')).toBe('r-1');
    expect(idFromHead('{"jsonrpc":"2.0","method":"tools/call","params":{"arguments":{"id":5')).toBeUndefined();
  });
});

describe('guardedStdioTransport', () => {
  it('splits lines across chunks, passes the valid ones, answers the rest and one over the bound', async () => {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const transport = guardedStdioTransport({ stdin, stdout, maxLineBytes: 1024 });
    const received: JSONRPCMessage[] = [];
    transport.onmessage = (m) => void received.push(m);
    await transport.start();
    let out = '';
    stdout.on('data', (d: Buffer) => (out += d.toString()));
    const text = [
      '{"jsonrpc":"2.0","id":1,"method":"ping"}',
      `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"${'n'.repeat(3000)}"}}`,
      '{"jsonrpc":"2.0","id":3,"method":"tools/list","params":null}',
      '',
      '{"jsonrpc":"2.0","id":4,"method":"ping"}\r',
    ].join('\n') + '\n';
    // Feed in 7-byte chunks: line boundaries fall anywhere.
    for (let i = 0; i < text.length; i += 7) stdin.write(text.slice(i, i + 7));
    await new Promise((r) => setTimeout(r, 50));
    expect(received.map((m) => (m as { id: number }).id)).toEqual([1, 4]);
    const answers = out.trim().split('\n').map((l) => JSON.parse(l) as { id: number; error: { code: number; message: string } });
    expect(answers.map((a) => [a.id, a.error.code])).toEqual([[2, -32600], [3, -32600]]);
    expect(answers[0]!.error.message).toContain('over the 1024-byte bound');
  });
});
