#!/usr/bin/env node
/**
 * Exits 0 when test/conformance/runner/node_modules holds exactly the versions its
 * package-lock.json pins (the conformance suite and the Node it runs on), 1 otherwise:
 * `npm run conformance:install` reinstalls then, so a checkout that had an older suite
 * installed gets the pinned one instead of keeping the old.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const lock = JSON.parse(readFileSync(join(here, 'package-lock.json'), 'utf8'));
const stale = ['@modelcontextprotocol/conformance', 'node'].filter((name) => {
  try {
    return JSON.parse(readFileSync(join(here, 'node_modules', name, 'package.json'), 'utf8')).version !== lock.packages[`node_modules/${name}`].version;
  } catch {
    return true;
  }
});
if (stale.length) process.stderr.write(`conformance runner: ${stale.join(', ')} not installed at the pinned version; installing\n`);
process.exit(stale.length ? 1 : 0);
