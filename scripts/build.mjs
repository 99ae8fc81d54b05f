// `npm run build` (also npm's `prepare`, so `npm ci` runs it): compiles src/, mock-servers/,
// bench/ and examples/ into dist/ with tsc and makes the CLI executable. It says on stderr
// what it does and how long it took, so a first build is not a silent wait. Incremental
// (dist/.tsbuildinfo): when nothing changed since the last build, tsc checks and writes
// nothing — npm runs this again when `npx tool-curator` is used inside the clone (it
// installs the project into its npx cache, hiding the script's output).
import { spawnSync } from 'node:child_process';
import { chmodSync } from 'node:fs';
import { createRequire } from 'node:module';

const started = performance.now();
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
process.stderr.write('tool-curator: compiling TypeScript into dist/ (tsc -p tsconfig.json, incremental) ...\n');
const r = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.json', '--incremental', '--tsBuildInfoFile', 'dist/.tsbuildinfo'], { stdio: 'inherit' });
if (r.status !== 0) {
  process.stderr.write(`tool-curator: tsc failed (exit ${r.status ?? r.signal})\n`);
  process.exit(r.status ?? 1);
}
chmodSync('dist/src/cli.js', 0o755);
process.stderr.write(`tool-curator: built dist/ in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
