/**
 * The retrieval text of a tool: the one string both retrievers (BM25 and the dense
 * embedder) index. Tool names are identifiers (`get_fee_dues`, `playwright::iframeClick`,
 * `/v1/nutrition`), so they are split into the words a person would type.
 */
import type { ToolRecord } from './types.js';

/** Parameter descriptions longer than this (characters) are left out: long ones are
 * usually format specs and examples that drown the tool's purpose in the embedding. */
const SHORT_PARAM_DESCRIPTION = 80;

/**
 * Splits an identifier into lowercase words on `_`, `-`, `.`, `/`, `::`, whitespace and
 * camelCase boundaries (an acronym stays one word: `getHTTPStatus` → get, http, status).
 *
 * ### Usage
 * ```ts
 * splitName('playwright::iframeClick') // ['playwright', 'iframe', 'click']
 * splitName('/v1/nutrition')           // ['v1', 'nutrition']
 * ```
 */
export function splitName(name: string): string[] {
  return name
    .replace(/(\p{Ll}|\p{N})(\p{Lu})/gu, '$1 $2')
    .replace(/(\p{Lu})(\p{Lu}\p{Ll})/gu, '$1 $2')
    .split(/[\s_\-./:]+/u)
    .filter((w) => w.length > 0)
    .map((w) => w.toLowerCase());
}

/** Top-level parameters of a JSON Schema object: name and description. */
function parameters(tool: ToolRecord): { name: string; description: string }[] {
  const props = (tool.inputSchema as { properties?: Record<string, unknown> }).properties;
  if (!props || typeof props !== 'object') return [];
  return Object.entries(props).map(([name, schema]) => {
    const d = (schema as { description?: unknown } | null)?.description;
    return { name, description: typeof d === 'string' ? d.trim() : '' };
  });
}

/** The parts of a tool's retrieval text, kept apart for retrievers that weigh them differently. */
export interface RetrievalFields {
  /** Split name, then the title when there is one: "get fee dues. Fee dues". */
  name: string;
  /** Description, then the synonym string from domain_synonyms.json. */
  description: string;
  /** Parameter names split into words, with descriptions under 80 characters: "student id (The student), note". */
  parameters: string;
}

function clean(parts: readonly (string | undefined)[]): string[] {
  return parts.map((p) => (p ?? '').trim().replace(/[.\s]+$/u, '')).filter((p) => p.length > 0);
}

/** Characters of a server's instructions indexed with its bare tools: the opening, which says what the server is for (instructions can run to pages of usage notes). */
const MAX_INSTRUCTIONS = 500;
/** Words (3+ letters or digits) a description needs beyond its tool's name not to be bare. */
const BARE_WORDS = 2;
const DESCRIPTION_WORD = /[\p{L}\p{N}]{3,}/gu;
const IDEOGRAPHIC = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/gu;

/**
 * Whether a tool's description says nothing its name does not: empty, or fewer than
 * BARE_WORDS words of 3+ letters besides the name's own words (plurals folded), e.g.
 * `get-solution` "Get solution.", `dividends` "Dividends.". Scripts written without
 * spaces count a word per two characters. Such a tool is retrieved by what surrounds it:
 * its parameters' descriptions, whatever their length, and its server's title and
 * instructions (retrievalFields).
 *
 * ### Usage
 * ```ts
 * bareDescription({ name: 'get-solution', description: 'Get solution.' })        // true
 * bareDescription({ name: 'get_note', description: "One note's full text." })     // false
 * ```
 */
export function bareDescription(tool: Pick<ToolRecord, 'name' | 'description'>): boolean {
  const fold = (w: string): string => w.toLowerCase().replace(/s$/u, '');
  const own = new Set(splitName(tool.name).map(fold));
  let words = 0;
  for (const m of tool.description.matchAll(DESCRIPTION_WORD)) {
    const ideographs = m[0].match(IDEOGRAPHIC)?.length ?? 0;
    words += ideographs > 0 ? Math.floor(ideographs / 2) : own.has(fold(m[0])) ? 0 : 1;
    if (words >= BARE_WORDS) return false;
  }
  return true;
}

