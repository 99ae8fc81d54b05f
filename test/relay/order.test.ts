/**
 * keepArrivalOrder against the SDK's own Client: an upstream whose progress notification
 * and tools/call result arrive in one read (as one stdio chunk delivers them). The
 * transport below plays that wire; everything above it is the SDK.
 */
import { Client, LATEST_PROTOCOL_VERSION, type JSONRPCMessage, type Progress, type Transport } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { keepArrivalOrder } from '../../src/relay/order.js';

/** Answers initialize; answers tools/call with one progress notification and the result back to back. */
class BurstTransport implements Transport {
  onmessage?: Transport['onmessage'];
  onclose?: () => void;
  async start(): Promise<void> {}
  async close(): Promise<void> {
    this.onclose?.();
  }
  async send(message: JSONRPCMessage): Promise<void> {
    if (!('method' in message) || !('id' in message)) return;
    const deliver = (...messages: JSONRPCMessage[]) => queueMicrotask(() => messages.forEach((m) => this.onmessage?.(m)));
    if (message.method === 'initialize') {
      deliver({ jsonrpc: '2.0', id: message.id, result: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: { tools: {} }, serverInfo: { name: 'burst', version: '1' } } });
    } else if (message.method === 'tools/call') {
      const progressToken = (message.params?._meta as { progressToken: number }).progressToken;
      deliver(
        { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken, progress: 1, total: 1, message: 'done' } },
        { jsonrpc: '2.0', id: message.id, result: { content: [{ type: 'text', text: 'ok' }] } },
      );
    }
  }
}

async function callWithProgress(ordered: boolean): Promise<{ seen: Progress[]; errors: string[] }> {
  const client = new Client({ name: 'gateway', version: '1' });
  const errors: string[] = [];
  client.onerror = (err) => void errors.push(err.message);
  await client.connect(new BurstTransport());
  if (ordered) keepArrivalOrder(client);
  const seen: Progress[] = [];
  await client.callTool({ name: 'job', arguments: {} }, { onprogress: (p) => void seen.push(p) });
  await new Promise((r) => setImmediate(r));
  await client.close();
  return { seen, errors };
}

describe('keepArrivalOrder', () => {
  it('the SDK alone drops progress read together with the result', async () => {
    const { seen, errors } = await callWithProgress(false);
    expect(seen).toEqual([]);
    expect(errors).toEqual([expect.stringMatching(/^Received a progress notification for an unknown token/)]);
  });

  it('with it, the progress is handled before the result, as sent', async () => {
    expect(await callWithProgress(true)).toEqual({ seen: [{ progress: 1, total: 1, message: 'done' }], errors: [] });
  });
});
