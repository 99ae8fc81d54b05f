/**
 * A multilingual embedder as a configuration: the `transformers` provider with a model
 * that maps Japanese and English words of one meaning to one vector, here a tiny
 * BERT-shaped model the test writes itself (test/embedding/tiny-bert.ts: the same loading
 * path as Xenova/multilingual-e5-small, offline). A Japanese query against an English
 * catalog then finds its tool through the dense retriever, and the result notes the
 * script; the same model under an English-only name (`*-en`) is not trusted across
 * scripts and the query is reported unmatched.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createCurator } from '../../src/curator/index.js';
import { createTransformersEmbedder } from '../../src/embedding/transformers.js';
import { TINY_DIM, writeTinyBert } from '../embedding/tiny-bert.js';
import { tool } from './fakeEmbedder.js';

/** Token → meaning: library, renew, fee, other. English words and Japanese characters share rows. */
const MEANING: Record<string, number> = {
  library: 0, book: 0, 図: 0, 書: 0, 館: 0, 本: 0,
  renew: 1, extend: 1, loan: 1, 延: 1, 長: 1,
  pay: 2, fee: 2, payment: 2, 費: 2, 払: 2,
  grades: 3, course: 3, menu: 3, dining: 3, bus: 3, routes: 3, exam: 3, schedule: 3, get: 3, make: 3, a: 3, the: 3,
};
const VOCAB = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]', ...Object.keys(MEANING)];

function table(): Float32Array {
  const t = new Float32Array(VOCAB.length * TINY_DIM);
  VOCAB.forEach((token, i) => {
    const m = MEANING[token];
    if (m !== undefined) t[i * TINY_DIM + m] = 1;
    else t[i * TINY_DIM + 3] = token === '[UNK]' ? 0.2 : 0.01; // specials and unknown words: a little "other"
  });
  return t;
}

const CATALOG = [
  tool('renew_book_loan', 'renew a library book loan'),
  tool('make_payment', 'pay a fee'),
  tool('get_grades', 'course grades'),
  tool('get_mess_menu', 'dining menu'),
  tool('get_bus_routes', 'bus routes'),
  tool('get_exam_schedule', 'exam schedule'),
];
CATALOG[0]!.isAction = true;
CATALOG[1]!.isAction = true;

let root: string;
beforeAll(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'tiny-multilingual-'));
  await writeTinyBert(root, 'tiny-multilingual', table(), table(), VOCAB);
  await writeTinyBert(root, 'tiny-en', table(), table(), VOCAB);
});
afterAll(() => rm(root, { recursive: true, force: true }));

async function curatorWith(model: string) {
  const embedder = await createTransformersEmbedder({ model, localModelPath: root, allowRemoteModels: false, pooling: 'mean', queryInstruction: '' });
  const curator = createCurator({ mode: 'hybrid', embedder });
  await curator.buildIndex(CATALOG);
  return { curator, embedder };
}

describe('a Japanese query against an English catalog', () => {
  test('multilingual model: the tool is found through the dense retriever, with a note about the script', async () => {
    const { curator, embedder } = await curatorWith('tiny-multilingual');
    try {
      const s = await curator.select('図書館の本を延長したい', CATALOG, { topK: 3 });
      expect(s.noMatch).toBeUndefined();
      expect(s.tools[0]!.name).toBe('renew_book_loan');
      expect(s.match).toMatchObject({ coverage: 0, foreignScripts: ['Han', 'Hiragana'] });
      expect(s.notice).toMatch(/written in Han, Hiragana script.*only the embedding model matched it/);
      const pay = await curator.select('費を払う', CATALOG, { topK: 3 });
      expect(pay.tools[0]!.name).toBe('make_payment');
    } finally {
      await embedder.close();
    }
  });

  test('the same vectors under an English-only model name: reported as unmatched, no state-changing tool shown', async () => {
    const { curator, embedder } = await curatorWith('tiny-en');
    try {
      const s = await curator.select('図書館の本を延長したい', CATALOG, { topK: 3 });
      expect(s.noMatch?.reason).toBe('script');
      expect(s.tools.some((t) => t.isAction)).toBe(false);
      expect(s.tools.length).toBeLessThanOrEqual(3);
    } finally {
      await embedder.close();
    }
  });
});
