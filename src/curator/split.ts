/**
 * Compound query splitting: "show my fee dues and then pay them" asks for two tools, and a
 * single embedding of the whole sentence lands between them. Each part retrieves on its
 * own with a share of the shortlist; the whole query tops the list up.
 */
import { contentTerms } from './tokenize.js';

/**
 * Markers that join two requests. Deliberately narrow: bare "and"/"or" join objects of
 * one request far more often ("name and email", "read or write") and are never split on.
 * Longest first so "and then" is not cut at "then".
 */
export const SPLIT_MARKERS = [
  'and then', 'and also', 'after that', 'additionally', 'as well as', 'along with', 'then', 'also', 'plus',
] as const;

/** A query splits into at most this many parts; more markers join the rest to the last. */
export const MAX_PARTS = 4;

const MARKER = new RegExp(`\\s*[,;]?\\s*\\b(?:${SPLIT_MARKERS.join('|')})\\b\\s*[,;]?\\s*`, 'giu');

/**
 * Verbs that hand a result on, with their inflections: a request to save, send, write or
 * post what an earlier step produced ("look up the forecast and save it to weekend.md",
 * "…, saved to /tmp/a.csv") asks for a second tool it never names. General English for
 * storing and delivering, not any catalog's words.
 */
export const RESULT_VERBS: Readonly<Record<string, readonly string[]>> = {
  save: ['saved', 'saving', 'saves'],
  store: ['stored', 'storing', 'stores'],
  write: ['wrote', 'written', 'writing', 'writes'],
  append: ['appended', 'appending'],
  export: ['exported', 'exporting'],
  send: ['sent', 'sending', 'sends'],
  email: ['emailed', 'emailing'],
  mail: ['mailed', 'mailing'],
  forward: ['forwarded', 'forwarding'],
  post: ['posted', 'posting'],
  publish: ['published', 'publishing'],
  upload: ['uploaded', 'uploading'],
  share: ['shared', 'sharing'],
  print: ['printed', 'printing'],
};

/** Inflected result verb → its base form. */
const BASE_FORM = new Map(Object.entries(RESULT_VERBS).flatMap(([base, forms]) => [[base, base] as const, ...forms.map((f) => [f, base] as const)]));

/**
 * What follows a result verb when it starts a step of its own: an object or a destination
 * ("save it", "send the summary", "post to #general", "saved at /tmp/a.csv"), so that
 * "name, email and phone" or "read and write access" are not cut.
 */
const RESULT_OBJECT = ['it', 'them', 'this', 'that', 'these', 'those', 'the', 'a', 'an', 'my', 'our', 'your', 'all', 'everything', 'to', 'into', 'in', 'as', 'on', 'at'];

/**
 * A step boundary before a result verb: after "and", a comma, a semicolon or a sentence
 * end. The verb stays in the part it starts.
 */
const RESULT_STEP = new RegExp(
  `(?:\\s*[,;]\\s*(?:and\\s+)?|(?<=[.!?])\\s+|\\s+and\\s+)(?=(?:${[...BASE_FORM.keys()].join('|')})\\s+(?:${RESULT_OBJECT.join('|')})\\b)`,
  'giu',
);

/** A path or file name: a word with a slash, or ending in a dot and a 1–5 letter extension; not an address or a URL. */
const PATH = /(?<!\S)(?![^\s@]*(?:@|:\/\/))(?:\S*\/\S*|\S+\.\p{L}{1,5})(?=[\s,;:!?)]|[.]?$)/gu;

/**
 * A result step as the retrievers should see it: its leading inflected verb in its base
 * form ("saved to a.csv" → "save to a.csv") and each path or file name as the word "file"
 * ("save it in /root/notes/bitcoin.md" → "save it in file"): the step asks which tool
 * stores or sends, and the words inside a destination (markdown, notes, bitcoin) would
 * find tools about those instead. Other parts are returned unchanged.
 */
function resultStep(part: string): string {
  const verb = /^\p{L}+/u.exec(part)?.[0];
  const base = verb === undefined ? undefined : BASE_FORM.get(verb.toLowerCase());
  if (base === undefined) return part;
  return (base + part.slice(verb!.length)).replace(PATH, 'file');
}

/**
 * The parts of a compound query, trimmed: cut at the markers and before a result step
 * (RESULT_VERBS; not with `resultSteps` false); parts without a content word ("also,
 * please") are dropped. A query with no marker, or with one meaningful part, gives `[query]`.
 *
 * ### Usage
 * ```ts
 * splitQuery('Check my fee dues and then pay them')  // ['Check my fee dues', 'pay them']
 * splitQuery('Show name and email')                  // ['Show name and email']
 * splitQuery('Get the forecast and save it to a.md') // ['Get the forecast', 'save it to a.md']
 * splitQuery('Get the forecast, saved at /tmp/a.md')  // ['Get the forecast', 'save at file']
 * ```
 */
export function splitQuery(query: string, resultSteps = true): string[] {
  const parts = query
    .split(MARKER)
    .flatMap((p) => (resultSteps ? p.split(RESULT_STEP) : [p]))
    .map((p) => resultStep(p.trim()))
    .filter((p) => contentTerms(p).length > 0);
  if (parts.length <= 1) return [query.trim()];
  if (parts.length <= MAX_PARTS) return parts;
  return [...parts.slice(0, MAX_PARTS - 1), parts.slice(MAX_PARTS - 1).join(' ')];
}

/**
 * Slots each part retrieves: max(⌊top_k / parts⌋ + 2, 7). The +2 overlap and the floor of 7
 * keep a part's second-best tools in reach, since a part's first hit is often a near twin.
 */
export function partBudget(topK: number, parts: number): number {
  return Math.max(Math.floor(topK / parts) + 2, 7);
}

/**
 * Union of the parts' rankings, interleaved rank by rank (part 1's first, part 2's first,
 * part 1's second, ...) so every part is represented near the top; each part contributes
 * at most `budget` tools and duplicates count once.
 */
export function interleave(rankings: readonly (readonly number[])[], budget: number): number[] {
  const out: number[] = [];
  const seen = new Set<number>();
  for (let r = 0; r < budget; r++) {
    for (const ranking of rankings) {
      const i = ranking[r];
      if (i !== undefined && !seen.has(i)) {
        seen.add(i);
        out.push(i);
      }
    }
  }
  return out;
}
