/**
 * Does a hung upstream slow the others? The gateway on the university example over
 * Streamable HTTP (set up as bench/http.ts sets it up, student token), first with every
 * upstream real until its index is built (the store then remembers whose each tool name
 * is), then RUNS times with `library` replaced by a process that reads its stdin and never
 * answers initialize (`timeouts.list_wait_ms` 5 s, the default; `startup_ms` 60 s, so it
 * stays hung for the whole measurement).
 *
 * A host connects as soon as the gateway serves and sends at once, side by side:
 * tools/list, find_tools, a call of a healthy upstream's tool (academics' get_cgpa), a
 * call of the hung upstream's tool (library's get_library_loans) and a call of a name no
 * upstream ever listed. Figures: when each answered, in ms from the gateway's start (its
 * "starting the upstreams" log line) and from spawn; the target is within list_wait_ms
 * + 1 s of start. The answers to the hung and unknown names are quoted.
 * Run: `npm run build && node dist/bench/hung.js`.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { dump, load } from 'js-yaml';
import { QUERIES, writeConfig } from './http.js';
import { HttpChild, httpClient } from './processes.js';

const ROOT = resolve(import.meta.dirname, '../..');
const RUNS = Number(process.env.BENCH_HUNG_RUNS ?? 3);
const LIST_WAIT_MS = 5_000;
const HUNG = 'library';
const HEALTHY_CALL = { name: 'get_cgpa', arguments: {} };
const HUNG_CALL = { name: 'get_library_loans', arguments: {} };
const UNKNOWN_CALL = { name: 'get_weather_forecast', arguments: {} };

const text = (r: CallToolResult) => r.content.map((c) => (c.type === 'text' ? c.text : '')).join('');

/** Writes the config: the university example, `hung` replaced by a process that never answers when `hang`. */
function configure(dir: string, token: string, hang: boolean): string {
  const path = writeConfig(dir, token, 30);
  const yaml = load(readFileSync(path, 'utf8')) as Record<string, any>;
  yaml.curator.vectors = join(ROOT, 'university.vectors');
  yaml.timeouts = { list_wait_ms: LIST_WAIT_MS, startup_ms: hang ? 60_000 : 120_000 };
  if (hang) yaml.upstreams[HUNG] = { command: process.execPath, args: ['-e', 'process.stdin.resume()'] };
  writeFileSync(path, dump(yaml));
  return path;
}

const serve = (config: string) => new HttpChild([join(ROOT, 'dist/src/cli.js'), 'serve', '--http', '0', '--config', config], { TOOL_CURATOR_LOG: 'info' });
const SERVING = /^(?=.*"msg":"serving MCP over Streamable HTTP").*"url":"([^"]+)"/;

interface Answer {
  what: string;
  fromStart: number;
  fromSpawn: number;
  said: string;
}

/** One run with the hung upstream: each request's answer time. */
async function hungRun(dir: string, token: string): Promise<Answer[]> {
  const spawned = performance.now();
  const gw = serve(configure(dir, token, true));
  try {
    let started = NaN;
    const startLine = gw.line(/"msg":"starting the upstreams"/, 120_000, 'gateway starting its upstreams').then(() => (started = performance.now()));
    const url = (await gw.line(SERVING, 120_000, 'gateway serving over HTTP'))[1]!;
    const client = await httpClient(url, 120_000, { Authorization: `Bearer ${token}` });
    const answers: Answer[] = [];
    const timed = async (what: string, work: () => Promise<string>) => {
      const said = await work();
      const at = performance.now();
      await startLine;
      answers.push({ what, fromStart: at - started, fromSpawn: at - spawned, said });
    };
    const call = (c: { name: string; arguments: Record<string, unknown> }) => async () => {
      const r = (await client.callTool(c, { timeout: 120_000 })) as CallToolResult;
      return `${r.isError ? 'error: ' : ''}${text(r).slice(0, 400)}`;
    };
    await Promise.all([
      timed('tools/list', async () => `${(await client.listTools(undefined, { timeout: 120_000 })).tools.length} tools`),
      timed('find_tools', async () => {
        const r = (await client.callTool({ name: 'find_tools', arguments: { query: QUERIES[0]! } }, { timeout: 120_000 })) as CallToolResult;
        const found = JSON.parse(text(r)) as { tools: { name: string }[]; retrievers?: string[] };
        return `${found.tools.length} tools (${found.tools.slice(0, 3).map((t) => t.name).join(', ')}, …)${found.retrievers ? `; retrievers ${found.retrievers.join('+')}` : ''}`;
      }),
      timed(`healthy call ${HEALTHY_CALL.name}`, call(HEALTHY_CALL)),
      timed(`hung upstream's ${HUNG_CALL.name}`, call(HUNG_CALL)),
      timed(`never listed ${UNKNOWN_CALL.name}`, call(UNKNOWN_CALL)),
    ]);
    await client.close();
    return answers;
  } finally {
    await gw.stop();
  }
}

export async function benchHung(): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), 'tc-bench-hung-'));
  const token = randomBytes(24).toString('hex');
  const rows: string[] = [];
  try {
    // Every upstream once, until indexed: the store remembers whose each name is.
    const warm = serve(configure(dir, token, false));
    try {
      await warm.line(/"msg":"gateway ready"/, 900_000, 'university gateway index ready');
    } finally {
      await warm.stop();
    }
    for (let run = 1; run <= RUNS; run++) {
      const load = loadavg()[0]!.toFixed(2);
      for (const a of await hungRun(dir, token)) {
        const said = a.said.replace(/\|/g, '\\|').replace(/\n/g, ' ');
        rows.push(`| ${run} (load ${load}) | ${a.what} | ${a.fromStart.toFixed(0)} | ${a.fromSpawn.toFixed(0)} | ${said} |`);
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return [
    `University example (8 upstreams), \`${HUNG}\` hung (never answers initialize), list_wait_ms ${LIST_WAIT_MS}, student token over Streamable HTTP; every request sent as soon as the gateway serves. Target: every answer within ${LIST_WAIT_MS + 1000} ms of start.`,
    '',
    '| run | request | answered, ms from start | ms from spawn | answer |',
    '|---|---|---|---|---|',
    ...rows,
  ];
}

if (import.meta.url === `file://${process.argv[1]}`) {
  process.stdout.write(`${(await benchHung()).join('\n')}\n`);
}
