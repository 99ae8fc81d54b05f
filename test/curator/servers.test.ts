/**
 * Server-level evidence (servers.ts): one BM25 document per server lifts that server's
 * tools, for requests of several steps only; the mechanisms `CuratorOptions.off` switches
 * off; dense mode's no-match judgement with BM25's evidence.
 */
import { describe, expect, test } from 'vitest';
import { retrievalFields } from '../../src/catalog/retrievalText.js';
import type { ToolRecord } from '../../src/catalog/types.js';
import { createCurator } from '../../src/curator/index.js';
import { ServerMap, SERVER_LIFT } from '../../src/curator/servers.js';
import { splitQuery } from '../../src/curator/split.js';
import { fakeEmbedder, tool } from './fakeEmbedder.js';

const on = (server: string, t: ToolRecord, serverTitle?: string): ToolRecord => ({ ...t, server, ...(serverTitle && { serverTitle }) });

/** Three servers: a word processor, charts, files. */
const TOOLS: ToolRecord[] = [
  on('docs', tool('new_document', 'Start an empty word-processing document.'), 'Word Processor'),
  on('docs', tool('add_table', 'Insert a table built from rows of cell values.')),
  on('docs', tool('convert_to_pdf', 'Turn a .docx document into a PDF file.')),
  on('docs', tool('add_heading', 'Insert a heading of a given level.')),
  on('charts', tool('bar_chart', 'Bar chart of values per category.')),
  on('charts', tool('pie_chart', 'Pie chart of shares of a whole.')),
  on('charts', tool('table_chart', 'Render values as a chart image.')),
  on('files', tool('write_file', 'Create a file with the given content.')),
  on('files', tool('read_file', 'Return the content of a file.')),
  on('files', tool('list_directory', 'Entries of a folder.')),
  on('web', tool('web_search', 'Search the web for pages.')),
  on('web', tool('fetch_page', 'Download a web page as text.')),
];

const build = (tools: ToolRecord[]) => ServerMap.build(tools, tools.map((t) => retrievalFields(t)));

describe('ServerMap', () => {
  test('a catalog of one server has no server evidence', () => {
    expect(build([tool('a', 'one'), tool('b', 'two')])).toBeUndefined();
  });

  test('the server that explains most of the request lifts each of its tools by the full weight; others by their share', () => {
    const servers = build(TOOLS)!;
    const lift = servers.lift('a Word document with a heading and a table, and a PDF copy', SERVER_LIFT)!;
    const docs = TOOLS.flatMap((t, i) => (t.server === 'docs' ? [lift(i)] : []));
    expect(docs).toEqual([SERVER_LIFT, SERVER_LIFT, SERVER_LIFT, SERVER_LIFT]);
    const charts = lift(TOOLS.findIndex((t) => t.name === 'bar_chart'));
    expect(charts).toBeGreaterThan(0); // "table" is in table_chart's name
    expect(charts).toBeLessThan(SERVER_LIFT);
    expect(lift(TOOLS.findIndex((t) => t.name === 'web_search'))).toBe(0);
    expect(servers.lift('zebra', SERVER_LIFT)).toBeUndefined();
  });

  test('a word only in a server\'s title counts for the server', () => {
    const lift = build(TOOLS)!.lift('processor', 1)!;
    expect(lift(TOOLS.findIndex((t) => t.name === 'add_heading'))).toBe(1);
    expect(lift(TOOLS.findIndex((t) => t.name === 'read_file'))).toBe(0);
  });
});

describe('server evidence through the curator', () => {
  const request = 'We owe the board a summary. Put the numbers into a Word document with a table. Also send them a PDF version.';
  const shortlist = async (off: 'servers'[], query: string): Promise<string[]> => {
    const curator = createCurator({ mode: 'hybrid', embedder: fakeEmbedder(), off });
    await curator.buildIndex(TOOLS);
    return (await curator.select(query, TOOLS, { topK: 6 })).tools.map((t) => t.name);
  };

  test('a request of several sentences: the word processor\'s tools fill the head of the list', async () => {
    const without = await shortlist(['servers'], request);
    const withServers = await shortlist([], request);
    expect(without.slice(0, 4)).not.toContain('add_table');
    expect(withServers.slice(0, 4).sort()).toEqual(['add_heading', 'add_table', 'convert_to_pdf', 'new_document']);
  });

  test('a one-sentence ask is ranked by its tools alone', async () => {
    const one = 'insert a table of cell values';
    expect(await shortlist([], one)).toEqual(await shortlist(['servers'], one));
  });
});

describe('mechanisms switched off', () => {
  test('result-steps off: a save step stays in its part', () => {
    expect(splitQuery('check the forecast and save it to /a/b.md')).toEqual(['check the forecast', 'save it to file']);
    expect(splitQuery('check the forecast and save it to /a/b.md', false)).toEqual(['check the forecast and save it to /a/b.md']);
  });

  test('spelling off: a misspelled word finds nothing', async () => {
    for (const [off, found] of [[[], true], [['spelling' as const], false]] as const) {
      const curator = createCurator({ mode: 'bm25', embedder: null, off });
      await curator.buildIndex(TOOLS);
      const s = await curator.select('downlaod', TOOLS, { topK: 3 });
      expect(s.tools[0]?.name === 'fetch_page').toBe(found);
    }
  });
});

describe('no-match judgement in dense mode', () => {
  test('a query BM25 matches is not called unmatched because the dense score is low', async () => {
    // an embedder id with a measured floor (USE Lite's 0.33), so the rule can fire
    const query = 'pie zebra quartz violin mango tundra';
    const dense = createCurator({ mode: 'dense', embedder: fakeEmbedder(512, 'use:fake') });
    await dense.buildIndex(TOOLS);
    const s = await dense.select(query, TOOLS, { topK: 3 });
    expect(s.match?.coverage).toBeGreaterThan(0);
    expect(s.noMatch).toBeUndefined();
    const nothing = await dense.select('zebra quartz violin mango tundra', TOOLS, { topK: 3 });
    expect(nothing.noMatch).toBeDefined();
  });
});
