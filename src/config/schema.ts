/**
 * zod schemas for every config file: the single source of the config types.
 * gateway.config.yaml, personas.yaml, dependencies.yaml, domain_synonyms.json,
 * exemplars.json. Unknown keys are rejected everywhere so a typo is an error, not a
 * silently ignored setting.
 */
import { z } from 'zod';
import { DEFAULT_FUSION, FUSIONS } from '../curator/fusion.js';
import { embedderConfigSchema } from '../embedding/index.js';

const stringMap = z.record(z.string(), z.string());

/** An upstream spawned as a child process speaking MCP over stdio. */
export const stdioUpstreamSchema = z
  .object({
    command: z.string().min(1),
    args: z.array(z.string()).default([]),
    /** Added to the gateway's own environment (PATH etc. are inherited). */
    env: stringMap.optional(),
    /** Working directory; relative to the config file. Default: the config file's folder. */
    cwd: z.string().optional(),
    /** Per-upstream start-up timeout in ms; default `timeouts.startup_ms`. */
    startup_timeout_ms: z.number().int().positive().optional(),
  })
  .strict();

/** A remote upstream: Streamable HTTP, falling back to SSE unless `transport` pins one. */
export const remoteUpstreamSchema = z
  .object({
    url: z.url(),
    headers: stringMap.optional(),
    transport: z.enum(['auto', 'streamable-http', 'sse']).default('auto'),
    startup_timeout_ms: z.number().int().positive().optional(),
  })
  .strict();

/**
 * Picked by key — `command` means stdio, `url` remote — so an error names the field that
 * is wrong in the shape the user meant, instead of "matches neither".
 */
export const upstreamSchema = z.unknown().transform((input, ctx): StdioUpstreamConfig | RemoteUpstreamConfig => {
  const obj = input && typeof input === 'object' ? (input as Record<string, unknown>) : undefined;
  const message =
    obj && 'command' in obj && 'url' in obj
      ? 'an upstream has either "command" (stdio) or "url" (remote), not both'
      : !obj || !('command' in obj || 'url' in obj)
        ? 'expected a stdio upstream {command, args?, env?, cwd?} or a remote one {url, headers?, transport?}'
        : undefined;
  if (message) {
    ctx.addIssue({ code: 'custom', message });
    return z.NEVER;
  }
  const result = ('command' in obj! ? stdioUpstreamSchema : remoteUpstreamSchema).safeParse(input);
  if (result.success) return result.data;
  for (const issue of result.error.issues) ctx.addIssue({ code: 'custom', message: issue.message, path: issue.path });
  return z.NEVER;
});

/** `auto` (shorthand for `{provider: auto}`) or a provider object with its settings; see embedding/index.ts. */
const embedderSchema = z.preprocess(
  (v) => (v === undefined ? { provider: 'auto' } : typeof v === 'string' ? { provider: v } : v),
  embedderConfigSchema,
);

export const curatorSchema = z
  .object({
    mode: z.enum(['none', 'bm25', 'dense', 'hybrid']).default('hybrid'),
    /**
     * The most tools a shortlist holds (find_tools' default limit), dependencies and split
     * parts included. 17: a confident ranking returns 12 (the reference system's top_k)
     * and keeps 5 for a flat ranking and for workflows (docs/CURATOR.md, "Limit").
     */
    top_k: z.number().int().positive().default(17),
    /**
     * How hybrid mode fuses its dense and BM25 rankings (src/curator/fusion.ts), both with
     * the same per-query gate: `score` (normalized scores, convex combination; measured
     * better on the university suite, docs/CURATOR.md) or `rrf` (Reciprocal Rank Fusion,
     * k = 60 over the top 50 of each list). Default `score`.
     */
    fusion: z.enum(FUSIONS).default(DEFAULT_FUSION),
    embedder: embedderSchema,
  })
  .strict();

