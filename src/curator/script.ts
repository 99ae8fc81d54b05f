/**
 * Writing systems: which scripts a catalog's tool texts use, and whether a query is
 * written in one the catalog does not use. BM25 cannot match across scripts, and an
 * English-only sentence encoder (USE Lite, bge-small-en) maps such a query to noise: the
 * university catalog gave every Japanese and Chinese query the same three tools at
 * confidence 0.23–0.33. Saying so is more useful than that list.
 */

/**
 * Scripts told apart, by their Unicode Script property. Han, Hiragana and Katakana are
 * separate scripts here: a catalog described in Chinese uses Han, not kana.
 */
export const SCRIPTS = [
  'Latin', 'Cyrillic', 'Greek', 'Armenian', 'Georgian', 'Hebrew', 'Arabic', 'Devanagari', 'Bengali', 'Gurmukhi',
  'Gujarati', 'Tamil', 'Telugu', 'Kannada', 'Malayalam', 'Sinhala', 'Thai', 'Lao', 'Khmer', 'Myanmar', 'Ethiopic',
  'Han', 'Hiragana', 'Katakana', 'Hangul',
] as const;
export type Script = (typeof SCRIPTS)[number];

const PATTERNS: readonly [Script, RegExp][] = SCRIPTS.map((s) => [s, new RegExp(`\\p{Script=${s}}`, 'u')]);
const LETTER = /\p{L}/gu;

/** Letters of `text` per script (letters of other scripts are not counted). */
export function scriptCounts(text: string): Map<Script, number> {
  const counts = new Map<Script, number>();
  for (const m of text.matchAll(LETTER)) {
    const ch = m[0];
    // ASCII letters are Latin: most letters of most catalogs, without 25 tests each.
    if (ch.charCodeAt(0) < 0x80) {
      counts.set('Latin', (counts.get('Latin') ?? 0) + 1);
      continue;
    }
    for (const [script, re] of PATTERNS) {
      if (re.test(ch)) {
        counts.set(script, (counts.get(script) ?? 0) + 1);
        break;
      }
    }
  }
  return counts;
}

/**
 * Letters a script needs in the whole catalog to count as used by it: a few stray
 * characters (a name like "Zoë", one "°C") do not make a catalog Greek or Chinese, while
 * one tool described in Chinese (about 20 Han characters and up) does.
 */
export const MIN_CATALOG_LETTERS = 20;

/** Share of a query's letters in scripts the catalog lacks from which the query is foreign. */
export const FOREIGN_SHARE = 0.5;

export class ScriptProfile {
  private readonly total = new Map<Script, number>();
  private usedCache: Script[] | undefined;

  /** @param texts the catalog's indexed texts (one per tool is enough) */
  constructor(texts: Iterable<string> = []) {
    this.add(texts);
  }

  /** Counts more of the catalog's texts (a large catalog is profiled in chunks). */
  add(texts: Iterable<string>): void {
    for (const t of texts) for (const [s, n] of scriptCounts(t)) this.total.set(s, (this.total.get(s) ?? 0) + n);
    this.usedCache = undefined;
  }

  /** Scripts the catalog uses, most letters first. */
  get used(): Script[] {
    return (this.usedCache ??= [...this.total].filter(([, n]) => n >= MIN_CATALOG_LETTERS).sort((a, b) => b[1] - a[1]).map(([s]) => s));
  }

  /**
   * The scripts of `query` that the catalog does not use, most letters first, when at
   * least half of the query's letters are in them; [] otherwise (and for a query without
   * letters, or a catalog without any).
   *
   * ### Usage
   * ```ts
   * const profile = new ScriptProfile(['Returns a student\'s fee dues']);
   * profile.foreign('図書館の本を延長したい')  // ['Hiragana', 'Han']
   * profile.foreign('pay my fees')             // []
   * ```
   */
  foreign(query: string): Script[] {
    if (this.used.length === 0) return [];
    const counts = scriptCounts(query);
    let letters = 0;
    let outside = 0;
    for (const [s, n] of counts) {
      letters += n;
      if (!this.used.includes(s)) outside += n;
    }
    if (letters === 0 || outside / letters < FOREIGN_SHARE) return [];
    return [...counts].filter(([s]) => !this.used.includes(s)).sort((a, b) => b[1] - a[1]).map(([s]) => s);
  }
}
