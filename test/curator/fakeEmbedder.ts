/**
 * A deterministic embedder for unit tests: bag of lowercase words, one dimension per
 * distinct word (assigned on first sight, no collisions up to `dim` words), L2-normalized.
 * Cosine similarity of two texts is then exact: Σ countₐ·count_b / (‖a‖·‖b‖).
 */
import type { Embedder } from '../../src/embedding/types.js';

export interface FakeEmbedder extends Embedder {
  /** Texts passed to embedDocuments, in call order. */
  documentCalls: string[][];
  queryCalls: string[];
  failDocuments: boolean;
  failQueries: boolean;
}

export function fakeEmbedder(dim = 512, id = 'fake:bow'): FakeEmbedder {
  const slots = new Map<string, number>();
  const embed = (text: string): Float32Array => {
    const v = new Float32Array(dim);
    for (const w of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
      if (!slots.has(w)) {
        if (slots.size >= dim) throw new Error('fake embedder vocabulary full');
        slots.set(w, slots.size);
      }
      v[slots.get(w)!]! += 1;
    }
    const norm = Math.hypot(...v) || 1;
    return v.map((x) => x / norm);
  };
  const e: FakeEmbedder = {
    id, dim, documentCalls: [], queryCalls: [], failDocuments: false, failQueries: false,
    async embedDocuments(texts) {
      if (e.failDocuments) throw new Error('fake embedder: documents down');
      e.documentCalls.push([...texts]);
      return texts.map(embed);
    },
    async embedQuery(text) {
      if (e.failQueries) throw new Error('fake embedder: queries down');
      e.queryCalls.push(text);
      return embed(text);
    },
    async close() {},
  };
  return e;
}

/** A ToolRecord with defaults, for tests. */
export function tool(name: string, description = '', params: Record<string, string> = {}) {
  return {
    server: 'test', upstreamName: name, name, description, isAction: false,
    inputSchema: { type: 'object' as const, properties: Object.fromEntries(Object.entries(params).map(([p, d]) => [p, { type: 'string', description: d }])) },
  };
}

/** Ten campus tools of distinct topics, the catalog the curator tests build on (each test appends its own). */
export const CAMPUS_TOOLS = [
  tool('get_fee_dues', 'outstanding tuition fees owed'),
  tool('make_payment', 'pay a fee by card'),
  tool('get_grades', 'marks and letter grades per course'),
  tool('get_attendance_summary', 'attendance percentage per course'),
  tool('get_exam_eligibility', 'may the student sit the exams'),
  tool('search_library_catalog', 'find books in the library'),
  tool('borrow_book', 'check out a library book'),
  tool('get_bus_routes', 'campus shuttle routes and timings'),
  tool('get_mess_menu', 'dining hall menu this week'),
  tool('submit_grievance', 'file a formal complaint'),
];
