/**
 * The name guard's decisions over every pair of real tool names: the 191 university tools
 * (the eight mock servers) and the MCP reference servers' tools (filesystem, memory,
 * everything), listed from the servers themselves, and the development catalogs written as
 * files (workbench, polyglot) and in code (the dev suite's). For each name, the guard is
 * asked for it with that name removed from the catalog: whatever it corrects to must be a
 * typo of it, never a name that differs by a whole token, a reversing affix, a verb or
 * another word. The test's own judge (below) is written apart from src/guards/nameMatch.ts
 * on purpose; it shares only the English dictionary.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { load as loadYaml } from 'js-yaml';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { ToolRecord } from '../../src/catalog/types.js';
import { personasSchema } from '../../src/config/schema.js';
import { englishWords } from '../../src/curator/english.js';
import { loadCatalogFile } from '../../src/eval/catalogSuite.js';
import { DEV_TOOLS } from '../../src/eval/dev/catalog.js';
import { CORRECT_AT, nameGuard, nameRatio } from '../../src/guards/nameGuard.js';
import { compose } from '../../src/guards/types.js';
import { Policy } from '../../src/policy/policy.js';
import { ROOT } from '../helpers/reference.js';
import { University } from '../mock-servers/university.js';
import { ISSUE_29_PAIRS, ISSUE_PAIRS } from './fixtures.js';
import { context, recordingUpstream, text } from './helpers.js';

const REFERENCE = {
  filesystem: ['server-filesystem', 'dist/index.js'],
  memory: ['server-memory', 'dist/index.js'],
  everything: ['server-everything', 'dist/index.js', 'stdio'],
};

async function referenceTools(): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), 'tc-names-'));
  const names: string[] = [];
  for (const [server, [pkg, entry, ...args]] of Object.entries(REFERENCE)) {
    const client = new Client({ name: 'name-table', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [join(ROOT, 'node_modules/@modelcontextprotocol', pkg!, entry!), ...(server === 'filesystem' ? [dir] : args)],
        env: { ...(process.env as Record<string, string>), MEMORY_FILE_PATH: join(dir, 'memory.jsonl') },
        stderr: 'ignore',
      }),
    );
    names.push(...(await client.listTools()).tools.map((t) => t.name));
    await client.close();
  }
  return names;
}

// ---- The test's judge: does b differ from a by more than a typo would? ----
const words = (n: string) => n.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase().split(/[^a-z0-9]+/).filter(Boolean);
const AFFIXES = ['un', 'de', 'dis', 're', 'non', 'in', 'im'];
const VERBS = new Set(['get', 'list', 'read', 'search', 'post', 'put', 'set', 'update', 'create', 'add', 'delete', 'remove', 'cancel', 'undo', 'revoke', 'make', 'submit', 'apply', 'raise', 'register', 'enroll', 'drop', 'approve', 'reject', 'assign', 'publish', 'issue', 'return', 'renew', 'book', 'pay', 'mark', 'enter', 'generate', 'upload', 'download', 'write', 'edit', 'move', 'open', 'close', 'start', 'stop', 'enable', 'disable', 'verify', 'view', 'check']);
function lev(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) for (let j = 1; j <= b.length; j++) d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
  return d[a.length]![b.length]!;
}
const english = englishWords();
/** Two spellings of one word: equal, or one is the other plus "s"/"es". */
const sameWord = (p: string, q: string) => p === q || p === `${q}s` || q === `${p}s` || p === `${q}es` || q === `${p}es`;
/** Why a → b is more than a typo, or undefined when it may be one. */
function meaningChange(a: string, b: string): string | undefined {
  const x = words(a);
  const y = words(b);
  if (x.length !== y.length) return x.join('') === y.join('') ? undefined : 'whole token';
  for (let i = 0; i < x.length; i++) {
    const [p, q] = [x[i]!, y[i]!];
    if (p === q) continue;
    if (AFFIXES.some((f) => p === f + q || q === f + p)) return 'reversing affix';
    if (VERBS.has(p) && VERBS.has(q)) return 'verb swap';
    if (lev(p, q) > 2) return 'whole token';
    if (!sameWord(p, q) && english(p) && english(q)) return 'another word';
    if (Math.max(p.length, q.length) <= 3 && p.length === q.length && [...p].sort().join('') !== [...q].sort().join('')) return 'another short token';
  }
  return undefined;
}

