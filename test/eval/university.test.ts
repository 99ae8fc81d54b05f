/**
 * The university suite file (eval/university.yaml) against the real catalog of the eight
 * university servers, spawned through the gateway with the repository's
 * gateway.config.yaml: size, categories, coverage of every tool, persona permissions,
 * dependency workflows, and the wording rules (no copied descriptions, synonyms or
 * exemplars; paraphrases share no content word with their tool). Also the loader's errors
 * and the slice the fast test runs.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { ToolRecord } from '../../src/catalog/types.js';
import { ConfigError, loadConfig, type LoadedConfig } from '../../src/config/load.js';
import { Gateway } from '../../src/gateway/gateway.js';
import { CATEGORIES, loadSuite, suiteProblems, universitySlice } from '../../src/eval/university.js';
import { ROOT } from '../helpers/reference.js';

const cases = loadSuite(join(ROOT, 'eval/university.yaml'));

/** Lower-case words (letters and digits); punctuation and apostrophes split words. */
const words = (text: string): string[] => text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];

/** Function words and request filler: sharing these is not sharing meaning. */
const STOPWORDS = new Set(
  ('a an the and or but if of to in on at for from by with about as into over up out off than then so too very just only also not no ' +
    'is am are was were be been being do does did done have has had i me my we us our you your he him his she her it its they them their ' +
    'this that these those there here what which who whom whose when where why how all any each every some can could will would should ' +
    'may might must s t d ll m re ve don didn can won isn want get got let make tell give show please need like know').split(' '),
);

/** Plural and -ed/-ing folding, enough to catch "offer"/"offered" and "class"/"classes". */
function stem(w: string): string {
  if (w.endsWith('ies') && w.length > 4) return `${w.slice(0, -3)}y`;
  if (w.endsWith('sses')) return w.slice(0, -2);
  if (w.endsWith('s') && !w.endsWith('ss') && w.length > 3) w = w.slice(0, -1);
  if (w.endsWith('ing') && w.length > 5) return w.slice(0, -3);
  if (w.endsWith('ed') && w.length > 4) return w.slice(0, -2);
  return w;
}

const contentStems = (text: string): Set<string> => new Set(words(text).filter((w) => !STOPWORDS.has(w)).map(stem));

function runs(text: string, n: number): string[] {
  const w = words(text);
  return w.slice(0, Math.max(0, w.length - n + 1)).map((_, i) => w.slice(i, i + n).join(' '));
}

/** The tool, then every tool its dependencies.yaml rules pull in, transitively, that `allowed` holds. */
function workflow(tool: string, deps: Record<string, string[]>, allowed: Set<string>): Set<string> {
  const out = new Set([tool]);
  const queue = [tool];
  while (queue.length > 0) {
    for (const d of deps[queue.shift()!] ?? []) {
      if (allowed.has(d) && !out.has(d)) {
        out.add(d);
        queue.push(d);
      }
    }
  }
  return out;
}

