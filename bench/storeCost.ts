/**
 * What the store backend costs an audited tools/call: PostgreSQL against SQLite.
 *
 * Two `serve --http` gateways over the same small upstream (test/fleet/recordsUpstream.ts,
 * a read-only `lookup_record`), BM25, one on a SQLite file and one on a fresh PostgreSQL
 * database (TOOL_CURATOR_TEST_PG). Every tools/call writes its audit row before it is
 * forwarded and completes it after (two statements on the store; the completion, written
 * after the answer, commits with the next call's row when one follows), so the difference
 * between the two gateways is the store's. Warm-up, then CALLS calls per gateway, one at
 * a time, in interleaved blocks of 25 so both see the same machine load. Figures: p50 /
 * p99 client side (HTTP round trip), the gateway's CPU per call (all threads,
 * /proc/<pid>/task/<tid>/schedstat; PostgreSQL's own processes not counted), and the
 * store alone in this process (`audit.begin`, then `audit.complete` written at once with
 * `flush`: the two writes of a call that no other call follows).
 * Skipped, with a message, without TOOL_CURATOR_TEST_PG.
 * Run: `npm run build && node dist/bench/storeCost.js` (`BENCH_STORE_CALLS`, default 400).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { CallToolResult, Client } from '@modelcontextprotocol/client';
import { dump } from 'js-yaml';
import pg from 'pg';
import { percentile } from '../src/eval/metrics.js';
import { openStore } from '../src/store/index.js';
import { recordsUpstream } from '../test/helpers/fleet.js';
import { createDatabase, dropDatabase, PG_URL } from '../test/helpers/pgDatabase.js';
import { HttpChild, httpClient, schedOf } from './processes.js';

const ROOT = resolve(import.meta.dirname, '../..');
const CLI = join(ROOT, 'dist/src/cli.js');
const CALLS = Number(process.env.BENCH_STORE_CALLS ?? 400);
const WARMUP = 50;
const BLOCK = 25;

interface Side {
  label: string;
  store: string;
  gateway?: HttpChild;
  client?: Client;
  ms: number[];
  cpu: number;
  direct: number[];
}

const pp = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return `${percentile(s, 0.5).toFixed(2)} / ${percentile(s, 0.99).toFixed(2)}`;
};

async function start(side: Side, dir: string, token: string): Promise<void> {
  const personas = join(dir, 'personas.yaml');
  writeFileSync(personas, dump({ student: { allow: ['*'], confirm: 'none' } }));
  const config = join(dir, `${side.label}.yaml`);
  writeFileSync(config, dump({
    upstreams: { alpha: recordsUpstream('alpha') },
    curator: { mode: 'bm25' },
    store: '${TC_STORE}',
    policy: { personas },
    http: { host: '127.0.0.1', tokens: [{ token, persona: 'student', user_id: 'S0001' }] },
  }));
  side.gateway = new HttpChild([CLI, 'serve', '--http', '0', '--config', config], { TC_STORE: side.store, TOOL_CURATOR_LOG: 'info' });
  const url = (await side.gateway.line(/"url":"([^"]+)"/, 120_000, `${side.label} gateway serving`))[1]!;
  side.client = await httpClient(url, 120_000, { Authorization: `Bearer ${token}` });
}

async function call(side: Side, i: number): Promise<void> {
  const r = (await side.client!.callTool({ name: 'lookup_record', arguments: { id: `r${i}` } }, { timeout: 60_000 })) as CallToolResult;
  if (r.isError) throw new Error(`${side.label}: lookup_record failed: ${JSON.stringify(r.content)}`);
}

/** The database's commits and rows written so far (pg_stat_database; its counters lag up to a second behind). */
async function pgCounters(url: string): Promise<{ commits: number; written: number }> {
  await new Promise((r) => setTimeout(r, 1_500));
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ commits: string; written: string }>(
      'SELECT xact_commit AS commits, tup_inserted + tup_updated + tup_deleted AS written FROM pg_stat_database WHERE datname = current_database()',
    );
    return { commits: Number(rows[0]!.commits), written: Number(rows[0]!.written) };
  } finally {
    await client.end();
  }
}

