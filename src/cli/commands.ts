/**
 * Every command of the CLI with its arguments and flags: the one table the parser
 * (parse.ts) and the usage text are made from. A command accepts only its own flags and
 * the common ones; a flag's value is checked here (`choices`, `int`) before any command
 * runs. Adding a command or a flag is an entry in this table (and its handler in cli.ts).
 */
import { LOG_FORMATS } from '../log.js';

export interface FlagSpec {
  type: 'string' | 'boolean';
  short?: string;
  /** Placeholder of the value in usage lines, e.g. `F`, `PORT`. */
  value?: string;
  /** The only values accepted. */
  choices?: readonly string[];
  /** A number: `count` a positive integer up to `max`, `port` 0–65535 (0: any free port). */
  int?: 'count' | 'port';
  /** Largest value of a `count` flag: a larger one is refused as a usage error before it reaches a query or the store. */
  max?: number;
  /** One line for `tool-curator <command> --help`. */
  help: string;
}

export interface CommandSpec {
  /** One line: what the command does. */
  summary: string;
  /** Positional arguments as shown in usage, e.g. `"<query>"`; absent: none accepted. */
  args?: { usage: string; min: number; max: number };
  flags: Record<string, FlagSpec>;
}

const MODES = ['none', 'bm25', 'dense', 'hybrid'] as const;
const FUSIONS = ['score', 'rrf'] as const;

const persona = { type: 'string', value: 'P', help: 'persona from personas.yaml (default: session.persona of the config)' } as const;
const json = { type: 'boolean', help: 'machine-readable output (JSON on stdout)' } as const;
const strict = { type: 'boolean', help: 'a persona pattern that matches no tool of a connected upstream, or a pinned tool name (exposure.pinned) of no tool, is an error, not a warning' } as const;
const topK = { type: 'string', value: 'N', int: 'count', max: 10_000, help: 'the most tools a shortlist holds (default: curator.top_k)' } as const;
const fusion = { type: 'string', choices: FUSIONS, help: 'how hybrid fuses dense and BM25 (default: curator.fusion)' } as const;
const refresh = { type: 'boolean', help: 'start the upstreams and list their tools, instead of reading the catalog snapshot' } as const;

/** Flags every command accepts. */
export const COMMON = {
  config: { type: 'string', value: 'F', help: 'gateway.config.yaml to use (default: $TOOL_CURATOR_CONFIG, else ./gateway.config.yaml)' },
  'log-format': { type: 'string', choices: LOG_FORMATS, help: 'log lines on stderr: pretty (default on a terminal) or json (default otherwise; also $TOOL_CURATOR_LOG_FORMAT)' },
  help: { type: 'boolean', short: 'h', help: 'this help' },
} as const satisfies Record<string, FlagSpec>;

