/**
 * Learning from use through the real gateway: three university upstreams over stdio, the
 * USE embedder, the Streamable HTTP face, and SDK clients as hosts, one bearer token per
 * user. Students search with their own words and then call the tool they wanted; once
 * three distinct students did, a paraphrase ranks the tool higher for students, while a
 * faculty member's ranking of the same words does not move, one student repeating the
 * pair in many sessions teaches nothing, and refused or failed calls are no evidence.
 * Readiness is explicit: Learning.settled() waits for the evidence writes, refresh() reads
 * them; no timing is asserted.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport, type CallToolResult } from '@modelcontextprotocol/client';
import { dump } from 'js-yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { Gateway } from '../../src/gateway/gateway.js';
import { serveHttp, type HttpFace } from '../../src/gateway/http.js';
import { evidenceQuery } from '../../src/gateway/learning.js';
import { INDEX_READY_MS, ROOT } from '../helpers/reference.js';

/** What students type, then the tool they call; the paraphrase is never replayed. */
const TAUGHT = 'what do I still have out from the stacks';
const PARAPHRASE = 'do I still have anything out from the stacks';
const TOOL = 'get_library_loans';
const CALL_MS = { timeout: 120_000 };

const token = (who: string) => `learning-test-token-${who}-0123456789`;
const STUDENTS = ['S0001', 'S0002', 'S0003', 'S0004', 'S0005'];

describe('learning from use through the gateway', () => {
  let gateway: Gateway;
  let face: HttpFace;
  const clients: Client[] = [];

  /** A new host session of `who` (a token of tokens below). */
  async function host(who: string): Promise<Client> {
    const transport = new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${face.port}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${token(who)}` } } });
    const client = new Client({ name: `host-${who}`, version: '1.0.0' });
    await client.connect(transport);
    clients.push(client);
    return client;
  }
  const text = (r: unknown) => ((r as CallToolResult).content[0] as { text: string }).text;
  async function find(client: Client, query: string): Promise<string[]> {
    const r = await client.callTool({ name: 'find_tools', arguments: { query, limit: 12 } }, CALL_MS);
    return (JSON.parse(text(r)) as { tools: { name: string }[] }).tools.map((t) => t.name);
  }
  async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<CallToolResult> {
    return (await client.callTool({ name: 'call_tool', arguments: { name, arguments: args } }, CALL_MS)) as CallToolResult;
  }
  /** Rank (0-based; the list length when absent) of TOOL for `query`, asked in a new session of `who`. */
  async function rankFor(who: string, query: string): Promise<{ rank: number; names: string[] }> {
    const names = await find(await host(who), query);
    return { rank: names.includes(TOOL) ? names.indexOf(TOOL) : names.length, names };
  }
  /** A student's session: search with `query`, then call `tool` `times` times. */
  async function teach(student: string, times = 1, query = TAUGHT, tool = TOOL): Promise<void> {
    const client = await host(student);
    await find(client, query);
    for (let i = 0; i < times; i++) {
      const r = await call(client, tool);
      expect(r.isError ?? false, text(r)).toBe(false);
    }
  }
  const learned = async () => {
    await gateway.learning!.settled();
    return gateway.learning!.refresh();
  };

  let before: { student: { rank: number; names: string[] }; faculty: { rank: number; names: string[] } };

  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tc-learning-'));
    const db = join(dir, 'university.db');
    const server = (s: string) => ({ command: process.execPath, args: [join(ROOT, 'dist/mock-servers', `${s}.js`)], env: { UNIVERSITY_DB: db } });
    const personas = join(dir, 'personas.yaml');
    writeFileSync(personas, dump({
      student: { identity: { student_id: '${user_id}' }, allow: ['hostel.get_*', 'library.get_*', 'library.search_library_catalogue', 'finance.get_*'] },
      faculty: { identity: { faculty_id: '${user_id}' }, allow: ['library.get_*', 'library.search_library_catalogue'] },
    }));
    const configPath = join(dir, 'gateway.config.yaml');
    writeFileSync(configPath, dump({
      upstreams: { hostel: server('hostel'), library: server('library'), finance: server('finance') },
      curator: { mode: 'hybrid', top_k: 12, embedder: 'use', learning: { enabled: true, min_users: 3, refresh_seconds: 3600 } },
      store: join(dir, 'store.db'),
      policy: { personas },
      http: { tokens: [...STUDENTS.map((s) => ({ token: token(s), persona: 'student', user_id: s })), { token: token('F001'), persona: 'faculty', user_id: 'F001' }] },
      timeouts: { startup_ms: 120_000, call_ms: 60_000 },
    }));
    gateway = await Gateway.start(loadConfig(configPath));
    face = await serveHttp(gateway, 0, '127.0.0.1');
    before = { student: await rankFor('S0004', PARAPHRASE), faculty: await rankFor('F001', PARAPHRASE) };
  }, INDEX_READY_MS + 60_000);

  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
    await face?.close();
    await gateway?.close();
  });

  it('one student repeating the search and the call in many sessions, or two colluding on a wrong tool, teaches nothing', async () => {
    for (let session = 0; session < 3; session++) await teach('S0001', 2);
    // k − 1 = 2 users pair the paraphrase with a wrong tool (one that succeeds).
    for (const student of ['S0001', 'S0005']) await teach(student, 1, PARAPHRASE, 'get_mess_menu');
    expect(await learned()).toBe(0);
    // Three sessions, one row each: a session's repeated call counts once.
    // Most users first.
    expect(await gateway.store.learned.pairs({ persona: 'student', minUsers: 1 })).toEqual([
      expect.objectContaining({ query: evidenceQuery(PARAPHRASE), tool: 'get_mess_menu', users: 2, count: 2 }),
      expect.objectContaining({ query: evidenceQuery(TAUGHT), tool: TOOL, users: 1, count: 3 }),
    ]);
    expect((await rankFor('S0004', PARAPHRASE)).names).toEqual(before.student.names);
  }, 600_000);

  it('refused and failed calls are no evidence', async () => {
    const client = await host('S0002');
    await find(client, 'report a broken fan in my room');
    const refused = await call(client, 'raise_maintenance_request', { category: 'electrical', description: 'fan broken' });
    expect(text(refused)).toMatch(/not available to persona student/);
    const failed = await call(client, 'get_payment_receipt', { payment_id: 999_999 });
    expect(failed.isError).toBe(true);
    await gateway.learning!.settled();
    const tools = (await gateway.store.learned.pairs({ persona: 'student', minUsers: 1 })).map((p) => p.tool);
    expect(tools.sort()).toEqual(['get_library_loans', 'get_mess_menu']);
  }, 600_000);

  it('three distinct students teach the pair: a paraphrase ranks the tool higher for students, and for faculty nothing moves', async () => {
    await teach('S0002');
    await teach('S0003');
    expect(await learned()).toBe(1);
    const student = await rankFor('S0004', PARAPHRASE);
    expect(student.rank, `before: ${before.student.names.join(', ')}; after: ${student.names.join(', ')}`).toBeLessThan(before.student.rank);
    expect(student.rank).toBeLessThan(3);
    // The taught words themselves now find the tool among the first three for students.
    expect((await rankFor('S0004', TAUGHT)).rank).toBeLessThan(3);
    // Faculty may use the same tool, but students' words never rank faculty queries.
    expect((await rankFor('F001', PARAPHRASE)).names).toEqual(before.faculty.names);
  }, 600_000);
});