const record = (name: string, i: number): ToolRecord => ({ server: `s${i}`, name, upstreamName: name, description: '', inputSchema: { type: 'object' }, isAction: false });
const open = new Policy({});

async function decide(requested: string, catalog: ToolRecord[]): Promise<{ corrected?: string; text: string }> {
  const up = recordingUpstream();
  const ctx = context(requested, {}, { persona: undefined });
  const result = await compose([nameGuard(() => catalog, open)], up.forward)(ctx);
  return { ...(up.calls[0] && { corrected: up.calls[0].tool }), text: text(result) };
}

describe('correction decisions over every pair of university and reference tool names', () => {
  let names: string[] = [];
  const university = new University();

  beforeAll(async () => {
    await university.start();
    const files = ['workbench-catalog.yaml', 'polyglot-catalog.yaml'].flatMap((f) => loadCatalogFile(join(ROOT, 'eval', f)).map((t) => t.name));
    names = [...new Set([...university.tools.map((t) => t.name), ...(await referenceTools()), ...files, ...DEV_TOOLS.map((t) => t.name)])].sort();
  }, 120_000);
  afterAll(async () => {
    await university.stop();
  });

  test('the catalog is the 191 university tools, the reference servers’ tools and the development catalogs', () => {
    expect(university.tools).toHaveLength(191);
    expect(names.length).toBeGreaterThan(191 + 20 + 80);
  });

  test('no name is silently corrected to a name differing by a whole token, a reversing affix or a verb', async () => {
    const catalog = names.map(record);
    const pairsOver = names.flatMap((a) => names.filter((b) => b !== a && nameRatio(b, a) >= CORRECT_AT).map((b) => [a, b] as const));
    const meaningful = pairsOver.filter(([a, b]) => meaningChange(a, b));
    // The table's summary (docs/SAFETY.md): pairs at or over 0.82, and those that differ in meaning.
    console.log(`name table: ${names.length} names, ${pairsOver.length} ordered pairs ≥ ${CORRECT_AT}, ${meaningful.length} of them differ in meaning`);
    expect(meaningful.length).toBeGreaterThan(0);
    const wrong: string[] = [];
    for (const a of names) {
      const d = await decide(a, catalog.filter((t) => t.name !== a));
      const why = d.corrected && meaningChange(a, d.corrected);
      if (why) wrong.push(`${a} → ${d.corrected} (${why})`);
    }
    expect(wrong).toEqual([]);
  });

  test.each(ISSUE_PAIRS)('the issue’s pair %s → %s: never corrected onto it; "did you mean" when no typo of the name exists', async (asked, near) => {
    const full = [...names.filter((n) => n !== asked), ...(names.includes(near) ? [] : [near])];
    // The university has post_announcement and get_event_registrations: a plural slip, rightly corrected.
    const d = await decide(asked, full.map(record));
    expect(d.corrected).not.toBe(near);
    if (d.corrected) expect(meaningChange(asked, d.corrected), d.corrected).toBeUndefined();
    // Without such a sibling (as for a persona that may not use it), nothing runs at all.
    const withoutTypos = full.filter((n) => meaningChange(asked, n) !== undefined || nameRatio(n, asked) < CORRECT_AT);
    const strict = await decide(asked, withoutTypos.map(record));
    expect(strict.corrected).toBeUndefined();
    expect(strict.text).toMatch(new RegExp(`^unknown tool ${asked}; did you mean [a-z_, ]*\\b${near}\\b`));
  });

  test('issue 29’s kind: a name cut to the prefix of a longer one is refused, never corrected', async () => {
    const catalog = names.map(record);
    const known = new Set(names.map((n) => words(n).join('_')));
    const prefixes = new Set<string>();
    for (const n of names) {
      const w = words(n);
      for (let k = 2; k < w.length; k++) if (!known.has(w.slice(0, k).join('_'))) prefixes.add(w.slice(0, k).join('_'));
    }
    const wrong: string[] = [];
    let refused = 0;
    for (const p of prefixes) {
      const d = await decide(p, catalog);
      // A prefix may be a plural slip of a name of its own (get_exam_result → get_exam_results), never cut from a longer one.
      if (d.corrected && meaningChange(p, d.corrected)) wrong.push(`${p} → ${d.corrected}`);
      if (!d.corrected) {
        refused++;
        expect(d.text, p).toMatch(new RegExp(`^unknown tool ${p}; `));
      }
    }
    console.log(`name table: ${prefixes.size} prefixes of longer names asked for, ${refused} refused, ${prefixes.size - refused} corrected as slips of a name of their own`);
    expect(prefixes.size).toBeGreaterThan(100);
    expect(wrong).toEqual([]);
  });

  test('issue 29’s kind: a token replaced by another word is never corrected, however few letters differ', async () => {
    const catalog = names.map(record);
    const swaps = names.flatMap((a) => names.filter((b) => b !== a && meaningChange(a, b) === 'another word').map((b) => [a, b] as const));
    const over = swaps.filter(([a, b]) => nameRatio(b, a) >= CORRECT_AT);
    console.log(`name table: ${swaps.length} ordered pairs differ by another word, ${over.length} of them at ratio ≥ ${CORRECT_AT}`, over.map(([a, b]) => `${a} → ${b}`).join(', '));
    // get_fee_collection_report ↔ get_fine_collection_report, line_chart ↔ pie_chart, search_nodes ↔ search_notes (0.917, a typo before).
    expect(over.length).toBeGreaterThan(0);
    for (const [a, b] of over) expect((await decide(a, catalog.filter((t) => t.name !== a))).corrected, `${a} → ${b}`).not.toBe(b);
  });

  test.each(ISSUE_29_PAIRS)('issue 29: %s as the default persona (student) is refused, "did you mean" offering %s', async (asked, near) => {
    const personas = personasSchema.parse(loadYaml(readFileSync(join(ROOT, 'personas.yaml'), 'utf8')));
    const tools: ToolRecord[] = university.tools.map((t) => ({ server: t.server, name: t.name, upstreamName: t.name, description: t.description ?? '', inputSchema: { type: 'object' }, isAction: false }));
    const up = recordingUpstream();
    const ctx = context(asked, {}, { persona: 'student' });
    const result = await compose([nameGuard(() => tools, new Policy(personas))], up.forward)(ctx);
    expect(up.calls).toEqual([]);
    expect(ctx.decisions).toEqual(['refused']);
    expect(text(result)).toMatch(new RegExp(`^unknown tool ${asked}; did you mean [a-z_, ]*\\b${near}\\b[a-z_, ]*\\? Nothing was run`));
  });

  test('real typos (a letter dropped, doubled or two swapped) are corrected back, never onto another tool', async () => {
    const catalog = names.map(record);
    const known = new Set(names);
    let tried = 0;
    let back = 0;
    const elsewhere: string[] = [];
    for (const name of names) {
      const tokens = name.split('_');
      const longest = tokens.reduce((m, t, i) => (t.length > tokens[m]!.length ? i : m), 0);
      const t = tokens[longest]!;
      if (t.length < 5) continue;
      const at = t.length >> 1;
      for (const typo of [t.slice(0, at) + t.slice(at + 1), t.slice(0, at) + t[at] + t.slice(at), t.slice(0, at - 1) + t[at] + t[at - 1] + t.slice(at + 1)]) {
        const asked = tokens.map((x, i) => (i === longest ? typo : x)).join('_');
        if (known.has(asked)) continue;
        tried++;
        const d = await decide(asked, catalog);
        if (d.corrected === name) back++;
        else if (d.corrected) elsewhere.push(`${asked} → ${d.corrected} (meant ${name})`);
      }
    }
    console.log(`name table: ${back} of ${tried} generated typos corrected back`);
    expect(elsewhere).toEqual([]);
    expect(tried).toBeGreaterThan(400);
    expect(back / tried).toBeGreaterThan(0.9);
  });
});
