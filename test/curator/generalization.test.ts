/**
 * Issue 12's mechanisms, each alone and through the curator: exact names, the limit as a
 * maximum, no-match honesty, scripts the catalog does not use.
 */
import { describe, expect, test } from 'vitest';
import { createCurator } from '../../src/curator/index.js';
import { ExactNames } from '../../src/curator/exactNames.js';
import { reserveOf } from '../../src/curator/expand.js';
import { withinLimit } from '../../src/curator/limit.js';
import { judgeMatch, matchSignals, NO_MATCH_FLOORS, noMatchFloor, scriptNotice, weakMatchList, WEAK_MATCH_MAX } from '../../src/curator/noMatch.js';
import type { Ranking } from '../../src/curator/retrieve.js';
import { ScriptProfile, scriptCounts } from '../../src/curator/script.js';
import { findResult } from '../../src/gateway/metaTools.js';
import { fakeEmbedder, tool } from './fakeEmbedder.js';

const names = (s: { tools: { name: string }[] }): string[] => s.tools.map((t) => t.name);

describe('ExactNames', () => {
  const catalog = [
    { name: 'get_exam_results', upstreamName: 'get_exam_results', server: 'examinations' },
    { name: 'get_exam_result_statistics', upstreamName: 'get_exam_result_statistics', server: 'examinations' },
    { name: 'search', upstreamName: 'search', server: 'web' },
    { name: 'files__read_file', upstreamName: 'read_file', server: 'files' },
    { name: 'notes__read_file', upstreamName: 'read_file', server: 'notes' },
  ];
  const exact = new ExactNames(catalog);

  test('plain, server-qualified and collision-prefixed spellings, case-insensitive, trailing punctuation ignored', () => {
    expect(exact.match('get_exam_results').map((n) => n.index)).toEqual([0]);
    expect(exact.match('run examinations.get_exam_result_statistics.').map((n) => n.index)).toEqual([1]);
    expect(exact.match('Examinations__Get_Exam_Results please').map((n) => n.index)).toEqual([0]);
    expect(exact.match('use `notes__read_file`').map((n) => n.index)).toEqual([4]);
  });

  test('several names come back in the order the query names them, each once', () => {
    expect(exact.match('get_exam_result_statistics, then get_exam_results, then get_exam_result_statistics again')).toEqual([
      { index: 1, position: 0 },
      { index: 0, position: 33 },
    ]);
  });

  test('a bare upstream name names every server\'s tool of that name', () => {
    expect(exact.match('read_file').map((n) => n.index)).toEqual([3, 4]);
  });

  test('a one-word name counts only when it is the whole query; a name part is not the name', () => {
    expect(exact.match('search the web for news')).toEqual([]);
    expect(exact.match('search').map((n) => n.index)).toEqual([2]);
    expect(exact.match('get exam results')).toEqual([]);
    expect(exact.match('get_exam_results_v2')).toEqual([]);
  });

  test('tools outside the allowed mask are never named', () => {
    expect(exact.match('get_exam_results and get_exam_result_statistics', Uint8Array.from([0, 1, 0, 0, 0])).map((n) => n.index)).toEqual([1]);
  });
});

describe('withinLimit', () => {
  const deps = new Map([[5, [2, 3]], [3, [9]]]);
  test('dependencies follow their tool, transitively, and the list stops at the limit', () => {
    expect(withinLimit([5, 1, 7], ['retrieval', 'retrieval', 'anchor'], deps, () => true, 4)).toEqual({
      tools: [5, 2, 3, 9], addedBy: ['retrieval', 'dependency', 'dependency', 'dependency'], cut: [1, 7],
    });
  });
  test('dependencies pulled in transitively, once each, only usable ones', () => {
    const cyclic = new Map([[5, [2, 3]], [3, [9, 5]], [1, [4]]]);
    expect(withinLimit([5, 1], ['retrieval', 'retrieval'], cyclic, (i) => i !== 4, 10).tools).toEqual([5, 2, 3, 9, 1]);
  });
  test('unusable dependencies are skipped; a list within the limit is whole', () => {
    expect(withinLimit([1, 5], ['retrieval', 'split'], deps, (i) => i !== 3, 10)).toEqual({ tools: [1, 5, 2], addedBy: ['retrieval', 'split', 'dependency'], cut: [] });
  });
  test('the reserve a confident ranking keeps back: min(5, ⌊limit / 3⌋)', () => {
    expect([1, 2, 3, 5, 12, 15, 17, 50].map(reserveOf)).toEqual([0, 0, 1, 1, 4, 5, 5, 5]);
  });
});

