/**
 * Requests in other Latin-script languages (issue 29): with an embedder that reads English
 * only, a request most of whose words are neither the catalog's nor English is no match,
 * whatever the embedder scored it. The dictionary is the real one (english.ts); the curator
 * tests use an embedder that, like USE Lite, puts any non-English text near a state-changing
 * tool (USE Lite gave the Vietnamese "download my exam admit card" 0.35 against a hostel-leave
 * tool), under an English-only id and under a multilingual one.
 */
import { describe, expect, test } from 'vitest';
import { createCurator } from '../../src/curator/index.js';
import { englishWords } from '../../src/curator/english.js';
import { catalogInEnglish, readableShare } from '../../src/curator/language.js';
import { judgeMatch, READABLE_MIN } from '../../src/curator/noMatch.js';
import type { Embedder } from '../../src/embedding/types.js';
import { fakeEmbedder, tool } from './fakeEmbedder.js';

const english = englishWords();
const none = () => false;

describe('englishWords (Hunspell en_US through nspell)', () => {
  test('English words and their inflections, as written or lower-cased; foreign words and slips are not', () => {
    for (const w of ['bursaries', 'achievers', 'Retaking', 'fortnight', "I'll", 'canteen']) expect(english(w), w).toBe(true);
    for (const w of ['phiếu', 'thi', 'ujian', 'tunggakan', 'sınav', 'zajęć', 'mitihani', 'herunterladen', 'descargar', 'attendence']) expect(english(w), w).toBe(false);
  });
});

describe('readableShare', () => {
  test('English requests read whole, with or without a catalog word', () => {
    expect(readableShare('any bursaries for high achievers', none, english)).toBe(1);
    expect(readableShare("I'd like to hang on to the novel for a fortnight", none, english)).toBe(1);
  });

  test('requests in other Latin-script languages read little or nothing', () => {
    expect(readableShare('tải phiếu dự thi', none, english)).toBe(0);
    expect(readableShare('berapa tunggakan uang kuliah saya', none, english)).toBe(0);
    expect(readableShare('sınav giriş belgemi indirmek istiyorum', none, english)).toBe(0);
    expect(readableShare('nimebakiza ada kiasi gani', none, english)).toBeLessThan(READABLE_MIN);
    expect(readableShare('quiero ver mis calificaciones del semestre', none, english)).toBeLessThan(READABLE_MIN);
  });

  test('a catalog term reads: the stray English-looking word of a Polish request is one of four', () => {
    expect(readableShare('pokaż mój plan zajęć', (t) => t === 'plan', english)).toBe(0.25);
  });

  test('a foreign word spelled like a stopword\'s form in the catalog is not read: "thi" is the S-stemmed "this"', () => {
    expect(readableShare('tải phiếu dự thi', (t) => t === 'thi', english)).toBe(0);
  });

  test('values are not counted: names after the first word, paths, IDs, acronyms; a name the catalog has is read', () => {
    // "Tết" and "Hà Nội" are names; the rest is English.
    expect(readableShare('going home to Hà Nội for Tết', none, english)).toBe(1);
    expect(readableShare('read /home/ana/todo.txt for CS301 and the CGPA', none, english)).toBe(1);
    expect(readableShare('wann sind meine Prüfungstermine', (t) => t === 'prüfungstermine', english)).toBe(0.25);
    expect(readableShare('Pokaż CGPA CS301', none, english)).toBe(0); // the first word counts, capitalized or not
    expect(readableShare('CGPA CS301', none, english)).toBeUndefined();
    expect(readableShare('図書館の本を延長したい', none, english)).toBeUndefined(); // script.ts's to judge
  });
});

describe('catalogInEnglish', () => {
  test('English descriptions are; descriptions in other languages are not', () => {
    expect(catalogInEnglish(['Returns a student\'s outstanding fees', 'Renews a library book loan for 14 days'], english)).toBe(true);
    expect(catalogInEnglish(['Trả về bảng điểm các môn học của sinh viên', 'Liefert die Prüfungstermine des Studierenden mit Datum'], english)).toBe(false);
    expect(catalogInEnglish(['使用必应搜索指定的关键词'], english)).toBe(false);
  });
});

describe('judgeMatch on readable words', () => {
  test('under READABLE_MIN with an English-only embedder: no match, reason "language", whatever the scores', () => {
    expect(READABLE_MIN).toBe(0.5);
    const verdict = judgeMatch({ coverage: 0.2, denseTop: 0.9, readable: 0.25 }, 'use:lite-512');
    expect(verdict?.reason).toBe('language');
    expect(verdict?.message).toMatch(/^No tool matches well: most words of the request are neither in the tool descriptions nor English.*Rephrase it in the language of the tool descriptions/);
    expect(judgeMatch({ coverage: 0, denseTop: 0.9, readable: 0.25 }, 'transformers:Xenova/bge-small-en-v1.5:q8:cls')?.reason).toBe('language');
  });

  test('half the words readable, or a multilingual embedder: judged as before', () => {
    expect(judgeMatch({ coverage: 0.2, denseTop: 0.9, readable: 0.5 }, 'use:lite-512')).toBeUndefined();
    expect(judgeMatch({ coverage: 0, denseTop: 0.9, readable: 0 }, 'transformers:Xenova/multilingual-e5-small:q8:mean')).toBeUndefined();
  });
});

