import type { Transport } from '@modelcontextprotocol/server';
import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import { describe, expect, test } from 'vitest';
import { HeldSecrets } from '../../../src/guards/secrets/held.js';
import { SecretRedactor } from '../../../src/guards/secrets/redactor.js';
import { redactingTransport } from '../../../src/guards/secrets/transport.js';

const TOKEN = 'at-9f2e7c1d0b3a5e8f';
const M = '[secret removed: OAuth access token of upstream t]';

function sink(): Transport & { sent: JSONRPCMessage[] } {
  const sent: JSONRPCMessage[] = [];
  return { sent, start: async () => {}, close: async () => {}, send: async (m) => void sent.push(m) };
}

describe('redactingTransport', () => {
  test('results, errors, notifications and requests to the host are redacted; jsonrpc, id and method are kept', async () => {
    const held = new HeldSecrets();
    held.set('s', [{ value: TOKEN, label: 'OAuth access token of upstream t' }]);
    const t = redactingTransport(sink(), new SecretRedactor(held, 'redact'));
    await t.send({ jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: `Bearer ${TOKEN}` }] } });
    await t.send({ jsonrpc: '2.0', id: 2, error: { code: -32000, message: `rejected ${TOKEN}` } });
    await t.send({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: { echoed: TOKEN } } });
    await t.send({ jsonrpc: '2.0', id: 3, method: 'elicitation/create', params: { message: `[u asks] paste ${TOKEN}`, requestedSchema: { type: 'object', properties: {} } } });
    expect(t.sent).toEqual([
      { jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: `Bearer ${M}` }] } },
      { jsonrpc: '2.0', id: 2, error: { code: -32000, message: `rejected ${M}` } },
      { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: { echoed: M } } },
      { jsonrpc: '2.0', id: 3, method: 'elicitation/create', params: { message: `[u asks] paste ${M}`, requestedSchema: { type: 'object', properties: {} } } },
    ]);
  });

  test('while a rotated token is being read, messages wait for it and leave in order', async () => {
    const held = new HeldSecrets();
    const t = redactingTransport(sink(), new SecretRedactor(held, 'off'));
    let finish!: () => void;
    held.track(new Promise<void>((resolve) => (finish = resolve)).then(() => held.set('s', [{ value: TOKEN, label: 'OAuth access token of upstream t' }])));
    const first = t.send({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 1, message: TOKEN } });
    const second = t.send({ jsonrpc: '2.0', id: 9, result: { content: [{ type: 'text', text: TOKEN }] } });
    expect(t.sent).toEqual([]);
    finish();
    await Promise.all([first, second]);
    expect(t.sent).toEqual([
      { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 1, message: M } },
      { jsonrpc: '2.0', id: 9, result: { content: [{ type: 'text', text: M }] } },
    ]);
  });

  test('an answer too large to check becomes an error answer; nothing of it is sent', async () => {
    const held = new HeldSecrets();
    held.set('s', [{ value: TOKEN, label: 'x' }]);
    const t = redactingTransport(sink(), new SecretRedactor(held, 'off', { maxChars: 100, maxNodes: 1000, maxDepth: 10 }));
    await t.send({ jsonrpc: '2.0', id: 4, result: { content: [{ type: 'text', text: `${'a'.repeat(200)}${TOKEN}` }] } });
    await t.send({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'b'.repeat(200) } });
    expect(t.sent).toEqual([{ jsonrpc: '2.0', id: 4, error: { code: -32603, message: 'tool-curator: the answer is too large to check for secrets (over 100 characters); ask for less' } }]);
  });
});
