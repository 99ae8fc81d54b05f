/**
 * watchFiles: a watched file's edits are seen whether it is written in place, replaced
 * by a rename (an editor's save) or deleted and created again, among writes to another
 * file in its folder (the store beside gateway.config.yaml). Real files, real inotify;
 * waits are explicit (the next reported change), never a fixed sleep.
 */
import { mkdtempSync, renameSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { watchFiles } from '../../src/gateway/fileWatch.js';

const WAIT_MS = 30_000;

describe('watchFiles', () => {
  const cleanup: (() => void)[] = [];
  afterEach(() => {
    for (const c of cleanup.splice(0)) c();
  });

  /** A folder with personas.yaml and store.db, personas.yaml watched; `next()` resolves with the next reported file. */
  function setup() {
    const dir = mkdtempSync(join(tmpdir(), 'tc-filewatch-'));
    const watched = join(dir, 'personas.yaml');
    const sibling = join(dir, 'store.db');
    writeFileSync(watched, 'a: 1\n');
    writeFileSync(sibling, 'x');
    const reported: string[] = [];
    const errors: string[] = [];
    let wake: (() => void) | undefined;
    const stop = watchFiles([watched], (f) => {
      reported.push(f);
      wake?.();
    }, (f, err) => errors.push(`${f}: ${err.message}`));
    cleanup.push(stop, () => rmSync(dir, { recursive: true, force: true }));
    /** Waits until more than `seen` changes were reported. */
    const after = async (seen: number) => {
      const deadline = Date.now() + WAIT_MS;
      while (reported.length <= seen) {
        if (Date.now() > deadline) throw new Error(`no change reported within ${WAIT_MS} ms (reported so far: ${reported.join(', ')})`);
        await new Promise<void>((r) => {
          wake = r;
          setTimeout(r, 200);
        });
      }
    };
    return { dir, watched, sibling, reported, errors, after };
  }

  it('reports in-place edits of the file, among writes to another file beside it', async () => {
    const { watched, sibling, reported, errors, after } = setup();
    for (let i = 0; i < 20; i++) writeFileSync(sibling, `x${i}`);
    writeFileSync(watched, 'a: 2\n');
    await after(0);
    expect(new Set(reported)).toEqual(new Set([watched]));
    expect(errors).toEqual([]);
  });

  it('keeps watching a file replaced by a rename, and one deleted and created again', async () => {
    const { dir, watched, sibling, reported, errors, after } = setup();
    const temp = join(dir, '.personas.yaml.swp');
    writeFileSync(temp, 'a: 3\n');
    renameSync(temp, watched);
    await after(0);

    // The watch followed the path to the new file: an in-place edit of it is seen too.
    let seen = reported.length;
    writeFileSync(sibling, 'y');
    writeFileSync(watched, 'a: 4\n');
    await after(seen);

    seen = reported.length;
    unlinkSync(watched);
    await after(seen);
    seen = reported.length;
    writeFileSync(sibling, 'z');
    writeFileSync(watched, 'a: 5\n');
    await after(seen);
    seen = reported.length;
    writeFileSync(watched, 'a: 6\n');
    await after(seen);

    expect(new Set(reported)).toEqual(new Set([watched]));
    expect(errors).toEqual([]);
  });
});
