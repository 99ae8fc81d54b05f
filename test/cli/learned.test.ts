/**
 * `tool-curator learned list|forget` over a real (in-memory SQLite) store: learned pairs
 * and, with --all, pairs still gathering evidence; forget by filter, never without one.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { learningSchema } from '../../src/config/schema.js';
import { learnedCommand, type LearnedRow } from '../../src/cli/learned.js';
import { openStore, type Store } from '../../src/store/index.js';

const NOW = Date.UTC(2026, 11, 2, 10, 0);
const DAY = 86_400_000;

describe('learned command', () => {
  let store: Store;
  let out: string;
  let err: string;
  const io = { out: (t: string) => void (out += t), err: (t: string) => void (err += t) };
  const settings = { ...learningSchema.parse({}), enabled: true };
  const run = (...args: string[]) => learnedCommand(args, store.learned, settings, NOW, io);

  beforeEach(async () => {
    out = '';
    err = '';
    store = await openStore(':memory:');
    for (const u of ['u1', 'u2', 'u3']) await store.learned.add({ persona: 'student', userId: u, query: 'books i have out', tool: 'get_library_loans', at: NOW - DAY });
    await store.learned.add({ persona: 'student', userId: 'u1', query: 'my dinner', tool: 'get_mess_menu', at: NOW - DAY });
    await store.learned.add({ persona: 'faculty', userId: 'f1', query: 'books i have out', tool: 'get_library_loans', at: NOW - 200 * DAY });
  });
  afterEach(() => store.close());

  it('lists learned pairs; --all adds those still gathering evidence; evidence past the horizon is not shown', async () => {
    expect(await run('list', '--json')).toBe(0);
    expect(JSON.parse(out)).toEqual([{ persona: 'student', tenant: '', query: 'books i have out', tool: 'get_library_loans', users: 3, uses: 3, lastAt: NOW - DAY, learned: true }] satisfies LearnedRow[]);
    out = '';
    await run('list', '--all');
    expect(out.split('\n')[0]).toMatch(/^PERSONA\s+TENANT\s+TOOL\s+QUERY\s+USERS\s+USES\s+LAST USED \(UTC\)\s+STATUS$/);
    expect(out).toMatch(/student\s+-\s+get_library_loans\s+"books i have out"\s+3\s+3\s+2026-12-01 10:00\s+learned/);
    expect(out).toMatch(/student\s+-\s+get_mess_menu\s+"my dinner"\s+1\s+1\s+2026-12-01 10:00\s+1\/3 users/);
    expect(out).not.toContain('faculty');
  });

  it('forget deletes what matches its filters and refuses to run without one', async () => {
    expect(await run('forget')).toBe(2);
    expect(err).toMatch(/needs --persona, --tenant, --tool or --query/);
    expect(await run('forget', '--persona', 'student', '--tool', 'get_library_loans')).toBe(0);
    expect(out).toMatch(/^forgot 3 evidence rows;/);
    expect(await store.learned.pairs({ persona: 'faculty', minUsers: 1 })).toHaveLength(1);
    out = '';
    await run('forget', '--all');
    expect(out).toMatch(/^forgot 2 evidence rows;/);
  });
});
