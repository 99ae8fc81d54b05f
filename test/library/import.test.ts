/**
 * Importing the package loads no embedder: TF.js, ONNX Runtime and transformers.js are
 * resolved only when an embedder is created. A child process imports the built package by
 * its name (package.json `exports`) under a module-resolution hook that reports every heavy
 * module resolved (the embedder runtimes, and zod: the config schemas load on first use too). Timing is left to `npm run bench` (bench/library.ts).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
/** The embedder runtimes. */
const EMBEDDERS = /@tensorflow|onnxruntime|@huggingface/;
/** The embedder runtimes and zod (the config schemas): the entry point alone loads neither. */
const HEAVY = /@tensorflow|onnxruntime|@huggingface|node_modules\/zod\//;

function resolvedHeavy(script: string, heavy = EMBEDDERS): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'tc-import-'));
  const hook = join(dir, 'hook.mjs');
  writeFileSync(
    hook,
    `export async function resolve(s, c, next) { const r = await next(s, c); if (${heavy}.test(r.url)) process.stderr.write('HEAVY ' + r.url + '\\n'); return r; }\n`,
  );
  const register = join(dir, 'register.mjs');
  writeFileSync(register, `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(hook).href)});\n`);
  const run = spawnSync(process.execPath, ['--import', pathToFileURL(register).href, '--input-type=module', '-e', script], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, TOOL_CURATOR_LOG: 'silent' },
    timeout: 180_000,
  });
  expect(run.status, run.stderr).toBe(0);
  return run.stderr.split('\n').filter((l) => l.startsWith('HEAVY '));
}

describe('package entry point', () => {
  it('imports the entry point without an embedder runtime or the config schemas', { timeout: 200_000 }, () => {
    const heavy = resolvedHeavy(
      `const m = await import('tool-curator');
       if (typeof m.ToolSelector.create !== 'function' || typeof m.createCurator !== 'function') process.exit(3);`,
      HEAVY,
    );
    expect(heavy).toEqual([]);
  });

  it('imports every adapter without loading an embedder', { timeout: 200_000 }, () => {
    const heavy = resolvedHeavy(`for (const a of ['ai', 'langchain', 'openai-agents', 'mcp']) await import('tool-curator/' + a);`);
    expect(heavy).toEqual([]);
  });

  it('loads TF.js once the USE embedder is created', { timeout: 200_000 }, () => {
    const heavy = resolvedHeavy(
      `const { createEmbedder } = await import('tool-curator');
       const e = await createEmbedder({ provider: 'use', workers: 0 });
       const v = await e.embedQuery('pay my fees');
       if (v.length !== e.dim) process.exit(4);
       await e.close();`,
    );
    expect(heavy.some((l) => l.includes('@tensorflow/tfjs-core'))).toBe(true);
  });
});