describe('through the curator', () => {
  const CATALOG = [
    tool('get_hall_ticket', 'hall ticket admit card for this term exams'),
    tool('get_hostel_leave_status', 'hostel leave applications and their status'),
    tool('cancel_hostel_leave', 'cancel a pending hostel leave'),
    tool('approve_hostel_leave', 'warden approves a hostel leave application'),
    tool('get_fee_dues', 'outstanding tuition fees owed'),
    tool('get_mess_menu', 'dining hall menu this week'),
    tool('renew_book_loan', 'extend the due date of a borrowed book'),
    tool('get_grades', 'letter grades per course'),
  ];
  for (const t of CATALOG) t.isAction = /^(cancel|approve|renew)_/.test(t.name);

  /** A bag-of-words embedder that, like USE Lite, puts text with non-ASCII letters near the hostel-leave tools. */
  function confused(id: string): Embedder {
    const base = fakeEmbedder(512, id);
    return { ...base, embedQuery: (text) => base.embedQuery(/[^\x00-\x7f]/u.test(text) ? 'cancel approve hostel leave' : text) };
  }
  const curatorWith = async (id: string) => {
    const c = createCurator({ mode: 'hybrid', embedder: confused(id) });
    await c.buildIndex(CATALOG);
    return c;
  };
  const names = (tools: { name: string }[]) => tools.map((t) => t.name);

  test('the issue\'s Vietnamese request: no match, three read-only tools at most, no state-changing one', async () => {
    const s = await (await curatorWith('use:test')).select('tải phiếu dự thi', CATALOG, { topK: 5 });
    expect(s.noMatch?.reason).toBe('language');
    expect(s.match?.readable).toBe(0);
    expect(s.tools.length).toBeLessThanOrEqual(3);
    expect(s.tools.filter((t) => t.isAction)).toEqual([]);
  });

  test('a Polish request that shares one word with the catalog ("hostel") is no match either: BM25\'s stray hit is no evidence', async () => {
    const s = await (await curatorWith('use:test')).select('chcę anulować mój urlop z hostel', CATALOG, { topK: 5 });
    expect(s.match?.coverage).toBeGreaterThan(0);
    expect(s.noMatch?.reason).toBe('language');
    expect(s.tools.filter((t) => t.isAction)).toEqual([]);
  });

  test('English requests are untouched: the tool is found, no no-match', async () => {
    const c = await curatorWith('use:test');
    const s = await c.select('show my hall ticket for the exams', CATALOG, { topK: 5 });
    expect(s.noMatch).toBeUndefined();
    expect(names(s.tools)[0]).toBe('get_hall_ticket');
    expect(s.match?.readable).toBe(1);
  });

  test('a multilingual embedder is trusted with the same request (its vector is not noise), and no readable share is read', async () => {
    const s = await (await curatorWith('fake:multilingual')).select('tải phiếu dự thi', CATALOG, { topK: 5 });
    expect(s.noMatch).toBeUndefined();
    expect(s.match?.readable).toBeUndefined();
    expect(names(s.tools).slice(0, 2).sort()).toEqual(['approve_hostel_leave', 'cancel_hostel_leave']);
  });

  test('switched off (--off language), the English-only embedder\'s noise is answered as before', async () => {
    const c = createCurator({ mode: 'hybrid', embedder: confused('use:test'), off: ['language'] });
    await c.buildIndex(CATALOG);
    const s = await c.select('tải phiếu dự thi', CATALOG, { topK: 5 });
    expect(s.noMatch).toBeUndefined();
    expect(names(s.tools).slice(0, 2).sort()).toEqual(['approve_hostel_leave', 'cancel_hostel_leave']);
  });

  test('a catalog described in another language: a request in that language that BM25 matches is served', async () => {
    const german = [
      tool('pruefungstermine', 'Liefert die Prüfungstermine des Studierenden mit Datum, Uhrzeit und Raum'),
      tool('notenspiegel', 'Liefert den Notenspiegel mit allen bestandenen Prüfungen'),
      tool('pruefung_anmelden', 'Meldet den Studierenden zu einer Prüfung an'),
      tool('zimmer_wechseln', 'Beantragt einen Zimmerwechsel im Wohnheim'),
      tool('speiseplan', 'Liefert den Speiseplan der Mensa für diese Woche'),
      tool('bibliothek_suche', 'Sucht Bücher im Katalog der Bibliothek'),
    ];
    german[2]!.isAction = true;
    const c = createCurator({ mode: 'hybrid', embedder: confused('use:test') });
    await c.buildIndex(german);
    const s = await c.select('wann sind meine Prüfungstermine', german, { topK: 3 });
    expect(s.noMatch).toBeUndefined();
    expect(s.match?.readable).toBeUndefined();
    expect(names(s.tools)[0]).toBe('pruefungstermine');
  });
});
