/**
 * The query worker gives back a batch of joined queries one per turn of the event loop
 * (src/embedding/pool.ts oneEachTurn), so the rankings waiting for them never run back to
 * back: compiled USE in a child process, 24 queries at once on one query worker, and a
 * ticker that marks every turn of the event loop. Asserted by order, never by time.
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
await use.close();
process.stdout.write(events.join(''));
`;

test('24 queries joined on one query worker come back one per event-loop turn', async () => {
  const texts = Array.from({ length: 24 }, (_, i) => `${TOOL_TEXTS[i % TOOL_TEXTS.length]} (query ${i})`);
  const script = path.join(compiled.dir, 'turns-child.mjs');
  await writeFile(script, child(pathToFileURL(compiled.module('use.js')).href));
  const { stdout } = await promisify(execFile)(process.execPath, [script, JSON.stringify(texts)], { timeout: 150_000 });
  expect(stdout.replace(/t/g, '')).toBe('q'.repeat(24));
  // Before: the 23 queries joined after the first resolved in one go ("qqq…").
  expect(stdout).not.toMatch(/qq/);
}, 180_000);
