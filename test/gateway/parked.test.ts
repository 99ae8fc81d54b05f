/**
 * A call parked on one replica, approved through another, runs: two `serve --http`
 * gateways on one store (SQLite file; PostgreSQL), a student's action tool call parked on
 * replica A waits (confirmation.wait_seconds), a person approves it on replica B's
 * approvals page, and A's call, still open, returns the tool's result. The audit row
 * shows both decisions, written before the call ran. Then (PostgreSQL, where replicas hear
 * each other at once through NOTIFY) someone with write access to the store deletes the
 * use row and re-arms the approval, and the same call through replica B does not run.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport, type CallToolResult } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { openStore, type Store } from '../../src/store/index.js';
import { freePort, spawnUntil } from '../helpers/process.js';
import { CLI, ROOT } from '../helpers/reference.js';
import { BACKENDS, finishedRows, rawQuery, setupBackends } from '../helpers/stores.js';
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
  let location: string;

  /** A host of the student on `replica`. */
  const hostOn = async (replica: { base: string }) => {
    const client = new Client({ name: 'host', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${replica.base}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${STUDENT_TOKEN}` } } }));
    clients.push(client);
    return client;
  };
  const ARGS = { category: 'plumbing', description: 'parked on A, approved on B' };

  beforeAll(async () => {
    location = await backend.fresh();
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
    const client = await hostOn(a!);
    const call = client.callTool({ name: 'raise_maintenance_request', arguments: ARGS }, { timeout: 120_000 });

    const id = await pendingId(store);
    const approved = await fetch(`${b!.base}/approvals/${id}/approve`, { method: 'POST', headers: { authorization: `Bearer ${APPROVALS_TOKEN}` }, redirect: 'manual' });
    expect(approved.status).toBe(303);

    const result = (await call) as CallToolResult;
    expect(result.isError, text(result)).toBeFalsy();
    expect(JSON.parse(text(result))).toMatchObject({ request_id: expect.any(Number), category: 'plumbing' });
    expect(await store.approvals.get(id)).toMatchObject({ status: 'used', decidedBy: 'web' });
    const [row] = await finishedRows(store, 'raise_maintenance_request');
    expect(row).toMatchObject({ decisions: ['awaiting_approval', 'approved'], decision: 'approved', outcome: 'ok', userId: 'S0001' });
  }, 180_000);

  test.skipIf(backend.kind === 'sqlite')('the use row deleted and the approval re-armed: replica B does not run the same call again', async () => {
    const [used] = (await store.approvals.list({ all: true })).filter((r) => r.status === 'used');
    await rawQuery(backend.kind, location, `DELETE FROM approval_uses WHERE id = '${used!.id}'`);
    await rawQuery(backend.kind, location, `UPDATE approvals SET status = 'approved', used_at = NULL WHERE id = '${used!.id}'`);
    expect((await store.approvals.get(used!.id))?.status).toBe('approved');

    const call = (await hostOn(replicas[1]!)).callTool({ name: 'raise_maintenance_request', arguments: ARGS }, { timeout: 120_000 });
    // B parks it anew (and waits): a person denies the new request.
    const parked = await Promise.race([
      pendingId(store),
      call.then((r) => {
        throw new Error(`replica B answered without parking the call: ${text(r as CallToolResult)}`);
      }),
    ]);
    expect(parked).not.toBe(used!.id);
    const denied = await fetch(`${replicas[0]!.base}/approvals/${parked}/deny`, { method: 'POST', headers: { authorization: `Bearer ${APPROVALS_TOKEN}` }, redirect: 'manual' });
    expect(denied.status).toBe(303);
    const result = (await call) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(text(result)).toContain('a person denied raise_maintenance_request');
    const rows = await finishedRows(store, 'raise_maintenance_request');
    expect(rows.map((r) => [r.outcome, r.decision])).toEqual([['ok', 'approved'], ['not_run', 'denied']]);
    expect(rows[1]!.notes).toContain(`approval ${used!.id} ignored: already used`);
  }, 180_000);
});