export const COMMANDS = {
  serve: {
    summary: 'serve MCP to a host: over stdio, or Streamable HTTP with --http',
    flags: {
      http: { type: 'string', value: 'PORT', int: 'port', help: 'serve Streamable HTTP on this port (endpoint /mcp) instead of stdio' },
      persona,
      'user-id': { type: 'string', value: 'U', help: 'user id for the persona identity (default: session.user_id)' },
      exposure: { type: 'string', choices: ['static', 'dynamic'], help: 'static: tools/list never changes (hosts that ignore list_changed: Claude Desktop); default: exposure.mode' },
      strict,
    },
  },
  select: {
    summary: 'rank the tools for one query, as find_tools would',
    args: { usage: '"<query>"', min: 1, max: Infinity },
    flags: {
      persona,
      'top-k': topK,
      mode: { type: 'string', choices: MODES, help: 'retrieval mode for this query (default: curator.mode)' },
      fusion,
      explain: { type: 'boolean', help: 'show dense rank, BM25 rank and fused score of each tool' },
      json,
      refresh,
      strict,
    },
  },
  tools: {
    summary: 'list the upstreams and their tools (those a persona may use with --persona)',
    flags: { persona, json, strict },
  },
  index: {
    summary: 'build the embeddings index and exit (a progress bar on a terminal)',
    flags: {
      'write-vectors': { type: 'string', value: 'F', help: 'also embed every text of the catalog afresh and write them as a vector file (for curator.vectors)' },
      strict,
    },
  },
  eval: {
    summary: 'measure retrieval on a suite or a public data set',
    args: { usage: '<suite.yaml|metatool|toollens|api_bank|mcptoolbenchpp|livemcpbench|public|dev|calibrate|all>', min: 1, max: 1 },
    flags: {
      mode: { type: 'string', choices: [...MODES, 'all'], help: 'one mode, or all (default)' },
      fusion,
      'top-k': topK,
      sample: { type: 'string', value: 'N', int: 'count', max: 1_000_000, help: 'about N cases: a suite takes a category-stratified slice, a data set every k-th query' },
      approximate: { type: 'boolean', help: 'search the public sets through the HNSW graph whatever their size' },
      replay: { type: 'boolean', help: 'learning from use: score the test half, replay the traffic half as users\' sessions, score it again (docs/LEARNING.md)' },
      off: { type: 'string', value: 'LIST', help: 'switch mechanisms off to measure their share, comma-separated: servers, lexical, lexical-head, result-steps, spelling, gloss' },
      json,
      refresh,
    },
  },
  lint: {
    summary: 'find tool definitions the curator will confuse or cannot rank (per persona, or a data set or catalog file)',
    flags: {
      set: { type: 'string', choices: ['metatool', 'toollens', 'api_bank', 'mcptoolbenchpp', 'livemcpbench'], help: "lint a public data set's catalog instead of the config's" },
      catalog: { type: 'string', value: 'FILE', help: 'lint a catalog file (e.g. eval/workbench-catalog.yaml) instead of the config' },
      persona,
      mode: { type: 'string', choices: ['bm25', 'dense', 'hybrid'], help: 'retrieval mode the checks rank with (default: curator.mode)' },
      'top-k': topK,
      json,
    },
  },
  approvals: {
    summary: 'pending calls: list them, show what one signs, approve or deny one, or create the approver key (at a terminal); an approval the gateway would no longer honour shows as voided, with why',
    args: { usage: 'list | show ID | approve ID | deny ID | init-key', min: 1, max: 2 },
    flags: {
      all: { type: 'boolean', help: 'list decided approvals too' },
      json,
      'key-file': { type: 'string', value: 'F', help: "the approver's private key (default: confirmation.approver_key)" },
      statement: { type: 'string', value: 'DIGEST', help: 'approve or deny only if the request is still the statement `show` printed (sha256: and its 64 hex digits, or at least the first 32)' },
    },
  },
  definitions: {
    summary: 'tool definitions an upstream changed: list them (with who accepted each and when), show the diff, accept one or all of one upstream (with the approver key)',
    args: { usage: 'list | diff TOOL | accept TOOL DIGEST | accept --all --upstream U', min: 1, max: 3 },
    flags: {
      all: { type: 'boolean', help: 'list: every pinned definition; accept: every changed definition of --upstream, each diff shown first' },
      upstream: { type: 'string', value: 'U', help: 'with accept --all: the upstream whose changed definitions to accept (required)' },
      yes: { type: 'boolean', help: 'with accept --all: accept without asking (the diffs are still printed first)' },
      json,
      'key-file': { type: 'string', value: 'F', help: "the approver's private key (default: confirmation.approver_key)" },
    },
  },
  audit: {
    summary: 'the audit log: every call and search with its decision',
    flags: { tail: { type: 'string', value: 'N', int: 'count', max: 1_000_000, help: 'the last N entries (default 20)' }, json },
  },
  learned: {
    summary: 'what learning from use learned: list the (query, tool) pairs, or forget some (docs/LEARNING.md)',
    args: { usage: 'list | forget', min: 1, max: 1 },
    flags: {
      persona: { type: 'string', value: 'P', help: 'only this persona' },
      tenant: { type: 'string', value: 'T', help: 'only this tenant (the identity provider\'s issuer)' },
      tool: { type: 'string', value: 'T', help: 'only this tool' },
      query: { type: 'string', value: 'Q', help: 'forget: only this query (as listed)' },
      all: { type: 'boolean', help: 'list: pairs still gathering evidence too; forget: every pair' },
      json,
    },
  },
  auth: {
    summary: "consent to a remote upstream's OAuth (docs/AUTH.md)",
    args: { usage: '<upstream>', min: 1, max: 1 },
    flags: {
      logout: { type: 'boolean', help: 'delete the stored tokens' },
      user: { type: 'string', value: 'ID', help: "with --logout, of a per-user upstream: delete only this user's own tokens" },
      users: { type: 'boolean', help: 'of a per-user upstream: list the users who connected their own account' },
    },
  },
  doctor: {
    summary: 'check config files, store, upstreams, personas and embedder',
    flags: { json },
  },
  init: {
    summary: "write a gateway.config.yaml from the MCP servers a host's config already has, and print the entry that replaces them",
    args: { usage: '[HOST_CONFIG.json ...]', min: 0, max: Infinity },
    flags: {
      force: { type: 'boolean', help: 'overwrite an existing gateway.config.yaml' },
      'inline-secrets': { type: 'boolean', help: 'copy env values and headers that look like secrets into the config (default: ${VAR} references)' },
    },
  },
} as const satisfies Record<string, CommandSpec>;

export type CommandName = keyof typeof COMMANDS;

/** The value type of one flag after parsing and checking. */
type FlagValue<F> = F extends { type: 'boolean' } ? boolean : F extends { int: string } ? number : F extends { choices: readonly (infer C)[] } ? C : string;

/** The flags of a command as its handler receives them. */
export type FlagsOf<C extends CommandName> = { -readonly [K in keyof (typeof COMMANDS)[C]['flags'] | keyof typeof COMMON]?: FlagValue<((typeof COMMANDS)[C]['flags'] & typeof COMMON)[K]> };