export const gatewayConfigSchema = z
  .object({
    upstreams: z.record(z.string().regex(/^[A-Za-z0-9_-]+$/, 'upstream names use letters, digits, _ and -'), upstreamSchema),
    curator: curatorSchema.prefault({ embedder: 'auto' }),
    /** SQLite file for the embeddings cache, audit log and approvals; relative to the config file. */
    store: z.string().default('.tool-curator/store.db'),
    policy: z
      .object({
        personas: z.string().optional(),
        dependencies: z.string().optional(),
        synonyms: z.string().optional(),
        exemplars: z.string().optional(),
      })
      .strict()
      .default({}),
    exposure: z
      .object({
        /** Tools always in tools/list; they take no retrieval slot. */
        pinned: z.array(z.string()).default([]),
        /** Bound on a session's discovered tools; least recently used out. */
        max_visible: z.number().int().positive().default(40),
      })
      .strict()
      .default({ pinned: [], max_visible: 40 }),
    /** Identity of the stdio session (HTTP sessions take theirs from the bearer token). */
    session: z
      .object({ persona: z.string().optional(), user_id: z.string().optional() })
      .strict()
      .default({}),
    http: z
      .object({
        /** Bearer tokens for HTTP mode; write values as `${ENV_VAR}`. */
        tokens: z
          .array(z.object({ token: z.string().min(16, 'tokens need at least 16 characters'), persona: z.string(), user_id: z.string().optional() }).strict())
          .default([]),
        host: z.string().default('127.0.0.1'),
        /**
         * Token for the approvals web page (`/approvals`). Separate from the hosts' tokens:
         * a person approves, never the model's side. Unset: the page is not served.
         */
        approvals_token: z.string().min(16, 'tokens need at least 16 characters').optional(),
        /** An MCP session with no request for this long is closed. Default 30 minutes. */
        session_idle_minutes: z.number().positive().default(30),
      })
      .strict()
      .prefault({}),
    confirmation: z
      .object({
        /** Extra tool names (exposed names) treated as actions, e.g. for unannotated upstreams. */
        actions: z.array(z.string()).default([]),
        /** Minutes a pending approval stays valid. Default 10. */
        approval_ttl_minutes: z.number().positive().default(10),
      })
      .strict()
      .default({ actions: [], approval_ttl_minutes: 10 }),
    audit: z
      .object({ redact: z.array(z.string()).default(['password', 'token', 'secret', 'api_key']) })
      .strict()
      .default({ redact: ['password', 'token', 'secret', 'api_key'] }),
    timeouts: z
      .object({
        /** Time an upstream gets to start and answer tools/list. Default 20 s (npx may install). */
        startup_ms: z.number().int().positive().default(20_000),
        /** Time a forwarded tools/call gets. Default 60 s. */
        call_ms: z.number().int().positive().default(60_000),
      })
      .strict()
      .default({ startup_ms: 20_000, call_ms: 60_000 }),
  })
  .strict();

export type GatewayConfig = z.infer<typeof gatewayConfigSchema>;
export type UpstreamConfig = z.infer<typeof upstreamSchema>;
export type StdioUpstreamConfig = z.infer<typeof stdioUpstreamSchema>;
export type RemoteUpstreamConfig = z.infer<typeof remoteUpstreamSchema>;

/**
 * One persona. Patterns: `<server>.<glob>` (glob over the upstream tool name) or a bare
 * `<glob>` matching the tool name on any upstream; `*` matches any run of characters.
 * A tool is allowed iff it matches an allow pattern and no deny pattern.
 */
export const personaSchema = z
  .object({
    /** Identity fields injected into calls: `{student_id: "${user_id}"}`. */
    identity: stringMap.default({}),
    /**
     * Argument names this persona never sets (another persona's identity, e.g. a student's
     * `faculty_id`): hidden from the schemas its host sees and removed from its calls.
     */
    withhold: z.array(z.string()).default([]),
    allow: z.array(z.string()).default([]),
    deny: z.array(z.string()).default([]),
    /** Which calls need a person's approval: action tools (default), all, or none. */
    confirm: z.enum(['actions', 'all', 'none']).default('actions'),
  })
  .strict();

export const personasSchema = z.record(z.string(), personaSchema);
export type Persona = z.infer<typeof personaSchema>;
export type Personas = z.infer<typeof personasSchema>;

export const dependenciesSchema = z.record(z.string(), z.array(z.string()));
export const synonymsSchema = z.record(z.string(), z.string());
export const exemplarsSchema = z.record(z.string(), z.array(z.string()));
