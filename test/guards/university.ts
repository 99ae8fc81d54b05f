/**
 * The eight university mock servers behind the built gateway, for the guards'
 * integration tests: a config in a fresh temp dir (own store and own fixture database),
 * the repository's personas.yaml, the full catalog listed straight from the upstreams
 * (not through the gateway), and the `tool-curator` CLI run as a person would run it.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, type CallToolResult } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { dump, load } from 'js-yaml';
import type { ToolRecord } from '../../src/catalog/types.js';
import { personasSchema } from '../../src/config/schema.js';
import { createApproverKey } from '../../src/guards/approver.js';
import { Policy } from '../../src/policy/policy.js';
import { CLI, ROOT } from '../helpers/reference.js';

export const SERVERS = ['academics', 'attendance', 'examinations', 'finance', 'hostel', 'library', 'placements', 'administration'];

export interface University {
  dir: string;
  configPath: string;
  universityDb: string;
}

/** Writes a gateway config over the university servers; `extra` is merged at top level. */
export function universityConfig(extra: Record<string, unknown> = {}): University {
  const dir = mkdtempSync(join(tmpdir(), 'tc-guards-'));
  const universityDb = join(dir, 'university.db');
  const upstreams = Object.fromEntries(
    SERVERS.map((s) => [s, { command: process.execPath, args: [join(ROOT, 'dist/mock-servers', `${s}.js`)], env: { UNIVERSITY_DB: universityDb } }]),
  );
  const config = {
    upstreams,
    // BM25 keeps start-up fast; who may see what is decided before ranking, in any mode.
    curator: { mode: 'bm25', top_k: 12, embedder: 'none' },
    store: join(dir, 'store.db'),
    policy: { personas: join(ROOT, 'personas.yaml') },
    session: { persona: 'student', user_id: 'S0001' },
    // Eight servers on a loaded 2-core machine can take far longer than the 20 s default to start.
    timeouts: { startup_ms: 120_000, list_wait_ms: 120_000, call_ms: 60_000 },
    ...extra,
    // A parked call answers at once here (test/gateway/parked.test.ts has it wait for the decision).
    confirmation: { wait_seconds: { stdio: 0, http: 0 }, ...(extra.confirmation as object | undefined) },
  };
  const configPath = join(dir, 'gateway.config.yaml');
  writeFileSync(configPath, dump(config));
  return { dir, configPath, universityDb };
}

/** Every university tool as its upstream lists it, with the student persona's verdict. */
export async function universityCatalog(universityDb: string): Promise<{ all: string[]; allowed: Set<string>; forbidden: string[] }> {
  const records: ToolRecord[] = [];
  await Promise.all(
    SERVERS.map(async (server) => {
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [join(ROOT, 'dist/mock-servers', `${server}.js`)],
        env: { ...process.env, UNIVERSITY_DB: universityDb } as Record<string, string>,
        stderr: 'ignore',
      });
      const client = new Client({ name: 'catalog-reader', version: '1.0.0' });
      await client.connect(transport);
      for (const t of (await client.listTools()).tools) {
        records.push({ server, name: t.name, upstreamName: t.name, description: '', inputSchema: t.inputSchema, isAction: false });
      }
      await client.close();
    }),
  );
  const policy = new Policy(personasSchema.parse(load(readFileSync(join(ROOT, 'personas.yaml'), 'utf8'))));
  const allowed = new Set(policy.allowed('student', records).map((t) => t.name));
  const all = records.map((t) => t.name).sort();
  return { all, allowed, forbidden: all.filter((n) => !allowed.has(n)) };
}

/** How long cli() lets one command run. */
export const CLI_TIMEOUT_MS = 150_000;

/** Runs `tool-curator <args> --config <configPath>` and returns its exit code and output. */
export function cli(configPath: string, args: string[], env: Record<string, string> = {}): { code: number; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [CLI, ...args, '--config', configPath], {
    encoding: 'utf8',
    env: { ...process.env, TOOL_CURATOR_LOG: 'warn', ...env },
    // Starting eight upstreams took over 30 s on a loaded machine; callers' tests allow CLI_TIMEOUT_MS + 30 s.
    timeout: CLI_TIMEOUT_MS,
  });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

/**
 * The approver key beside the store, made as the approving person makes it at install
 * (`approvals init-key` at their terminal, which a test's pipe cannot be): before the
 * gateway starts, since a gateway honours the key it read when it started.
 */
export function installApproverKey(u: University): void {
  createApproverKey(join(u.dir, 'approver.key'));
}

export const text = (r: unknown): string => ((r as CallToolResult).content[0] as { text: string }).text;

/** The approval id in an "awaits a person's approval" result. */
export function approvalId(r: unknown): string {
  const m = /awaits a person's approval \(approval id ([a-z0-9]+)\)/.exec((r as CallToolResult).content.map((c) => (c.type === 'text' ? c.text : '')).join(''));
  if (!m) throw new Error(`not an awaiting-approval result: ${text(r)}`);
  return m[1]!;
}
