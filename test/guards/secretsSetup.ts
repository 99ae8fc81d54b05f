/**
 * The setup of the secrets integration tests: the echoing fixture (fixtures/echo.ts) as
 * three upstreams — stdio with secret env values, Streamable HTTP with static credential
 * headers, Streamable HTTP behind OAuth — all spoken to in one protocol era, the built
 * gateway over stdio or HTTP, and a real SDK host of either era whose every received
 * message is recorded raw from its first.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Client, StreamableHTTPClientTransport, type ClientOptions, type Transport } from '@modelcontextprotocol/client';
import { dump as yaml } from 'js-yaml';
import { expect } from 'vitest';
import { echoHttp } from './fixtures/echo.js';
import { connectGateway, ROOT } from '../helpers/reference.js';
import { spawnUntil } from '../helpers/process.js';
import { FULL_HOST, httpGateway, record, type Host } from '../relay/harness.js';
import { startProtectedServer, type ProtectedServer } from '../upstream/authServer.js';
import { authorize } from '../upstream/authFlow.js';

export const ECHO = join(ROOT, 'dist/test/guards/fixtures/echo.js');
const HOST_TOKEN = 'host-token-5c0e9a1f7b3d2468';
export const GIVEN = {
  staticBearer: 'static-9d1c7e5a3b2f4860',
  apiKey: 'apikey-6b2f8d4e0a1c3957',
  envToken: 'env-token-3a7f1c9e5d2b8064',
  dbPassword: 'db-pass-8e4a2c6f0b1d9375',
};
export const PLAIN = 'plain-value-not-secret-42';
/** The markers each kind of held credential is replaced by. */
export const MARKERS = {
  headerAuthorization: '[secret removed: header Authorization of upstream headed]',
  headerApiKey: '[secret removed: header X-Api-Key of upstream headed]',
  envToken: '[secret removed: env ECHO_API_TOKEN of upstream envy]',
  envDb: '[secret removed: env DB_URL of upstream envy]',
  oauthAccess: '[secret removed: OAuth access token of upstream oauthed]',
};
/** What the headed upstream echoes of the request's headers, once redacted. */
export const HEADED = `authorization: Bearer ${MARKERS.headerAuthorization}\nx-api-key: ${MARKERS.headerApiKey}`;

/** The host's protocol era and the era the gateway speaks to the upstreams (`protocol` of each). */
export type HostEra = '2025' | '2026';
export type UpstreamProtocol = '2025-11-25' | '2026-07-28';

/** A 2026-07-28 host: pinned, answering `input_required` itself (the test retries). */
export const HOST_2026: Omit<ClientOptions, 'capabilities'> = { versionNegotiation: { mode: { pin: '2026-07-28' } }, inputRequired: { autoFulfill: false } };

/** Records every message the host's transport delivers, as JSON text, from the first (install before connect). */
export function recordRaw(transport: Transport): string[] {
  const raw: string[] = [];
  let deliver: Transport['onmessage'];
  const recording: Transport['onmessage'] = (message, extra) => {
    raw.push(JSON.stringify(message));
    deliver?.(message, extra);
  };
  Object.defineProperty(transport, 'onmessage', { configurable: true, get: () => deliver && recording, set: (fn: Transport['onmessage']) => void (deliver = fn) });
  return raw;
}

export interface EchoGateway {
  host: Host;
  raw: string[];
  oauth: ProtectedServer;
  /** The audit rows, as JSON text. */
  auditRows(): string;
  close(): Promise<void>;
}

/** Starts the upstreams and the gateway over `face`, and connects a host of `hostEra` to it. */
export async function startEchoGateway(face: 'stdio' | 'http', hostEra: HostEra, protocol: UpstreamProtocol): Promise<EchoGateway> {
  const oauth = await startProtectedServer({ mcp: echoHttp() });
  const { child, stderr } = await spawnUntil(process.execPath, [ECHO, '--http'], /listening on \d+/);
  const port = /listening on (\d+)/.exec(stderr())![1];
  const dir = mkdtempSync(join(tmpdir(), 'tc-secrets-'));
  const store = join(dir, 'store.db');
  const config = join(dir, 'gateway.config.yaml');
  const env = { ECHO_API_TOKEN: GIVEN.envToken, DB_URL: `postgres://svc:${GIVEN.dbPassword}@db.internal/x`, NOTE: PLAIN };
  writeFileSync(
    config,
    yaml({
      upstreams: {
        envy: { command: process.execPath, args: [ECHO], env, secret_env: ['DB_URL'], protocol },
        headed: { url: `http://127.0.0.1:${port}/mcp`, transport: 'streamable-http', headers: { Authorization: `Bearer ${GIVEN.staticBearer}`, 'X-Api-Key': GIVEN.apiKey }, protocol },
        oauthed: { url: oauth.mcpUrl, transport: 'streamable-http', auth: 'oauth', protocol },
      },
      curator: { mode: 'bm25', top_k: 30, embedder: 'none' },
      store,
      http: { tokens: [{ token: HOST_TOKEN, persona: 'p' }] },
    }),
  );
  const consent = await authorize(config, 'oauthed');
  expect(consent.code, consent.stderr).toBe(0);
  const options = hostEra === '2026' ? HOST_2026 : {};
  let raw: string[] = [];
  let host: Host;
  let stopGateway = () => {};
  if (face === 'stdio') {
    const { client } = await connectGateway(config, [], FULL_HOST, undefined, { options, beforeConnect: (t) => void (raw = recordRaw(t)) });
    host = record(client, FULL_HOST);
  } else {
    const gateway = await httpGateway(config);
    stopGateway = gateway.stop;
    const client = new Client({ name: 'host', version: '1.0.0' }, { ...options, capabilities: FULL_HOST });
    host = record(client, FULL_HOST);
    const transport = new StreamableHTTPClientTransport(new URL(gateway.base), { requestInit: { headers: { Authorization: `Bearer ${HOST_TOKEN}` } } });
    raw = recordRaw(transport);
    await client.connect(transport);
  }
  expect(host.client.getProtocolEra()).toBe(hostEra === '2026' ? 'modern' : 'legacy');
  return {
    host,
    raw,
    oauth,
    auditRows: () => {
      const db = new Database(store, { readonly: true });
      try {
        return JSON.stringify(db.prepare('SELECT * FROM audit').all());
      } finally {
        db.close();
      }
    },
    close: async () => {
      await host.close().catch(() => undefined);
      stopGateway();
      child.kill();
      await oauth.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Every credential the gateway holds in this setup: the configured ones and every one the OAuth server handed out. */
export const heldBy = (g: EchoGateway) => [...Object.values(GIVEN), ...g.oauth.provider.secrets];
