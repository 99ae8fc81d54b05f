/**
 * Timing tools/call over several paths to the same upstream tool, for bench/overhead.ts:
 * warm-up, then interleaved blocks of sequential calls per path, with each path's
 * percentiles and the CPU time and run-queue wait its server process spent on them; and
 * the name guard's answer to a misspelled name.
 */
import type { CallToolResult, Client } from '@modelcontextprotocol/client';
import { percentile } from '../src/eval/metrics.js';
import { CORRECTED_META } from '../src/guards/nameGuard.js';
import { generatedTool } from './fixtures/manyTools.js';
import { schedOf } from './processes.js';

/** Timed calls per path (BENCH_OVERHEAD_CALLS, default 300). */
export const CALLS = Number(process.env.BENCH_OVERHEAD_CALLS ?? 300);
/** Untimed calls per path first: connections and caches warm, the JIT not yet (see WARM). */
export const WARMUP = 50;
/**
 * Untimed calls per path between the first timed window and the second (BENCH_OVERHEAD_WARM,
 * default 3,000; 0 skips the second window). V8 optimizes a function once it has run
 * enough bytecode, and the call path's functions run once or twice per call: a gateway's
 * code is still being tiered up by its thousandth call (2026-12-06, docs/PERFORMANCE.md).
 * The first window is a process's calls WARMUP + 1 … WARMUP + CALLS, the second what a
 * gateway that has served thousands of calls costs.
 */
export const WARM = Number(process.env.BENCH_OVERHEAD_WARM ?? 3000);
/** Calls per path in a row before the next path's turn. */
export const BLOCK = 25;
/** Longest wait for one call. */
const CALL_MS = 60_000;

export type ToolCall = { name: string; arguments: Record<string, unknown> };
export interface Path {
  label: string;
  client: Client;
  /** The process the client talks to: the upstream, the gateway or mcp-proxy. */
  pid: number;
  /** The direct path this one's overhead is taken against (a 2026-07-28 host's path against the upstream's own 2026 path); default the first path. */
  baseline?: Path;
}

/** Per path: call times (ms, sorted), the same in the order taken, and the CPU time and run-queue wait of its process during them (ms). */
export interface Timed {
  ms: number[];
  taken: number[];
  cpu: number;
  wait: number;
}

/** A figure in ms for a table: two decimals below 10, whole numbers above. */
export const ms = (x: number) => (x < 10 ? x.toFixed(2) : x.toFixed(0));

/** The call every path makes: generated tool `i` with its required id and a limit. */
export function callOf(i: number): ToolCall {
  const tool = generatedTool(i);
  return { name: tool.name, arguments: { [tool.inputSchema.required![0]!]: 'id-42', limit: 5 } };
}

/** A typo inside the name's last word (two letters swapped): the kind the name guard corrects silently. */
function misspell(name: string): string {
  const i = name.length - 3;
  return name.slice(0, i) + name[i + 1] + name[i] + name.slice(i + 2);
}

async function call(client: Client, c: ToolCall): Promise<CallToolResult> {
  return (await client.callTool(c, { timeout: CALL_MS })) as CallToolResult;
}

/** The text of a result's content, non-text parts as [type]. */
export const text = (r: CallToolResult) => r.content.map((c) => (c.type === 'text' ? c.text : `[${c.type}]`)).join(' ');

/** CALLS per path in interleaved blocks, each path's time and its process's CPU and run-queue wait. */
async function timedWindow(paths: Path[], once: (p: Path) => Promise<unknown>): Promise<Map<Path, Timed>> {
  const times = new Map(paths.map((p) => [p, [] as number[]]));
  const before = paths.map((p) => schedOf(p.pid));
  for (let done = 0; done < CALLS; done += BLOCK) {
    for (const p of paths) {
      for (let i = 0; i < Math.min(BLOCK, CALLS - done); i++) {
        const t = performance.now();
        await once(p);
        times.get(p)!.push(performance.now() - t);
      }
    }
  }
  return new Map(
    paths.map((p, i) => {
      const after = schedOf(p.pid);
      const taken = times.get(p)!;
      return [p, { ms: [...taken].sort((a, b) => a - b), taken, cpu: after.cpu - before[i]!.cpu, wait: after.wait - before[i]!.wait }];
    }),
  );
}

