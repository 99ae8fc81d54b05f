/**
 * Issue 22's robust-retrieval mechanisms, each alone and through the curator: spelling
 * correction (typos.ts), bare descriptions indexed with their server's words
 * (retrievalText.ts), confident lexical hits of long requests (lexical.ts), result steps
 * split off a request (split.ts), and CJK text found by BM25.
 */
import { describe, expect, test } from 'vitest';
import { bareDescription, retrievalFields } from '../../src/catalog/retrievalText.js';
import { Bm25Index } from '../../src/curator/bm25.js';
import { createCurator } from '../../src/curator/index.js';
import { confidentLexicalHead, confidentLexicalHits, requestSentences } from '../../src/curator/lexical.js';
import { splitQuery } from '../../src/curator/split.js';
import { editDistance, isSwap, TermCorrector } from '../../src/curator/typos.js';
import { fakeEmbedder, tool } from './fakeEmbedder.js';

const names = (s: { tools: { name: string }[] }): string[] => s.tools.map((t) => t.name);

/** Fourteen everyday tools: files, mail, chat, weather, placements. */
const TOOLS = [
  tool('read_text_file', 'Return the whole content of a text file.', { path: 'Absolute path' }),
  tool('write_file', 'Create a file with the given content, or replace the content of an existing one.', { path: 'Absolute path', content: 'Text' }),
  tool('list_directory', 'Entries of a folder, each marked as file or subfolder.', { path: 'Absolute path' }),
  tool('send_email', 'Deliver an email to one or more recipients.', { to: 'Recipients', subject: '', body: '' }),
  tool('search_inbox', 'Find received messages by sender or subject words.', { query: '' }),
  tool('post_message', 'Publish a message in a chat channel.', { channel: '', text: '' }),
  tool('get_forecast', 'Daily weather forecast for a location.', { latitude: '', longitude: '' }),
  tool('list_placement_drives', 'Upcoming campus placement drives with companies and dates.'),
  tool('get_placement_offers', 'Offers a student has received from placement drives.'),
  tool('add_heading', 'Insert a heading into a document.', { text: '' }),
  tool('convert_to_pdf', 'Turn a .docx document into a PDF file.', { filename: '' }),
  tool('get_mess_menu', 'This week\'s dining hall menu.'),
  tool('get_alerts', 'Severe-weather warnings in force for a region.', { region: '' }),
  tool('list_events', 'Calendar events between two dates.', { start: '', end: '' }),
];

describe('spelling correction', () => {
  test('optimal string alignment distance, bounded', () => {
    expect(editDistance('placment', 'placement', 1)).toBe(1);
    expect(editDistance('gardes', 'grades', 1)).toBe(1);
    expect(editDistance('spinning', 'spending', 1)).toBe(2);
    expect(editDistance('abc', 'abcdef', 1)).toBe(2);
    expect([isSwap('lsit', 'list'), isSwap('lift', 'list'), isSwap('sned', 'send')]).toEqual([true, false, true]);
  });

  const corrector = new TermCorrector(['placement', 'list', 'send', 'email', 'weather', 'forecast', 'heading', 'scholarship', 'abort']);
  test('unknown words one edit away (two from 10 letters) become the catalog word, first letter kept', () => {
    expect(corrector.correct('placment')).toEqual({ terms: ['placement'], distance: 1 });
    expect(corrector.correct('wether')).toEqual({ terms: ['weather'], distance: 1 });
    expect(corrector.correct('scolarshp')).toBeUndefined();
    expect(corrector.correct('scolarshipp')).toEqual({ terms: ['scholarship'], distance: 2 });
    expect(corrector.correct('lacement')).toBeUndefined();
  });
  test('4-letter words only by a swap of neighbouring letters; short words never', () => {
    expect(corrector.correct('lsit')).toEqual({ terms: ['list'], distance: 1 });
    expect(corrector.correct('sned')).toEqual({ terms: ['send'], distance: 1 });
    expect(corrector.correct('lift')).toBeUndefined();
    expect(corrector.correct('lst')).toBeUndefined();
  });
  test('no correction when a stopword is as close, or for numbers and codes', () => {
    expect(corrector.correct('abuot')).toBeUndefined();
    expect(corrector.correct('cs301')).toBeUndefined();
  });

  const bm25 = new Bm25Index(TOOLS.map((t) => retrievalFields(t)));
  const at = (name: string) => TOOLS.findIndex((t) => t.name === name);
  test('BM25 scores a corrected word at half weight and reports it as matched through a correction', () => {
    const [hit] = bm25.query('upcomming placment drives');
    expect(hit?.index).toBe(at('list_placement_drives'));
    expect(hit?.terms).toEqual(['drive']);
    expect(hit?.viaSynonym).toEqual(['upcomming', 'placment']);
    const exact = bm25.query('upcoming placement drives')[0]!;
    expect(hit!.score).toBeLessThan(exact.score);
  });
  test('a word the catalog has is never corrected; names and codes are not either', () => {
    expect(bm25.query('heading')[0]?.viaSynonym).toEqual([]);
    expect(bm25.query('Ask Placment about it')).toEqual([]);
  });
  test('the dense retriever gets the sure corrections only (one edit, one candidate)', () => {
    expect(bm25.correctedText('sned an emial about the wether')).toBe('send an email about the weather');
    expect(bm25.correctedText('send an email')).toBeUndefined();
  });
  test('through the curator: a misspelled request is found, not answered as nonsense', async () => {
    const curator = createCurator({ mode: 'hybrid', embedder: fakeEmbedder() });
    await curator.buildIndex(TOOLS);
    const s = await curator.select('wher are the placment drivs', TOOLS, { topK: 5 });
    expect(s.noMatch).toBeUndefined();
    expect(names(s)[0]).toBe('list_placement_drives');
    expect(s.match?.coverage).toBeGreaterThan(0);
  });
});