/**
 * The retrieval text's parts: name (+ title), description (+ synonyms), parameters. A
 * bare tool (bareDescription) also gets its server's title and instructions after its
 * description, and every parameter description whatever its length.
 */
export function retrievalFields(tool: ToolRecord, synonyms?: string): RetrievalFields {
  const bare = bareDescription(tool);
  const params = parameters(tool).map(({ name, description }) => {
    const words = splitName(name).join(' ');
    return description && (bare || description.length < SHORT_PARAM_DESCRIPTION) ? `${words} (${description})` : words;
  });
  const server = bare ? [splitName(tool.server).join(' '), tool.serverTitle, tool.serverInstructions?.slice(0, MAX_INSTRUCTIONS)] : [];
  return {
    name: clean([splitName(tool.name).join(' '), tool.title]).join('. '),
    description: clean([tool.description, synonyms, ...server]).join('. '),
    parameters: params.join(', '),
  };
}

/**
 * The text a tool is retrieved by as a whole: split name, title, description, the synonym
 * string from domain_synonyms.json, then parameter names (split the same way) with their
 * descriptions when shorter than 80 characters.
 *
 * ### Usage
 * ```ts
 * retrievalText(feeDues, 'outstanding balance money owed')
 * // 'get fee dues. Fee dues of a student. outstanding balance money owed. Parameters: student id (The student).'
 * ```
 */
export function retrievalText(tool: ToolRecord, synonyms?: string): string {
  return fieldsText(retrievalFields(tool, synonyms));
}

/** The retrieval text made of its fields (retrievalText without computing them again). */
export function fieldsText(f: RetrievalFields): string {
  const parts = [f.name, f.description];
  if (f.parameters) parts.push(`Parameters: ${f.parameters}`);
  return clean(parts).join('. ') + '.';
}

/** Sentence ends: . ! ? then space and a capital, digit or opening quote/bracket (so "e.g. foo" and "v1.2" stay whole). */
const SENTENCE_END = /(?<=[.!?])\s+(?=[\p{Lu}\p{N}'"(\[])/u;
/** A tool gets at most this many description passages; later sentences are mostly caveats. */
export const MAX_PASSAGES = 6;

/** A tool's short views by kind (each cleaned like retrievalText's parts; absent or empty when the tool has none). */
export interface PassageParts {
  /** Split name and title: "create directory. Create Directory". */
  name?: string;
  /** Description sentences, the first MAX_PASSAGES. */
  sentences: string[];
  /** The synonym string from domain_synonyms.json. */
  synonyms?: string;
}

/** passages() by kind: the curator's catalog trust (trust.ts) probes names against descriptions. */
export function passageParts(tool: ToolRecord, synonyms?: string): PassageParts {
  const sentences = tool.description.split(SENTENCE_END).map((x) => x.trim()).filter((x) => x.length > 0);
  const [name] = clean([retrievalFields(tool).name]);
  const [syn] = clean([synonyms]);
  return { ...(name ? { name } : {}), sentences: clean(sentences.slice(0, MAX_PASSAGES)), ...(syn ? { synonyms: syn } : {}) };
}

/**
 * Short views of a tool for the dense retriever's passage scoring (MaxP, Dai & Callan,
 * SIGIR 2019): the name phrase (split name and title), each description sentence (the
 * first 6) and the synonym string. A long, multi-sentence description dilutes a
 * sentence encoder's single vector; a passage keeps one purpose statement whole.
 *
 * ### Usage
 * ```ts
 * passages(createDirectory)
 * // ['create directory. Create Directory', 'Create a new directory or ensure a directory exists', ...]
 * ```
 */
export function passages(tool: ToolRecord, synonyms?: string): string[] {
  const p = passageParts(tool, synonyms);
  return [...(p.name ? [p.name] : []), ...p.sentences, ...(p.synonyms ? [p.synonyms] : [])];
}
