/**
 * @huggingface/transformers is an optional peer dependency. In a process where it cannot
 * be resolved (a module resolve hook refuses it, as Node does for an absent package), the
 * `transformers` embedder fails with an error naming the package and how to install it,
 * and `auto` takes `use` at once, saying why. The built modules run in a child process.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { ROOT } from '../helpers/reference.js';

const HOOK = `export async function resolve(specifier, context, next) {
  if (specifier === '@huggingface/transformers') {
    const err = new Error(\`Cannot find package '@huggingface/transformers' imported from \${context.parentURL}\`);
    err.code = 'ERR_MODULE_NOT_FOUND';
    throw err;
  }
  return next(specifier, context);
}`;

const RUN = `
  import { register } from 'node:module';
  register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(HOOK)}));
  const { createEmbedder, embedderReason } = await import(${JSON.stringify(join(ROOT, 'dist/src/embedding/index.js'))});
  const out = {};
  try { await createEmbedder({ provider: 'transformers' }); } catch (err) { out.transformers = err.message; }
  const auto = await createEmbedder({ provider: 'auto', workers: 0 });
  out.auto = { id: auto.id, reason: embedderReason(auto) };
  await auto.close();
  process.stdout.write(JSON.stringify(out));
`;

it('without @huggingface/transformers: transformers names the package to install, auto takes use and says why', () => {
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', RUN], { encoding: 'utf8', timeout: 180_000 });
  expect(r.stderr).toBe('');
  const out = JSON.parse(r.stdout) as { transformers: string; auto: { id: string; reason: string } };
  expect(out.transformers).toBe(
    'the transformers embedder needs the npm package @huggingface/transformers, which is not installed: run `npm install @huggingface/transformers@^4.3.2` ' +
      '(where GitHub is unreachable, with ONNXRUNTIME_NODE_INSTALL=skip set), or use the embedder `use`, which needs nothing more (docs/LIBRARY.md, "Embedders")',
  );
  expect(out.auto).toMatchObject({ id: 'use:lite-512', reason: 'auto: @huggingface/transformers is not installed' });
}, 200_000);
