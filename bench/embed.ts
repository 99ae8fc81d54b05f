/**
 * USE Lite embedding speed: model load, query latency on the main thread vs a round trip
 * to a query worker (the hop `queryWorkers` adds to one query alone), and catalog
 * throughput with 0 (main thread), 1 and N = min(cores, 4) workers; a pool's first call
 * includes starting its workers and loading their models. Run compiled:
 * `node dist/bench/embed.js [tools=400]`. Prints a markdown table on stdout.
 */
import os from 'node:os';
import { createUseEmbedder } from '../src/embedding/use.js';
import { EmbedPool, workerScript } from '../src/embedding/pool.js';
import { percentile } from '../src/eval/metrics.js';

const QUERIES = 300;
const WARMUP = 20;

/** Tool descriptions in the reference servers' style, 8–40 words. */
const DESCRIPTIONS = [
  'Read the complete contents of a file from the file system as text. Handles various text encodings and provides detailed error messages if the file cannot be read.',
  'Create multiple new entities in the knowledge graph',
  'Get the attendance summary of a student for the current semester, per course, with the percentage of classes attended and the minimum required for exam eligibility.',
  'Pay the outstanding fee dues of a student with a saved payment method',
  'Search for nodes in the knowledge graph based on a query matching names, types and observation content',
  'Submit a formal grievance to the administration about a course, a grade, a facility or a staff member; it is routed to the right office and tracked until resolved.',
  'List all files and directories in a given path, marking which entries are directories',
  'Get the exam schedule of a student: course, date, time, room and seat number of each exam',
];
const QUERY_TEXTS = ['read a file', 'how many classes did I miss in physics', 'pay my hostel fees', 'when is my next exam',
  'complain about the broken projector in room 204', 'find notes about the meeting with Alice'];


async function latencies(run: (text: string) => Promise<unknown>): Promise<{ p50: number; p99: number }> {
  const query = (i: number) => `${QUERY_TEXTS[i % QUERY_TEXTS.length]} ${i}`;
  for (let i = 0; i < WARMUP; i++) await run(query(i));
  const times: number[] = [];
  for (let i = 0; i < QUERIES; i++) {
    const t0 = performance.now();
    await run(query(i));
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 0.5), p99: percentile(times, 0.99) };
}

/** One markdown table of the figures for a catalog of `tools` texts. */
export async function benchEmbed(tools = 400): Promise<string[]> {
  const catalog = Array.from({ length: tools }, (_, i) => `tool_${i}: ${DESCRIPTIONS[i % DESCRIPTIONS.length]}`);
  const f = (x: number): string => x.toFixed(1);
  const lines = ['| measure | value |', '|---|---|'];

  const t0 = performance.now();
  const main = await createUseEmbedder({ workers: 0, queryWorkers: 0 });
  lines.push(`| model load, main thread | ${f(performance.now() - t0)} ms |`);
  const q = await latencies((text) => main.embedQuery(text));
  lines.push(`| query, main thread | p50 ${f(q.p50)} ms, p99 ${f(q.p99)} ms |`);

  const script = workerScript();
  if (!script) throw new Error('run the compiled bench (node dist/bench/embed.js): workers need compiled JavaScript');
  const pool = new EmbedPool(1, script, { queries: true });
  const w = await latencies((text) => pool.embedOne(text));
  await pool.close();
  lines.push(`| query, round trip to one worker | p50 ${f(w.p50)} ms, p99 ${f(w.p99)} ms |`);

  const counts = [...new Set([0, 1, Math.min(os.availableParallelism(), 4)])];
  for (const workers of counts) {
    const embedder = workers === 0 ? main : await createUseEmbedder({ workers, queryWorkers: 0 });
    const c0 = performance.now();
    await embedder.embedDocuments(catalog);
    const cold = performance.now() - c0;
    const w0 = performance.now();
    await embedder.embedDocuments(catalog);
    const warm = performance.now() - w0;
    const who = workers === 0 ? 'main thread' : `${workers} worker${workers > 1 ? 's' : ''}`;
    lines.push(`| ${tools} tools, ${who} | ${f(tools / (warm / 1000))} docs/s (first call: ${f(tools / (cold / 1000))}) |`);
    if (embedder !== main) await embedder.close();
  }
  await main.close();
  return lines;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const tools = Number(process.argv[2] ?? 400);
  process.stdout.write(`${(await benchEmbed(tools)).join('\n')}\n`);
}
