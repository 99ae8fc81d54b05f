/**
 * A call parked on one replica, approved through another, runs: two `serve --http`
 * gateways on one store (SQLite file; PostgreSQL), a student's action tool call parked on
 * replica A waits (confirmation.wait_seconds), a person approves it on replica B's
 * approvals page, and A's call, still open, returns the tool's result. The audit row
 * shows both decisions, written before the call ran.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { openStore, type Store } from '../../src/store/index.js';
import { freePort, spawnUntil } from '../helpers/process.js';
import { CLI, ROOT } from '../helpers/reference.js';
import { BACKENDS, setupBackends } from '../helpers/stores.js';
import { text, universityConfig } from '../guards/university.js';

const STUDENT_TOKEN = 'student-token-0123456789abcdef';
const APPROVALS_TOKEN = 'approvals-token-0123456789abcdef';

setupBackends();

/** The id of the first pending approval, once there is one. */
async function pendingId(store: Store): Promise<string> {
  for (;;) {
    const [pending] = await store.approvals.list();
    if (pending) return pending.id;
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe.each(BACKENDS)('a call parked on replica A, approved on replica B (store on $kind)', (backend) => {
  const replicas: { child: ChildProcess; base: string }[] = [];
  const clients: Client[] = [];
  let store: Store;

  beforeAll(async () => {
    const location = await backend.fresh();
    const personas = join(mkdtempSync(join(tmpdir(), 'tc-parked-')), 'personas.yaml');
    writeFileSync(personas, JSON.stringify({ student: { identity: { student_id: '${user_id}' }, allow: ['hostel.*'], confirm: 'actions' } }));
    const { configPath, universityDb } = universityConfig({
      policy: { personas },
      upstreams: { hostel: { command: process.execPath, args: [join(ROOT, 'dist/mock-servers/hostel.js')], env: { UNIVERSITY_DB: '${TC_UNIVERSITY_DB}' } } },
      store: '${TC_STORE}',
      confirmation: { wait_seconds: { stdio: 0, http: 45 } },
      http: {
        tokens: [{ token: '${TC_STUDENT_TOKEN}', persona: 'student', user_id: 'S0001' }],
        approvals_token: '${TC_APPROVALS_TOKEN}',
      },
    });
    const env = { TC_STORE: location, TC_UNIVERSITY_DB: universityDb, TC_STUDENT_TOKEN: STUDENT_TOKEN, TC_APPROVALS_TOKEN: APPROVALS_TOKEN, TOOL_CURATOR_LOG: 'info' };
    for (let i = 0; i < 2; i++) {
      const port = await freePort();
      const { child } = await spawnUntil(process.execPath, [CLI, 'serve', '--config', configPath, '--http', String(port)], /serving MCP over Streamable HTTP/, env, 120_000);
      replicas.push({ child, base: `http://127.0.0.1:${port}` });
    }
    store = await openStore(location);
  }, 300_000);

  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
    for (const r of replicas) r.child.kill();
    await store?.close();
  });

  test('replica A runs the call as soon as replica B records the approval', async () => {
    const [a, b] = replicas;
    const client = new Client({ name: 'host-on-a', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${a!.base}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${STUDENT_TOKEN}` } } }));
    clients.push(client);
    const call = client.callTool({ name: 'raise_maintenance_request', arguments: { category: 'plumbing', description: 'parked on A, approved on B' } }, undefined, { timeout: 120_000 });

    const id = await pendingId(store);
    const approved = await fetch(`${b!.base}/approvals/${id}/approve`, { method: 'POST', headers: { authorization: `Bearer ${APPROVALS_TOKEN}` }, redirect: 'manual' });
    expect(approved.status).toBe(303);

    const result = (await call) as CallToolResult;
    expect(result.isError, text(result)).toBeFalsy();
    expect(JSON.parse(text(result))).toMatchObject({ request_id: expect.any(Number), category: 'plumbing' });
    expect(await store.approvals.get(id)).toMatchObject({ status: 'used', decidedBy: 'web' });
    const [row] = (await store.audit.tail(10)).filter((r) => r.tool === 'raise_maintenance_request');
    expect(row).toMatchObject({ decisions: ['awaiting_approval', 'approved'], decision: 'approved', outcome: 'ok', userId: 'S0001' });
  }, 180_000);
});
