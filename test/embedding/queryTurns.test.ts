/**
 * The query worker gives back a batch of joined queries one per turn of the event loop
 * (src/embedding/pool.ts oneEachTurn), so the rankings waiting for them never run back to
 * back: compiled USE in a child process, 24 queries at once on one query worker, and a
 * ticker that marks every turn of the event loop. Asserted by order, never by time.
 * On Linux the query worker's thread runs at nice 10 while the main thread keeps 0, so
 * the event loop wins the CPU from it (read from /proc/self/task/<tid>/stat).
 */
import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { compileEmbedding, type CompiledEmbedding } from './compile-embedding.js';
import { TOOL_TEXTS } from './helpers.js';

let compiled: CompiledEmbedding;
beforeAll(async () => {
  compiled = await compileEmbedding();
});
afterAll(() => compiled?.remove());

/** Prints the order of events: `q` a query's vector arrived, `t` a turn of the event loop. */
const child = (module: string) => `
import { createUseEmbedder } from ${JSON.stringify(module)};
const texts = JSON.parse(process.argv[2]);
const use = await createUseEmbedder({ workers: 0, queryWorkers: 1, batchSize: 32 });
const events = [];
let done = false;
const tick = () => { events.push('t'); if (!done) setImmediate(tick); };
setImmediate(tick);
await Promise.all(texts.map((t) => use.embedQuery(t).then(() => events.push('q'))));
done = true;
// Niceness of every thread while the query worker lives (field 19 of stat, after the name).
const { readdirSync, readFileSync } = await import('node:fs');
const nices = process.platform !== 'linux' ? {} : Object.fromEntries(readdirSync('/proc/self/task').map((tid) => {
  const stat = readFileSync('/proc/self/task/' + tid + '/stat', 'utf8');
  return [tid, Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16])];
}));
await use.close();
process.stdout.write(JSON.stringify({ events: events.join(''), pid: process.pid, nices }));
`;

test('24 queries joined on one query worker come back one per event-loop turn', async () => {
  const texts = Array.from({ length: 24 }, (_, i) => `${TOOL_TEXTS[i % TOOL_TEXTS.length]} (query ${i})`);
  const script = path.join(compiled.dir, 'turns-child.mjs');
  await writeFile(script, child(pathToFileURL(compiled.module('use.js')).href));
  const { stdout } = await promisify(execFile)(process.execPath, [script, JSON.stringify(texts)], { timeout: 150_000 });
  const { events, pid, nices } = JSON.parse(stdout) as { events: string; pid: number; nices: Record<string, number> };
  expect(events.replace(/t/g, '')).toBe('q'.repeat(24));
  // Before: the 23 queries joined after the first resolved in one go ("qqq…").
  expect(events).not.toMatch(/qq/);
  if (process.platform === 'linux') {
    // The event loop's thread keeps the process's priority; the query worker runs at nice 10.
    expect(nices[String(pid)]).toBe(0);
    expect(Object.values(nices).filter((n) => n === 10).length).toBeGreaterThanOrEqual(1);
    expect(Object.values(nices).every((n) => n === 0 || n === 10)).toBe(true);
  }
}, 180_000);