describe('ScriptProfile', () => {
  const english = new ScriptProfile(['Returns a student\'s outstanding fee dues', 'Renews a library book loan']);
  test('letters are counted per script', () => {
    expect(Object.fromEntries(scriptCounts('図書館 loan ёж'))).toEqual({ Han: 3, Latin: 4, Cyrillic: 2 });
  });
  test('a query mostly in scripts the catalog lacks is foreign, most letters first', () => {
    expect(english.used).toEqual(['Latin']);
    expect(english.foreign('図書館で借りた本を延長したい')).toEqual(['Han', 'Hiragana']);
    expect(english.foreign('расписание занятий')).toEqual(['Cyrillic']);
    expect(english.foreign('मेरी फीस')).toEqual(['Devanagari']);
  });
  test('Latin-script languages, mixed queries with mostly Latin letters and letterless queries are not', () => {
    expect(english.foreign('xem điểm của tôi')).toEqual([]);
    expect(english.foreign('renew 本')).toEqual([]);
    expect(english.foreign('1234 !!')).toEqual([]);
  });
  test('a catalog with a tool described in Chinese uses Han', () => {
    const mixed = new ScriptProfile(['Search the web for pages about a topic', '根据关键词搜索网页并返回标题链接和摘要内容结果列表等信息']);
    expect(mixed.used).toEqual(['Latin', 'Han']);
    expect(mixed.foreign('搜索网页')).toEqual([]);
  });
});