describe('identifiers in a request', () => {
  test('through the curator: the dense retriever embeds a snake_case or camelCase word as the words of the name it indexed', async () => {
    const embedder = fakeEmbedder();
    const asked: string[] = [];
    const embedQuery = embedder.embedQuery.bind(embedder);
    embedder.embedQuery = (text) => {
      asked.push(text);
      return embedQuery(text);
    };
    const curator = createCurator({ mode: 'dense', embedder });
    await curator.buildIndex(TOOLS);
    const s = await curator.select('weatherForecast for Porto, then email_it', TOOLS, { topK: 3 });
    expect(asked).toContain('weather forecast for Porto, then email it');
    expect(names(s)).toContain('get_forecast');
  });
});

describe('bare descriptions', () => {
  test('empty, or no 2 words beyond the name\'s own, is bare; ideographs count a word per two', () => {
    expect(bareDescription({ name: 'quote', description: '' })).toBe(true);
    expect(bareDescription({ name: 'get-solution', description: 'Get solution.' })).toBe(true);
    expect(bareDescription({ name: 'dividends', description: 'Dividends.' })).toBe(true);
    expect(bareDescription({ name: 'get_note', description: "One note's full text." })).toBe(false);
    expect(bareDescription({ name: 'get-weibo-hot', description: '获取微博热搜榜' })).toBe(false);
  });
  test('a bare tool is indexed with its server\'s name, title and instructions and every parameter description', () => {
    const quote = { ...tool('quote', '', { symbol: 'x'.repeat(85) }), server: 'stocks', serverTitle: 'Market Data', serverInstructions: 'Live share prices by ticker symbol.' };
    expect(retrievalFields(quote)).toEqual({ name: 'quote', description: 'stocks. Market Data. Live share prices by ticker symbol', parameters: `symbol (${'x'.repeat(85)})` });
    const described = { ...quote, description: 'Latest trade price of a share.' };
    expect(retrievalFields(described)).toEqual({ name: 'quote', description: 'Latest trade price of a share', parameters: 'symbol' });
  });
  test('through the curator: a tool with no description is found by its server\'s instructions', async () => {
    const quote = { ...tool('quote', '', { symbol: '' }), server: 'stocks', serverInstructions: 'Live share prices and company fundamentals by ticker symbol.' };
    const curator = createCurator({ mode: 'bm25', embedder: null });
    const tools = [...TOOLS, quote];
    await curator.buildIndex(tools);
    expect(names(await curator.select('current share price of ACME', tools, { topK: 3 }))[0]).toBe('quote');
  });
});

describe('confident lexical hits of long requests', () => {
  const bm25 = new Bm25Index(TOOLS.map((t) => retrievalFields(t)));
  const all = new Uint8Array(TOOLS.length).fill(1);
  const story =
    'Some context first: the trip was chaotic, rain and wind all week, storm warnings every day, and the client kept sending email after email. ' +
    'Half the team caught a cold and the calendar was a mess. Please convert report.docx to a PDF file.';
  test('sentences, at most the first and last twelve', () => {
    expect(requestSentences('We moved. list the folder /srv!\nthanks')).toEqual(['We moved.', 'list the folder /srv!', 'thanks']);
    expect(requestSentences(Array.from({ length: 30 }, (_, i) => `Sentence ${i}.`).join(' '))).toHaveLength(24);
  });
  test('the sentence whose best tool explains it, far ahead of the next, names that tool', () => {
    expect(confidentLexicalHits(story, bm25, all).map((i) => TOOLS[i]!.name)).toEqual(['convert_to_pdf']);
    expect(confidentLexicalHits('Please convert report.docx to a PDF file.', bm25, all)).toEqual([]);
  });
  test('through the curator: the hit goes first though the dense retriever prefers the context', async () => {
    const curator = createCurator({ mode: 'hybrid', embedder: fakeEmbedder() });
    await curator.buildIndex(TOOLS);
    const s = await curator.select(story, TOOLS, { topK: 6, explain: true });
    expect(names(s)[0]).toBe('convert_to_pdf');
    expect(s.explanations?.[0]?.addedBy).toBe('lexical');
  });
});

