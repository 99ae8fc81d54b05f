/**
 * Finding many literal strings in a text at once. Every spelling is at least
 * MIN_SECRET_CHARS (8) long, so one 4-character window in every 5 positions of the text
 * is enough to see each occurrence: an occurrence of length ≥ 8 contains a sampled
 * window whose offset in the spelling is one of 5 (`WINDOWS`). The index maps a hash of each
 * spelling's last 8 characters' 4-grams (tokens start alike — `eyJhbGci`, `ghp_` — and end
 * at random) to the spelling; a hit is verified with `startsWith`.
 *
 * Why not one regular expression of the alternatives: V8 tries them one by one at each
 * position. On 1 MB of text (bench/secrets.ts, 2026-12-05, 2-core, Node 20) 100 random
 * spellings in one RegExp took 6.7 ms and 1,000 took 186 ms; this index took 3.2 ms with
 * 24 spellings and 3.6 ms with 80,024 (10,000 users' tokens).
 */
import { MIN_SECRET_CHARS } from './forms.js';

const GRAM = 4;
/** Positions sampled: every WINDOWS-th; a spelling is indexed at WINDOWS offsets. */
const WINDOWS = MIN_SECRET_CHARS - GRAM + 1;

/** A found occurrence: [start, end) in the text, and the label of what was there. */
export interface Found {
  start: number;
  end: number;
  label: string;
}

function gramHash(text: string, at: number): number {
  let h = 0;
  for (let j = 0; j < GRAM; j++) h = Math.imul(h ^ text.charCodeAt(at + j), 0x9e3779b1);
  return h ^ (h >>> 16);
}

export class LiteralMatcher {
  private readonly spellings: string[] = [];
  private readonly labels: string[] = [];
  private readonly head: Int32Array;
  private readonly entry: Int32Array;
  /** Offset, in the spelling, of the window each entry indexes. */
  private readonly offset: Int32Array;
  private readonly next: Int32Array;
  private readonly mask: number;

  /** @param entries spellings (each ≥ MIN_SECRET_CHARS; shorter ones are skipped) and their labels; the first label of a repeated spelling wins. */
  constructor(entries: Iterable<{ spelling: string; label: string }>) {
    const seen = new Set<string>();
    for (const { spelling, label } of entries) {
      if (spelling.length < MIN_SECRET_CHARS || seen.has(spelling)) continue;
      seen.add(spelling);
      this.spellings.push(spelling);
      this.labels.push(label);
    }
    const count = this.spellings.length * WINDOWS;
    let size = 64;
    while (size < count * 2) size <<= 1;
    this.mask = size - 1;
    this.head = new Int32Array(size).fill(-1);
    this.entry = new Int32Array(count);
    this.offset = new Int32Array(count);
    this.next = new Int32Array(count);
    let k = 0;
    this.spellings.forEach((s, i) => {
      const tail = s.length - MIN_SECRET_CHARS;
      for (let o = 0; o < WINDOWS; o++) {
        const bucket = gramHash(s, tail + o) & this.mask;
        this.entry[k] = i;
        this.offset[k] = tail + o;
        this.next[k] = this.head[bucket]!;
        this.head[bucket] = k++;
      }
    });
  }

  /** How many distinct spellings are searched for. */
  get size(): number {
    return this.spellings.length;
  }

  /**
   * Every occurrence in `text`, overlapping ones included, in no particular order.
   *
   * ### Usage
   * ```ts
   * new LiteralMatcher([{ spelling: 'tok-12345678', label: 'a token' }]).find('x tok-12345678 y');
   * // [{ start: 2, end: 14, label: 'a token' }]
   * ```
   */
  find(text: string): Found[] {
    const found: Found[] = [];
    if (this.spellings.length === 0) return found;
    const { head, entry, offset, next, mask, spellings } = this;
    for (let p = 0; p + GRAM <= text.length; p += WINDOWS) {
      for (let e = head[gramHash(text, p) & mask]!; e !== -1; e = next[e]!) {
        const start = p - offset[e]!;
        const s = spellings[entry[e]!]!;
        if (start >= 0 && text.startsWith(s, start)) found.push({ start, end: start + s.length, label: this.labels[entry[e]!]! });
      }
    }
    return found;
  }
}