describe('judgeMatch', () => {
  const { floor, separation } = NO_MATCH_FLOORS['use:']!;
  test('USE Lite\'s measured floor and separation (docs/CURATOR.md, "No-match floor")', () => {
    expect(noMatchFloor('use:lite-512')).toEqual({ floor: 0.33, separation: { from: 0.28, gap: 0.15 } });
  });
  test('no BM25 term and a dense score under the embedder\'s floor: no match, with a message saying how to rephrase', () => {
    const verdict = judgeMatch({ coverage: 0, denseTop: floor - 0.01, denseMedian: floor - 0.1 }, 'use:lite-512');
    expect(verdict?.reason).toBe('no-match');
    expect(verdict?.message).toMatch(/^No tool matches this request well.*Rephrase it .*naming the action and the object/);
  });
  test('any BM25 evidence, or a dense score at the floor, is a match', () => {
    expect(judgeMatch({ coverage: 0.05, denseTop: 0.1 }, 'use:lite-512')).toBeUndefined();
    expect(judgeMatch({ coverage: 0, denseTop: floor }, 'use:lite-512')).toBeUndefined();
  });
  test('under the floor, a best tool standing the gap clear of the median tool is a match, from the separation\'s lower bound up', () => {
    const top = 0.3;
    expect(judgeMatch({ coverage: 0, denseTop: top, denseMedian: top - separation!.gap }, 'use:lite-512')).toBeUndefined();
    expect(judgeMatch({ coverage: 0, denseTop: top, denseMedian: top - separation!.gap + 0.01 }, 'use:lite-512')?.reason).toBe('no-match');
    expect(judgeMatch({ coverage: 0, denseTop: separation!.from - 0.01, denseMedian: 0 }, 'use:lite-512')?.reason).toBe('no-match');
    expect(judgeMatch({ coverage: 0, denseTop: top }, 'use:lite-512')?.reason).toBe('no-match');
  });
  test('an embedder without a measured floor is never judged on similarity; BM25 alone is judged on its silence', () => {
    expect(noMatchFloor('openai:text-embedding-3-small')).toBeUndefined();
    expect(judgeMatch({ coverage: 0, denseTop: 0.01 }, 'openai:text-embedding-3-small')).toBeUndefined();
    expect(judgeMatch({ coverage: 0 }, undefined)?.reason).toBe('no-match');
  });
  test('another script: no match with an English-only embedder whatever its score; a multilingual one that matches gets a notice', () => {
    const japanese = { coverage: 0, denseTop: 0.9, foreignScripts: ['Han', 'Hiragana'] };
    expect(judgeMatch(japanese, 'use:lite-512')).toEqual({
      reason: 'script',
      message: expect.stringMatching(/^No tool matches well: the request is written in Han, Hiragana script, which this catalog's tool descriptions do not use\. Rephrase/),
    });
    expect(judgeMatch(japanese, 'transformers:Xenova/bge-small-en-v1.5:q8:cls')?.reason).toBe('script');
    expect(judgeMatch(japanese, 'transformers:Xenova/multilingual-e5-small:q8:mean')).toBeUndefined();
    expect(scriptNotice(japanese)).toMatch(/written in Han, Hiragana script.*only the embedding model matched it/);
    expect(scriptNotice({ coverage: 0.5 })).toBeUndefined();
  });
  test('matchSignals reads the median dense score of the scored tools only when BM25 matched no word', () => {
    const score = Float32Array.from([0.1, 0.9, 0.3, 0.5, 0.2]);
    const dense = { indices: Int32Array.from([1, 3, 2, 0]), similarities: Float32Array.from([0.9, 0.5, 0.3, 0.1]), pool: Int32Array.from([0, 1, 2, 3]), score, min: 0.1, max: 0.9, approximate: false };
    const ranking = (coverage: number): Ranking => ({ order: [1, 3, 2, 0], score: [], rrf: [], fused: [], best: [], bm25: [], dense, coverage });
    expect(matchSignals(ranking(0), [])).toEqual({ coverage: 0, denseTop: 0.9, denseMedian: 0.3 });
    expect(matchSignals(ranking(0.4), [])).toEqual({ coverage: 0.4, denseTop: 0.9 });
  });
  test('the weak-match list: the first three tools that change nothing', () => {
    const tools = [tool('accept_offer', 'x'), tool('get_offers', 'x'), tool('decline_offer', 'x'), tool('get_a', 'x'), tool('get_b', 'x'), tool('get_c', 'x')];
    tools[0]!.isAction = true;
    tools[2]!.isAction = true;
    expect(weakMatchList([0, 1, 2, 3, 4, 5], tools, 17)).toEqual([1, 3, 4]);
    expect(weakMatchList([0, 1, 2, 3], tools, 2)).toEqual([1, 3]);
    expect(WEAK_MATCH_MAX).toBe(3);
  });
});

describe('through the curator', () => {
  const CATALOG = [
    tool('get_exam_results', 'declared result of one term: grade and pass or fail per course'),
    tool('get_exam_result_statistics', 'per course result statistics of one term: pass rate and mean grade'),
    tool('get_exam_schedule', 'the student own exams this term with dates and halls'),
    tool('get_fee_dues', 'outstanding tuition fees owed'),
    tool('make_payment', 'pay a fee by card'),
    tool('accept_offer', 'accept a pending job offer'),
    tool('decline_offer', 'decline a pending job offer'),
    tool('get_placement_offers', 'job offers of a student'),
    tool('search_library_catalogue', 'find books in the library'),
    tool('renew_book_loan', 'extend the due date of a borrowed book'),
    tool('get_mess_menu', 'dining hall menu this week'),
    tool('get_grades', 'letter grades per course'),
  ];
  for (const t of CATALOG) t.isAction = /^(make|accept|decline|renew)_/.test(t.name);
  const curator = async () => {
    const c = createCurator({ mode: 'hybrid', embedder: fakeEmbedder(), lowConfidenceThreshold: 2 });
    await c.buildIndex(CATALOG, { dependencies: { make_payment: ['get_fee_dues'] } });
    return c;
  };

  test('a query that is one name ranks it first over the look-alike that shares its name tokens', async () => {
    const s = await (await curator()).select('get_exam_result_statistics', CATALOG, { topK: 4, explain: true });
    expect(names(s)[0]).toBe('get_exam_result_statistics');
    expect(s.explanations![0]!.addedBy).toBe('exact-name');
  });

  test('several names all come first, in the query\'s order, even past the limit\'s confident part', async () => {
    const s = await (await curator()).select('get_mess_menu, get_grades and examinations.get_exam_results', CATALOG, { topK: 3 });
    expect(names(s)).toEqual(['get_mess_menu', 'get_grades', 'get_exam_results']);
  });

  test('no list is longer than the limit, dependencies included, and the cut is reported', async () => {
    const c = await curator();
    for (const topK of [1, 2, 3, 5, 8]) {
      const s = await c.select('pay my fees by card and then show my exam results', CATALOG, { topK });
      expect(s.tools.length, `limit ${topK}`).toBeLessThanOrEqual(topK);
      expect(new Set([...names(s), ...(s.cut ?? [])]).size).toBe(names(s).length + (s.cut?.length ?? 0));
    }
    const two = await c.select('make_payment', CATALOG, { topK: 2 });
    expect(names(two)).toEqual(['make_payment', 'get_fee_dues']);
  });

  test('nonsense: at most three tools, none state-changing, with the no-match message', async () => {
    const c = createCurator({ mode: 'bm25', embedder: null });
    await c.buildIndex(CATALOG);
    const s = await c.select('flibbertigibbet wumpus', CATALOG, { topK: 8 });
    expect(s.noMatch?.reason).toBe('no-match');
    expect(s.tools.length).toBeLessThanOrEqual(3);
    expect(s.tools.some((t) => t.isAction)).toBe(false);
    const ok = await c.select('renew my library book', CATALOG, { topK: 5 });
    expect(ok.noMatch).toBeUndefined();
  });

  test('a Japanese query against an English catalog with an English-only embedder says so', async () => {
    const embedder = { ...fakeEmbedder(512, 'use:fake') };
    const c = createCurator({ mode: 'hybrid', embedder });
    await c.buildIndex(CATALOG);
    const s = await c.select('図書館の本を延長したい', CATALOG, { topK: 10 });
    expect(s.noMatch?.reason).toBe('script');
    expect(s.match?.foreignScripts).toEqual(['Han', 'Hiragana']);
    expect(names(s).length).toBeLessThanOrEqual(3);
    expect(s.tools.some((t) => t.isAction)).toBe(false);
  });
});

describe('find_tools result', () => {
  const t = (name: string) => tool(name, 'x');
  test('at most limit tools; the cut named with the limit that returns it', () => {
    const r = findResult({ tools: [t('a'), t('b'), t('c')], confidence: 0.8, mode: 'hybrid', cut: ['d'] }, 2);
    expect(r.shown.map((x) => x.name)).toEqual(['a', 'b']);
    expect(r.fields).toEqual({ cut: ['c', 'd'], hint: 'These 2 tools did not fit limit 2; find_tools with limit 4 would return them too.' });
  });
  test('a no-match carries its message; nothing cut, no cut field', () => {
    const r = findResult({ tools: [t('a')], confidence: 0.1, mode: 'hybrid', noMatch: { reason: 'no-match', message: 'No tool matches.' } }, 5);
    expect(r.fields).toEqual({ message: 'No tool matches.' });
  });
});
