/**
 * Compiles src/embedding (and what it imports) into a temporary folder, so tests can run
 * the embedders the way the gateway does: compiled, with the pool's `worker.js` beside `use.js`.
 * Nothing is written into the repository; the folder links to the repo's node_modules.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const repo = fileURLToPath(new URL('../../', import.meta.url));

/** A compiled copy of src/embedding; `dir` holds `src/embedding/*.js`. */
export interface CompiledEmbedding {
  dir: string;
  /** Absolute path of a compiled module, e.g. `module('use.js')`. */
  module(name: string): string;
  remove(): Promise<void>;
}

/** Runs tsc without type checking (the build checks types) on src/embedding/index.ts and worker.ts with the repo's compiler options. */
export async function compileEmbedding(): Promise<CompiledEmbedding> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'tool-curator-embedding-'));
  await symlink(path.join(repo, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
  await writeFile(path.join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
  const tsconfig = path.join(dir, 'tsconfig.json');
  await writeFile(tsconfig, JSON.stringify({
    extends: path.join(repo, 'tsconfig.json'),
    compilerOptions: { rootDir: repo, outDir: dir, sourceMap: false, noCheck: true },
    files: ['index.ts', 'worker.ts'].map((f) => path.join(repo, 'src/embedding', f)),
    include: [],
  }));
  const tsc = createRequire(import.meta.url).resolve('typescript/lib/tsc.js');
  await promisify(execFile)(process.execPath, [tsc, '-p', tsconfig]);
  return {
    dir,
    module: (name) => path.join(dir, 'src/embedding', name),
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}
