/**
 * A small, general lexicon of software and user-interface synonyms, for BM25 query
 * expansion only. People and tool authors name the same thing differently ("make a new
 * folder" / `create_directory`), and BM25 matches words, not meanings; the dense retriever
 * needs no help here.
 *
 * Scope: words any software catalog uses interchangeably for one operation or object.
 * It is not tuned to a catalog or a data set: domain vocabulary (fees, grades, knowledge
 * graphs) belongs in domain_synonyms.json, next to the tools it describes. Words with a
 * common second meaning in software stay out ("drop" a course, a library "book", "add" a
 * number), as do multi-word phrases.
 */
import { tokenize } from './tokenize.js';

/**
 * Groups of interchangeable words. A word in several groups expands to all of them.
 * Written for this project from general software vocabulary (file managers, CRUD verbs,
 * settings, media, archives), before and independently of any evaluation query set.
 */
export const SYNONYM_GROUPS: readonly (readonly string[])[] = [
  // objects
  ['folder', 'directory', 'dir'],
  ['picture', 'image', 'photo', 'pic', 'img'],
  ['url', 'link', 'hyperlink'],
  ['relation', 'relationship'],
  ['settings', 'configuration', 'config', 'preferences'],
  ['email', 'mail'],
  ['environment', 'env'],
  ['variable', 'var'],
  ['repository', 'repo'],
  ['database', 'db'],
  ['application', 'app'],
  ['information', 'info'],
  ['statistics', 'stats', 'metrics'],
  // operations
  ['create', 'make'],
  ['delete', 'remove', 'erase', 'destroy'],
  ['edit', 'modify', 'change', 'update', 'alter'],
  ['find', 'search', 'locate', 'lookup'],
  ['show', 'display', 'view'],
  ['fetch', 'retrieve'],
  ['copy', 'duplicate', 'clone'],
  ['save', 'write'],
  ['run', 'execute', 'launch'],
  ['stop', 'halt', 'terminate', 'kill'],
  ['enable', 'activate', 'toggle'],
  ['disable', 'deactivate', 'toggle'],
  ['compress', 'zip', 'gzip'],
];

/**
 * Weight of a synonym's match relative to the query's own word: half. A tool that uses
 * the user's word outranks an otherwise equal one that uses a synonym, and a tool with a
 * synonym still outranks one with neither. Chosen, not fitted (docs/CURATOR.md).
 */
export const SYNONYM_WEIGHT = 0.5;

/** term (tokenizer form) → its synonyms (tokenizer form), built once. */
const SYNONYMS: ReadonlyMap<string, readonly string[]> = (() => {
  const map = new Map<string, Set<string>>();
  for (const group of SYNONYM_GROUPS) {
    const terms = group.flatMap((w) => tokenize(w));
    for (const t of terms) {
      const set = map.get(t) ?? new Set<string>();
      for (const u of terms) if (u !== t) set.add(u);
      map.set(t, set);
    }
  }
  return new Map([...map].map(([t, s]) => [t, [...s]]));
})();

/**
 * The synonyms of each query term that are not query terms themselves, as
 * synonym → the query terms it stands for.
 *
 * ### Usage
 * ```ts
 * expandTerms(['make', 'folder', 'report'])
 * // Map { 'create' => ['make'], 'directory' => ['folder'], 'dir' => ['folder'] }
 * ```
 */
export function expandTerms(terms: readonly string[]): Map<string, string[]> {
  const own = new Set(terms);
  const out = new Map<string, string[]>();
  for (const t of terms) {
    for (const s of SYNONYMS.get(t) ?? []) {
      if (own.has(s)) continue;
      const from = out.get(s);
      if (from) from.push(t);
      else out.set(s, [t]);
    }
  }
  return out;
}
