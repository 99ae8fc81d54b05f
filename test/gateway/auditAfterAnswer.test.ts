/**
 * When a tools/call's audit row is written, seen from the store file at the moment the
 * gateway hands the host its answer (the in-process gateway, a real stdio upstream, the
 * SDK's Client over the SDK's in-memory transport; the row read through a second SQLite
 * connection, as `tool-curator audit` would): a forwarded call's row is committed
 * `running` before the upstream runs and completed only after the answer went out; a call
 * refused before any upstream has its one finished row before the answer.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, InMemoryTransport, type CallToolResult, type JSONRPCMessage } from '@modelcontextprotocol/client';
import Database from 'better-sqlite3';
import { dump } from 'js-yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { Gateway } from '../../src/gateway/gateway.js';
import { Session } from '../../src/gateway/session.js';
import { until } from '../helpers/reference.js';

const BULKY = join(import.meta.dirname, '../upstream/fixtures/bulky.mjs');

interface Row {
  tool: string;
  outcome: string;
  decision: string;
  upstream_ms: number | null;
}

describe('the audit row of a tools/call, as the answer goes out', () => {
  let gateway: Gateway;
  let host: Client;
  let reader: Database.Database;
  /** The audit rows as stored when each answer to a tools/call was handed to the transport. */
  const atAnswer: Row[][] = [];
  const rows = () => reader.prepare<[], Row>('SELECT tool, outcome, decision, upstream_ms FROM audit ORDER BY id').all();

  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tc-audit-answer-'));
    writeFileSync(join(dir, 'personas.yaml'), dump({ reader: { allow: ['echo'], confirm: 'none' } }));
    const config = {
      upstreams: { bulky: { command: process.execPath, args: [BULKY] } },
      curator: { mode: 'bm25', embedder: 'none' },
      store: join(dir, 'store.db'),
      policy: { personas: join(dir, 'personas.yaml') },
      session: { persona: 'reader' },
    };
    writeFileSync(join(dir, 'gateway.config.yaml'), dump(config));
    gateway = await Gateway.start(loadConfig(join(dir, 'gateway.config.yaml')), { noEmbedder: true });
    reader = new Database(join(dir, 'store.db'), { readonly: true });
    const session = new Session(gateway, { persona: 'reader' });
    const [server, client] = InMemoryTransport.createLinkedPair();
    const send = server.send.bind(server);
    server.send = (message: JSONRPCMessage, options) => {
      if ('result' in message && 'content' in message.result) atAnswer.push(rows());
      return send(message, options);
    };
    await session.server.connect(server);
    host = new Client({ name: 'host', version: '1' });
    await host.connect(client);
  }, 120_000);

  afterAll(async () => {
    await host?.close();
    reader?.close();
    await gateway?.close();
  });

  const call = async (name: string, args: Record<string, unknown>) => (await host.callTool({ name, arguments: args }, { timeout: 120_000 })) as CallToolResult;

  it('a forwarded call: running when the answer is sent, completed after it', async () => {
    const result = await call('echo', { text: 'hello' });
    expect(result.content).toEqual([{ type: 'text', text: 'hello' }]);
    expect(atAnswer.at(-1)).toEqual([{ tool: 'echo', outcome: 'running', decision: 'allowed', upstream_ms: null }]);
    // Written by itself once the answer is out (the read here flushes nothing).
    await until(() => rows()[0]!.outcome !== 'running', 'the row completed');
    const [row] = rows();
    expect(row).toMatchObject({ tool: 'echo', outcome: 'ok', decision: 'allowed' });
    expect(row!.upstream_ms).toBeGreaterThanOrEqual(0);
  });

  it('a call refused before any upstream: its one row is there when the answer is sent', async () => {
    const result = await call('stats', {});
    expect(result.isError).toBe(true);
    expect(atAnswer.at(-1)!.at(-1)).toEqual({ tool: 'stats', outcome: 'not_run', decision: 'refused', upstream_ms: null });
  });
});
