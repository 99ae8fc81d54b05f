import { describe, expect, test } from 'vitest';
import { passages, retrievalFields, retrievalText, splitName } from '../../src/catalog/retrievalText.js';
import { contentTerms, identifierWords, literalTerms, sStem, tokenize } from '../../src/curator/tokenize.js';
import { tool } from './fakeEmbedder.js';

describe('splitName', () => {
  test.each([
    ['get_fee_dues', ['get', 'fee', 'dues']],
    ['playwright::iframeClick', ['playwright', 'iframe', 'click']],
    ['/v1/nutrition', ['v1', 'nutrition']],
    ['getHTTPStatus', ['get', 'http', 'status']],
    ['file-system.read_File', ['file', 'system', 'read', 'file']],
    ['AddAgenda', ['add', 'agenda']],
  ])('%s', (name, words) => expect(splitName(name)).toEqual(words));
});

describe('retrievalText', () => {
  test('name words, description, synonyms, parameters with short descriptions', () => {
    const t = tool('get_fee_dues', 'Fee dues a student still owes.', { student_id: 'The student', note: 'x'.repeat(90) });
    expect(retrievalText(t, 'outstanding balance')).toBe(
      'get fee dues. Fee dues a student still owes. outstanding balance. Parameters: student id (The student), note.',
    );
  });
  test('title included, no parameters section without parameters', () => {
    expect(retrievalText({ ...tool('listFiles', 'Lists files in a folder with sizes'), title: 'List files' })).toBe('list files. List files. Lists files in a folder with sizes.');
    // A description that only repeats the name is bare: the server's name joins it (test/curator/robust.test.ts).
    expect(retrievalText({ ...tool('listFiles', 'Lists files'), title: 'List files' })).toBe('list files. List files. Lists files. test.');
  });
  test('fields for BM25: name + title, description + synonyms, parameters', () => {
    const t = { ...tool('get_fee_dues', 'Fee dues a student still owes.', { student_id: 'The student' }), title: 'Fee dues' };
    expect(retrievalFields(t, 'money owed')).toEqual({ name: 'get fee dues. Fee dues', description: 'Fee dues a student still owes. money owed', parameters: 'student id (The student)' });
  });
});

describe('passages', () => {
  test('name phrase, description sentences (at most 6), synonyms', () => {
    const t = tool('create_directory', 'Create a new directory or ensure it exists. Can create nested directories, e.g. a/b/c. Only works within allowed directories.');
    expect(passages(t, 'make folder mkdir')).toEqual([
      'create directory', 'Create a new directory or ensure it exists', 'Can create nested directories, e.g. a/b/c', 'Only works within allowed directories', 'make folder mkdir',
    ]);
    const long = tool('x', Array.from({ length: 8 }, (_, i) => `Sentence ${i}.`).join(' '));
    expect(passages(long)).toHaveLength(1 + 6);
  });
});

describe('tokenize', () => {
  test('lowercases and folds plurals (S-stemmer)', () => {
    expect(tokenize('Get the Fee Dues, policies & Files')).toEqual(['get', 'the', 'fee', 'due', 'policy', 'file']);
    expect([sStem('status'), sStem('class'), sStem('bus'), sStem('books')]).toEqual(['status', 'class', 'bus', 'book']);
  });
  test('leaves the Porter2 invariant singulars whole: "news" is not "new"', () => {
    expect(['news', 'atlas', 'bias', 'cosmos'].map(sStem)).toEqual(['news', 'atlas', 'bias', 'cosmos']);
    expect(contentTerms('find news about new products')).toEqual(['find', 'news', 'new', 'product']);
  });
  test('cuts camelCase and PascalCase words as splitName cuts tool names', () => {
    expect(tokenize('drag dragItem to dropZone')).toEqual(['drag', 'drag', 'item', 'to', 'drop', 'zone']);
    expect(tokenize('call getHTTPStatus or GetUserToken')).toEqual(['call', 'get', 'http', 'status', 'or', 'get', 'user', 'token']);
    expect(tokenize('CGPA of S0002')).toEqual(['cgpa', 'of', 's0002']);
  });
  test('keeps non-Latin scripts; CJK runs become bigrams', () => {
    expect(tokenize('Получить расписание')).toEqual(['получить', 'расписание']);
    expect(tokenize('查看课程表')).toEqual(['查看', '看课', '课程', '程表']);
    expect(tokenize('课 API查询')).toEqual(['课', 'api', '查询']);
    expect(tokenize('नमस्ते दुनिया')).toEqual(['नमस्ते', 'दुनिया']);
  });
  test('contentTerms drops stopwords, contraction fragments and duplicates', () => {
    expect(contentTerms('What are my fees and my dues?')).toEqual(['fee', 'due']);
    expect(contentTerms("what's his fee, I don't know")).toEqual(['fee', 'know']);
  });
  test('literalTerms: IDs, numbers, file names, identifiers, names after the first word', () => {
    expect(literalTerms('Rename notes.txt for Alice to v2')).toEqual(new Set(['note', 'txt', 'alice', 'v2']));
    expect(literalTerms('connect Alice and Acme with a works_at relation')).toEqual(new Set(['alice', 'acme', 'work', 'at']));
    expect(literalTerms('Show my CGPA for 2025')).toEqual(new Set(['2025']));
  });
  test('identifierWords: snake_case and lower camelCase become words; literals, brands and English compounds stay', () => {
    expect(identifierWords('mark_attendance')).toBe('mark attendance');
    expect(identifierWords('run filesystem__write_file, then getFeeReceipt.')).toBe('run filesystem write file, then get fee receipt.');
    expect(identifierWords("record my 'blood_pressure' please")).toBe("record my 'blood pressure' please");
    for (const kept of ['open notes.txt', 'the report_v2 draft', 'cd ./test_project_root', 'click #submitButton', 'an up-to-date list', 'my GitHub and iPhone', 'search arXiv', 'plain words']) {
      expect(identifierWords(kept)).toBeUndefined();
    }
  });
});