describe('eval/university.yaml', () => {
  let loaded: LoadedConfig;
  let gateway: Gateway;
  let byName: Map<string, ToolRecord>;
  const allowed = (persona: string): Set<string> => new Set(gateway.allowedFor(persona).map((t) => t.name));

  beforeAll(async () => {
    // The servers seed their own fixture database; a fresh one keeps parallel test files apart.
    process.env.UNIVERSITY_DB = join(mkdtempSync(join(tmpdir(), 'tc-univ-suite-')), 'university.db');
    loaded = loadConfig(join(ROOT, 'gateway.config.yaml'));
    gateway = await Gateway.start(loaded, { noEmbedder: true });
    byName = new Map(gateway.catalog.map((t) => [t.name, t]));
  });
  afterAll(async () => {
    await gateway?.close();
  });

  test('at least 281 cases in all seven categories, 1 to 4 expected tools each, no query twice', () => {
    expect(cases.length).toBeGreaterThanOrEqual(281);
    const perCategory = Object.fromEntries(CATEGORIES.map((c) => [c, cases.filter((x) => x.category === c).length]));
    for (const c of CATEGORIES) expect(perCategory[c], c).toBeGreaterThanOrEqual(25);
    expect(cases.every((c) => c.expected.length >= 1 && c.expected.length <= 4)).toBe(true);
    expect(new Set(cases.map((c) => c.query.toLowerCase())).size).toBe(cases.length);
  });

  test('every one of the 191 tools is expected in some case whose persona may use it', () => {
    expect(gateway.catalog).toHaveLength(191);
    const covered = new Set(cases.flatMap((c) => c.expected.filter((e) => allowed(c.persona).has(e))));
    expect(gateway.catalog.map((t) => t.name).filter((n) => !covered.has(n))).toEqual([]);
  });

  test('every action tool is asked for in an action case', () => {
    const asked = new Set(cases.filter((c) => c.category === 'action').flatMap((c) => c.expected));
    const actions = gateway.catalog.filter((t) => t.isAction).map((t) => t.name);
    expect(actions.length).toBeGreaterThanOrEqual(50);
    expect(actions.filter((n) => !asked.has(n))).toEqual([]);
  });

  test('every expected tool exists and is allowed for the case\'s persona', () => {
    expect(suiteProblems(cases, gateway.catalog, (p) => gateway.allowedFor(p), Object.keys(loaded.personas))).toEqual([]);
    // The check itself bites: a student cannot be expected to use an executive report.
    const wrong = [{ query: 'q', persona: 'student', expected: ['get_fee_collection_report', 'no_such_tool'], category: 'direct' }];
    expect(suiteProblems(wrong, gateway.catalog, (p) => gateway.allowedFor(p), Object.keys(loaded.personas))).toEqual([
      'cases.0: expected tool "get_fee_collection_report" is not allowed for student',
      'cases.0: expected tool "no_such_tool" is not in the catalog',
    ]);
  });

  test('dependency cases expect a rule\'s tool and exactly the workflow dependencies.yaml gives it for the persona', () => {
    const deps = loaded.dependencies;
    const heads = new Set<string>();
    for (const c of cases.filter((x) => x.category === 'dependency')) {
      const head = c.expected[0]!;
      expect(deps[head], `"${c.query}": ${head} has no dependencies.yaml rule`).toBeDefined();
      expect(new Set(c.expected), `"${c.query}"`).toEqual(workflow(head, deps, allowed(c.persona)));
      expect(c.expected.length, `"${c.query}" pulls in nothing for ${c.persona}`).toBeGreaterThan(1);
      heads.add(head);
    }
    // Every rule starts at least one workflow case.
    expect(Object.keys(deps).filter((d) => !heads.has(d))).toEqual([]);
  });

  test('no query shares a run of 5 consecutive words with a description, synonym string or exemplar', () => {
    const sources = [
      ...gateway.catalog.map((t) => t.description),
      ...Object.values(loaded.synonyms),
      ...Object.values(loaded.exemplars).flat(),
    ];
    expect(sources.length).toBeGreaterThan(191);
    const taken = new Set(sources.flatMap((s) => runs(s, 5)));
    const copied = cases.flatMap((c) => runs(c.query, 5).filter((r) => taken.has(r)).map((r) => `"${c.query}" ⊃ "${r}"`));
    expect(copied).toEqual([]);
    // The check itself bites: a query lifted from a description is caught.
    expect(runs('Returns the dates and courses of every class', 5).some((r) => taken.has(r))).toBe(true);
  });

  test('paraphrase cases share no content word with their tools\' names and descriptions', () => {
    const shared = cases
      .filter((c) => c.category === 'paraphrase')
      .flatMap((c) => {
        const tool = new Set(c.expected.flatMap((e) => [...contentStems(`${e.replace(/_/g, ' ')} ${byName.get(e)!.description}`)]));
        const common = [...contentStems(c.query)].filter((w) => tool.has(w));
        return common.length > 0 ? [`"${c.query}": ${common.join(', ')}`] : [];
      });
    expect(shared).toEqual([]);
  });
});

describe('loadSuite', () => {
  const write = (text: string): string => {
    const file = join(mkdtempSync(join(tmpdir(), 'tc-suite-')), 'suite.yaml');
    writeFileSync(file, text);
    return file;
  };

  test('a case with five expected tools is rejected with its key path', () => {
    const file = write('cases:\n  - { query: "q", persona: student, category: direct, expected: [a, b, c, d, e] }\n');
    expect(() => loadSuite(file)).toThrow(ConfigError);
    expect(() => loadSuite(file)).toThrow(`${file}: cases.0.expected: needs 1 to 4 expected tools`);
  });

  test('an unknown category and an unknown key are errors, not silently dropped', () => {
    expect(() => loadSuite(write('cases:\n  - { query: "q", persona: student, category: fuzzy, expected: [a] }\n'))).toThrow(/cases\.0\.category/);
    expect(() => loadSuite(write('cases:\n  - { query: "q", persona: student, category: direct, expected: [a], note: x }\n'))).toThrow(/cases\.0/);
  });

  test('a development suite names its own categories and may expect no tool', () => {
    const dev = write('categories: [no_match, exact_name]\ncases:\n  - { query: "zzzz", persona: student, category: no_match, expected: [] }\n');
    expect(loadSuite(dev)).toEqual([{ query: 'zzzz', persona: 'student', category: 'no_match', expected: [] }]);
    expect(() => loadSuite(write('categories: [no_match]\ncases:\n  - { query: "q", persona: student, category: direct, expected: [a] }\n'))).toThrow(/cases\.0\.category/);
    expect(() => loadSuite(write('cases:\n  - { query: "q", persona: student, category: direct, expected: [] }\n'))).toThrow('cases.0.expected: needs 1 to 4 expected tools');
    expect(loadSuite(join(ROOT, 'eval/dev-generalization.yaml'))).toHaveLength(92);
  });

  test('a missing file says so', () => {
    expect(() => loadSuite('/nonexistent/suite.yaml')).toThrow('/nonexistent/suite.yaml: suite file not found');
  });
});

describe('universitySlice', () => {
  test('about 60 cases, each category by its share, the same every time', () => {
    const slice = universitySlice(cases);
    expect(slice.length).toBeGreaterThanOrEqual(57);
    expect(slice.length).toBeLessThanOrEqual(63);
    for (const c of CATEGORIES) {
      const share = cases.filter((x) => x.category === c).length / cases.length;
      expect(Math.abs(slice.filter((x) => x.category === c).length - 60 * share), c).toBeLessThanOrEqual(1);
    }
    expect(universitySlice(cases)).toEqual(slice);
  });
});