/** The two writes of an audited call, straight on the store from this process. */
async function directWrites(side: Side): Promise<void> {
  const store = await openStore(side.store);
  try {
    const entry = { time: Date.now(), sessionId: 'bench', tool: 'lookup_record', requestedName: 'lookup_record', args: { id: 'r' }, decision: 'allowed' as const, decisions: [], notes: [] };
    for (let i = 0; i < WARMUP + CALLS; i++) {
      const t = performance.now();
      const id = await store.audit.begin(entry);
      // Written now, as when no call follows (a completion otherwise rides with the next begin).
      const completed = store.audit.complete(id, { outcome: 'ok', decision: 'allowed', decisions: [], notes: [], upstreamMs: 1 });
      await store.audit.flush();
      await completed;
      if (i >= WARMUP) side.direct.push(performance.now() - t);
    }
  } finally {
    await store.close();
  }
}

export async function benchStoreCost(): Promise<string[]> {
  if (!PG_URL) return ['Skipped: TOOL_CURATOR_TEST_PG is not set (a postgres:// URL of a role that may create databases; docs/STORE.md, "Tests").'];
  const dir = mkdtempSync(join(tmpdir(), 'tc-bench-store-'));
  const database = await createDatabase();
  const token = randomBytes(24).toString('hex');
  const sides: Side[] = [
    { label: 'SQLite', store: join(dir, 'store.db'), ms: [], cpu: 0, direct: [] },
    { label: 'PostgreSQL', store: database.url, ms: [], cpu: 0, direct: [] },
  ];
  const load = loadavg();
  let perCall = '';
  try {
    await Promise.all(sides.map((s) => start(s, dir, token)));
    for (const s of sides) for (let i = 0; i < WARMUP; i++) await call(s, i);
    const counted = await pgCounters(database.url);
    const before = sides.map((s) => schedOf(s.gateway!.pid).cpu);
    for (let done = 0; done < CALLS; done += BLOCK) {
      for (const s of sides) {
        for (let i = done; i < Math.min(done + BLOCK, CALLS); i++) {
          const t = performance.now();
          await call(s, i);
          s.ms.push(performance.now() - t);
        }
      }
    }
    sides.forEach((s, i) => (s.cpu = schedOf(s.gateway!.pid).cpu - before[i]!));
    const after = await pgCounters(database.url);
    // The counters' own connection commits once per read: one of the deltas' commits is the reader's.
    perCall = `${((after.commits - counted.commits - 1) / CALLS).toFixed(2)} commits and ${((after.written - counted.written) / CALLS).toFixed(2)} rows written per tools/call`;
    for (const s of sides) await directWrites(s);
  } finally {
    await Promise.all(sides.map(async (s) => {
      await s.client?.close().catch(() => undefined);
      await s.gateway?.stop();
    }));
    await dropDatabase(database.name);
    rmSync(dir, { recursive: true, force: true });
  }
  const [sqlite, postgres] = sides as [Side, Side];
  const p = (xs: number[], q: number) => percentile([...xs].sort((a, b) => a - b), q);
  return [
    `One gateway per store (serve --http, BM25, one stdio upstream), ${CALLS} tools/call of a read-only tool each after ${WARMUP} warm-up, one at a time, interleaved in blocks of ${BLOCK}. PostgreSQL on the same machine (loopback), ${perCall} (pg_stat_database). Load average before: ${load.map((l) => l.toFixed(1)).join(' ')}.`,
    '',
    '| store | tools/call p50 / p99 ms (client, HTTP) | gateway CPU ms per call | audit begin + complete from this process, p50 / p99 ms |',
    '|---|---|---|---|',
    ...sides.map((s) => `| ${s.label} | ${pp(s.ms)} | ${(s.cpu / s.ms.length).toFixed(2)} | ${pp(s.direct)} |`),
    `| PostgreSQL − SQLite | ${(p(postgres.ms, 0.5) - p(sqlite.ms, 0.5)).toFixed(2)} / ${(p(postgres.ms, 0.99) - p(sqlite.ms, 0.99)).toFixed(2)} | ${((postgres.cpu - sqlite.cpu) / CALLS).toFixed(2)} | ${(p(postgres.direct, 0.5) - p(sqlite.direct, 0.5)).toFixed(2)} / ${(p(postgres.direct, 0.99) - p(sqlite.direct, 0.99)).toFixed(2)} |`,
  ];
}

if (import.meta.url === `file://${process.argv[1]}`) {
  process.stdout.write(`${(await benchStoreCost()).join('\n')}\n`);
}
