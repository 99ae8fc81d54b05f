/**
 * The relay's integration harness: a gateway config over the fixture upstream (stdio or
 * Streamable HTTP), the built gateway started over stdio or HTTP, and hosts — real SDK
 * Clients — that record everything the gateway sends them (sampling and elicitation
 * requests, log messages, elicitation/complete) and answer with fixed replies.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  Client,
  StreamableHTTPClientTransport,
  type CallToolResult,
  type ClientCapabilities,
  type CreateMessageRequest,
  type ElicitRequest,
  type ElicitResult,
  type LoggingMessageNotification,
} from '@modelcontextprotocol/client';
import { dump } from 'js-yaml';
import { CLI, ROOT, connectGateway } from '../helpers/reference.js';
import { freePort, spawnUntil } from '../helpers/process.js';

export const FIXTURE = join(ROOT, 'dist/test/relay/fixtures/upstream.js');
/** Every capability a host can offer the relay. */
export const FULL_HOST: ClientCapabilities = { sampling: {}, elicitation: { form: {}, url: {} }, roots: { listChanged: true } };
export const ROOTS = [{ uri: 'file:///home/ada/project', name: 'project' }];

/** Short enough that the progress test runs past it, long enough for a relayed round trip on a loaded machine. */
export const CALL_MS = 2500;

/** Writes a gateway config over the fixture upstream; `upstream` is its stdio or HTTP entry. */
export function relayConfig(upstream: Record<string, unknown>, extra: Record<string, unknown> = {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'tc-relay-'));
  const config = {
    upstreams: { fixture: upstream },
    curator: { mode: 'bm25', top_k: 12, embedder: 'none' },
    store: join(dir, 'store.db'),
    exposure: { pinned: ['rich'] },
    timeouts: { call_ms: CALL_MS, call_max_ms: 60_000 },
    ...extra,
  };
  const path = join(dir, 'gateway.config.yaml');
  writeFileSync(path, dump(config));
  return path;
}

export const stdioUpstream = () => ({ command: process.execPath, args: [FIXTURE] });

/** Starts the fixture upstream over Streamable HTTP on a free port. */
export async function httpUpstream(): Promise<{ entry: Record<string, unknown>; stop: () => void }> {
  const { child, stderr } = await spawnUntil(process.execPath, [FIXTURE, '--http'], /listening on \d+/);
  const port = /listening on (\d+)/.exec(stderr())![1];
  return { entry: { url: `http://127.0.0.1:${port}/mcp`, transport: 'streamable-http' }, stop: () => void child.kill() };
}

/** What a host received from the gateway. */
export interface Received {
  sampling: CreateMessageRequest['params'][];
  elicitations: ElicitRequest['params'][];
  logs: LoggingMessageNotification['params'][];
  completed: string[];
}

export interface Host {
  client: Client;
  received: Received;
  /** The reply to the next form elicitation; default: accept with name Ada. */
  answerForm: (params: ElicitRequest['params']) => Promise<ElicitResult>;
  close(): Promise<void>;
}

/** Records what the gateway sends `client` and answers sampling, elicitation and roots/list. */
export function record(client: Client, capabilities: ClientCapabilities): Host {
  const received: Received = { sampling: [], elicitations: [], logs: [], completed: [] };
  const host: Host = { client, received, answerForm: async () => ({ action: 'accept', content: { name: 'Ada' } }), close: () => client.close() };
  if (capabilities.sampling) {
    client.setRequestHandler('sampling/createMessage', async (req) => {
      received.sampling.push(req.params);
      const prompt = req.params.messages[0]!.content as { text: string };
      return { model: 'test-model', role: 'assistant', content: { type: 'text', text: `echo: ${prompt.text}` }, stopReason: 'endTurn' };
    });
  }
  if (capabilities.elicitation) {
    client.setRequestHandler('elicitation/create', async (req) => {
      received.elicitations.push(req.params);
      return req.params.mode === 'url' ? { action: 'accept' } : host.answerForm(req.params);
    });
    client.setNotificationHandler('notifications/elicitation/complete', (n) => void received.completed.push(n.params.elicitationId));
  }
  if (capabilities.roots) client.setRequestHandler('roots/list', async () => ({ roots: ROOTS }));
  client.setNotificationHandler('notifications/message', (n) => void received.logs.push(n.params));
  return host;
}

/** A host over stdio: its own gateway process (stdio serves one session). */
export async function stdioHost(configPath: string, capabilities: ClientCapabilities = FULL_HOST): Promise<Host> {
  const { client } = await connectGateway(configPath, [], capabilities);
  return record(client, capabilities);
}

/** One gateway over HTTP, serving any number of hosts with `TOKENS`. */
export const TOKENS = ['relay-token-a-0123456789abcdef', 'relay-token-b-0123456789abcdef', 'relay-token-c-0123456789abcdef'];

export async function httpGateway(configPath: string): Promise<{ base: string; stop: () => void }> {
  const port = await freePort();
  const { child } = await spawnUntil(process.execPath, [CLI, 'serve', '--config', configPath, '--http', String(port)], /serving MCP over Streamable HTTP/, { TOOL_CURATOR_LOG: 'info' });
  return { base: `http://127.0.0.1:${port}/mcp`, stop: () => void child.kill() };
}

export const httpTokens = { http: { tokens: TOKENS.map((token, i) => ({ token, persona: `host${i}` })) } };

export async function httpHost(base: string, token: string, capabilities: ClientCapabilities = FULL_HOST): Promise<Host> {
  const client = new Client({ name: 'relay-host', version: '1.0.0' }, { capabilities });
  const host = record(client, capabilities);
  await client.connect(new StreamableHTTPClientTransport(new URL(base), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
  return host;
}

export const text = (r: unknown) => ((r as CallToolResult).content[0] as { text: string }).text;
export const json = (r: unknown) => JSON.parse(text(r)) as Record<string, unknown>;

/** What the upstream saw, asked through the gateway. */
export async function observations(host: Host): Promise<string[]> {
  return JSON.parse(text(await host.client.callTool({ name: 'observations', arguments: {} }))) as string[];
}