/** Both timed windows of `timeCalls`: `warm` is absent when WARM is 0. */
export interface Windows {
  cold: Map<Path, Timed>;
  warm?: Map<Path, Timed>;
}

/**
 * WARMUP calls per path (the first checked for the upstream's echo), then CALLS each in
 * interleaved blocks (`cold`); then WARM more per path, untimed and interleaved, and CALLS
 * each again (`warm`).
 */
export async function timeCalls(paths: Path[], c: ToolCall): Promise<Windows> {
  const once = async (p: Path) => {
    const r = await call(p.client, c);
    if (r.isError) throw new Error(`${p.label}: ${c.name} failed: ${text(r)}`);
    return r;
  };
  for (const p of paths) {
    const echoed = text(await once(p));
    if (!echoed.includes(`"tool":"${c.name}"`)) throw new Error(`${p.label}: expected the upstream's echo of ${c.name}, got ${echoed.slice(0, 200)}`);
    for (let i = 1; i < WARMUP; i++) await once(p);
  }
  const cold = await timedWindow(paths, once);
  if (WARM <= 0) return { cold };
  for (let done = 0; done < WARM; done += BLOCK) {
    for (const p of paths) for (let i = 0; i < Math.min(BLOCK, WARM - done); i++) await once(p);
  }
  return { cold, warm: await timedWindow(paths, once) };
}

/**
 * The median of the per-call differences `path − direct`, call k of one against call k of
 * the other: both were taken in the same round of blocks, so a change of machine load
 * between rounds falls on both sides of each difference.
 */
export function pairedMedian(taken: readonly number[], direct: readonly number[]): number {
  const n = Math.min(taken.length, direct.length);
  return percentile(Array.from({ length: n }, (_, k) => taken[k]! - direct[k]!).sort((a, b) => a - b), 0.5);
}

export function overheadTable(times: Map<Path, Timed>): string[] {
  const first0 = [...times.values()][0]!;
  const lines = [
    '| path | calls | p50 ms | p99 ms | overhead vs direct (same era), p50 / p99 ms | overhead, median of per-call differences ms | CPU / run-queue wait per call of the process called (upstream, gateway or proxy), ms |',
    '|---|---|---|---|---|---|---|',
  ];
  for (const [p, { ms: t, taken, cpu, wait }] of times) {
    const direct = (p.baseline && times.get(p.baseline)) || first0;
    const first = t === direct.ms;
    const over = first ? '—' : `${ms(percentile(t, 0.5) - percentile(direct.ms, 0.5))} / ${ms(percentile(t, 0.99) - percentile(direct.ms, 0.99))}`;
    const paired = first ? '—' : ms(pairedMedian(taken, direct.taken));
    lines.push(`| ${p.label} | ${t.length} | ${ms(percentile(t, 0.5))} | ${ms(percentile(t, 0.99))} | ${over} | ${paired} | ${(cpu / t.length).toFixed(3)} / ${(wait / t.length).toFixed(3)} |`);
  }
  return lines;
}

/** The name guard on a misspelled name: the first call, the median of the next 5, and what happened. */
export async function misspelledCall(client: Client, c: ToolCall): Promise<string> {
  const wrong = { ...c, name: misspell(c.name) };
  const times: number[] = [];
  let r!: CallToolResult;
  for (let i = 0; i < 6; i++) {
    const t = performance.now();
    r = await call(client, wrong);
    times.push(performance.now() - t);
  }
  const corrected = (r._meta?.[CORRECTED_META] as { called?: string } | undefined)?.called;
  const outcome = corrected ? `corrected to ${corrected}` : `not run: ${text(r).slice(0, 120)}`;
  const next = times.slice(1).sort((a, b) => a - b);
  return `\`${wrong.name}\` → ${outcome}; first call ${ms(times[0]!)} ms, then p50 ${ms(percentile(next, 0.5))} ms (5 calls)`;
}