describe('the confident lexical head of a whole query', () => {
  const bm25 = new Bm25Index(TOOLS.map((t) => retrievalFields(t)));
  const all = new Uint8Array(TOOLS.length).fill(1);
  const head = (query: string): string[] => confidentLexicalHead(bm25.query(query, all), query, bm25).map((i) => TOOLS[i]!.name);
  test('one or two hits far above the next, in BM25\'s order', () => {
    expect(head('turn the docx document into a pdf')).toEqual(['convert_to_pdf']);
    expect(head('which placement drives are coming up and what offers did I get')).toEqual(['get_placement_offers', 'list_placement_drives']);
    expect(head('the weather in Pune')).toEqual(['get_forecast', 'get_alerts']);
  });
  test('no head when the first hits are not apart from the rest (write_file 4.34, read_text_file 4.30, convert_to_pdf 1.84)', () => {
    expect(head('file')).toEqual([]);
  });
  test('no head when it covers under half of the query: the other words are in no tool', () => {
    expect(head('weather for my grandmother\'s garden party')).toEqual([]);
    expect(head('')).toEqual([]);
  });
  test('through the curator: the head goes first, marked, and can be switched off', async () => {
    const query = 'which placement drives are coming up and what offers did I get';
    for (const off of [[], ['lexical-head' as const]]) {
      const curator = createCurator({ mode: 'hybrid', embedder: fakeEmbedder(), off });
      await curator.buildIndex(TOOLS);
      const s = await curator.select(query, TOOLS, { topK: 6, explain: true });
      expect(new Set(names(s).slice(0, 2))).toEqual(new Set(['get_placement_offers', 'list_placement_drives']));
      expect(s.explanations?.slice(0, 2).map((e) => e.addedBy)).toEqual(off.length === 0 ? ['lexical-head', 'lexical-head'] : ['retrieval', 'retrieval']);
      if (off.length === 0) expect(names(s).slice(0, 2)).toEqual(['get_placement_offers', 'list_placement_drives']);
    }
  });
});

describe('result steps', () => {
  test('a request to save, send or post a result is a step of its own', () => {
    expect(splitQuery('check the forecast for Lisbon and save it to /home/a/weekend.md')).toEqual(['check the forecast for Lisbon', 'save it to file']);
    expect(splitQuery('check the forecast, saved as weekend.md.')).toEqual(['check the forecast', 'save as file.']);
    expect(splitQuery('get the price, emailed to bo@example.org')).toEqual(['get the price', 'email to bo@example.org']);
    expect(splitQuery('find the latest mail from Bo, send the summary to Al')).toEqual(['find the latest mail from Bo', 'send the summary to Al']);
    expect(splitQuery('Find the report. Post it in #general')).toEqual(['Find the report.', 'post it in #general']);
  });
  test('objects joined by "and" stay whole', () => {
    expect(splitQuery('send me the name, email and phone')).toEqual(['send me the name, email and phone']);
    expect(splitQuery('give Bo read and write access')).toEqual(['give Bo read and write access']);
  });
  test('through the curator: the tool that stores the result joins the list', async () => {
    const curator = createCurator({ mode: 'bm25', embedder: null });
    await curator.buildIndex(TOOLS);
    const s = names(await curator.select('daily weather forecast for Porto and write it to a file', TOOLS, { topK: 4 }));
    expect(s.slice(0, 2).sort()).toEqual(['get_forecast', 'write_file']);
  });
});

describe('CJK text', () => {
  const cjk = [
    ...TOOLS,
    tool('city_weather', '根据城市名称查询实时天气和未来几天的天气预报', { city: '城市名称' }),
    tool('search_route', '出発駅と到着駅を指定して、電車の乗り換え経路を検索します', { from: '出発駅', to: '到着駅' }),
    tool('today_headlines', '주요 언론사의 오늘 뉴스 헤드라인을 가져옵니다', { section: '분야' }),
  ];
  test.each([
    ['杭州明天的天气预报', 'city_weather'],
    ['新宿から横浜まで電車の乗り換え', 'search_route'],
    ['오늘 경제 뉴스 헤드라인', 'today_headlines'],
  ])('%s → %s (BM25 over character bigrams, no foreign-script verdict)', async (query, expected) => {
    const curator = createCurator({ mode: 'bm25', embedder: null });
    await curator.buildIndex(cjk);
    const s = await curator.select(query, cjk, { topK: 3 });
    expect(s.noMatch).toBeUndefined();
    expect(names(s)[0]).toBe(expected);
  });
});
