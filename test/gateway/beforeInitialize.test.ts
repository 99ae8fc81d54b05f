/**
 * The MCP lifecycle over stdio: before the host's `notifications/initialized` the gateway
 * writes nothing to stdout but answers, even when its catalog changes meanwhile (an edit
 * of gateway.config.yaml's `overrides`, live-reloaded). Once initialized, the same kind of
 * change reaches the host as `notifications/tools/list_changed`. The built CLI over a
 * real pipe; the host is the SDK's Client over a transport that reads the child's stdout
 * from its first byte.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import { Client, ReadBuffer, serializeMessage, type JSONRPCMessage, type Transport } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { universityConfig } from '../guards/university.js';
import { CLI, GATEWAY_READY, logLine } from '../helpers/reference.js';

/** The SDK's stdio framing over a running child's pipes; every message read is also kept, in order. */
class ChildTransport implements Transport {
  onmessage?: Transport['onmessage'];
  onclose?: () => void;
  onerror?: (err: Error) => void;
  readonly received: JSONRPCMessage[] = [];
  private readonly buffer = new ReadBuffer();
  constructor(private readonly child: ChildProcess) {}
  async start(): Promise<void> {
    this.child.stdout!.on('data', (chunk: Buffer) => {
      this.buffer.append(chunk);
      for (let m = this.buffer.readMessage(); m; m = this.buffer.readMessage()) {
        this.received.push(m);
        this.onmessage?.(m);
      }
    });
  }
  async send(message: JSONRPCMessage): Promise<void> {
    this.child.stdin!.write(serializeMessage(message));
  }
  async close(): Promise<void> {
    this.child.stdin!.end();
    this.onclose?.();
  }
}

let child: ChildProcess | undefined;
afterEach(() => {
  child?.kill();
  child = undefined;
});

describe('stdio before initialize', () => {
  it('a catalog change before the host initializes writes nothing; after it, the host gets list_changed', async () => {
    const { configPath } = universityConfig();
    child = spawn(process.execPath, [CLI, 'serve', '--config', configPath, '--log-format', 'json'], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    // stdout is left unread: whatever the gateway writes stays in the pipe for the transport.
    await logLine(() => stderr, GATEWAY_READY, 0, 180_000);
    await logLine(() => stderr, /"msg":"catalog indexed"/, 0, 180_000);

    let mark = stderr.length;
    appendFileSync(configPath, 'overrides:\n  finance.get_fee_dues:\n    name: fees_owed\n');
    // The sessions were told of the new catalog (a synchronous pipe write) before this line.
    await logLine(() => stderr, /"msg":"configuration reloaded: overrides in force"/, mark, 120_000);

    const transport = new ChildTransport(child);
    const client = new Client({ name: 'host', version: '1' });
    const changed: string[] = [];
    client.setNotificationHandler('notifications/tools/list_changed', (n) => void changed.push(n.method));
    await client.connect(transport);
    expect(transport.received[0]).toMatchObject({ jsonrpc: '2.0', id: 0, result: { serverInfo: { name: 'tool-curator' } } });
    expect(transport.received).toHaveLength(1);
    expect(changed).toEqual([]);

    const before = (await client.listTools()).tools.map((t) => t.name);
    expect(before).toEqual(['find_tools', 'call_tool']);
    const found = await client.callTool({ name: 'find_tools', arguments: { query: 'how much do I still owe in fees' } });
    expect(JSON.stringify(found.content)).toContain('fees_owed');
    // Discovery itself changes the session's list; one more answer flushes that notice.
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('fees_owed');
    changed.length = 0;

    mark = stderr.length;
    appendFileSync(configPath, '  finance.get_fee_structure:\n    name: fee_structure\n');
    await logLine(() => stderr, /"msg":"configuration reloaded: overrides in force"/, mark, 120_000);
    for (const end = Date.now() + 60_000; changed.length === 0 && Date.now() < end; ) await new Promise((r) => setTimeout(r, 50));
    expect(changed).toContain('notifications/tools/list_changed');
    await client.close();
  }, 300_000);
});
