/**
 * zod schemas for every config file: the single source of the config types.
 * gateway.config.yaml, personas.yaml, dependencies.yaml, domain_synonyms.json,
 * exemplars.json. Unknown keys are rejected everywhere so a typo is an error, not a
 * silently ignored setting.
 */
import { z } from 'zod';
import { DEFAULT_FUSION, FUSIONS } from '../curator/fusion.js';
import { DEFAULT_APPROXIMATE, QUANTIZATIONS } from '../curator/types.js';
import { embedderConfigSchema } from '../embedding/index.js';

const stringMap = z.record(z.string(), z.string());

/**
 * How a person confirms a call that needs it: `elicitation` (asked in the host; a host
 * without elicitation falls back to the approvals list), `approvals` (the approvals page
 * or CLI only) or `both` (both required). Default per session: `approvals` over HTTP (a
 * client holding a host token could answer elicitation itself), `elicitation` over stdio.
 */
export const confirmViaSchema = z.enum(['elicitation', 'approvals', 'both']);
export type ConfirmVia = z.infer<typeof confirmViaSchema>;

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

/** The `oauth` form of an upstream's `auth`. */
const oauthClientSchema = z
  .object({
    /** A pre-registered client; unset: dynamic registration or `client_metadata_url`. */
    client_id: z.string().min(1).optional(),
    client_secret: z.string().min(1).optional(),
    /** Scopes asked for when the server's challenge and metadata name none. */
    scopes: z.array(z.string().min(1)).optional(),
    /** HTTPS URL of this gateway's client ID metadata document, used where the authorization server supports them. */
    client_metadata_url: z.url().optional(),
    /** Loopback port `auth` receives the redirect on; default 0 (any free port). Fix it when the redirect URI is registered. */
    redirect_port: z.number().int().min(0).max(65535).default(0),
  })
  .strict();

/**
 * How the gateway authorizes itself to a remote upstream (docs/AUTH.md). `oauth`: the MCP
 * authorization flow (authorization code + PKCE) for a person's account, consented once
 * with `tool-curator auth <upstream>`; the object form names a pre-registered client or a
 * client ID metadata document. `client_credentials`: machine to machine, with a secret
 * (client_secret_basic) or a private key (private_key_jwt). Tokens live in the store.
 */
export const upstreamAuthSchema = z.union([
  z.literal('oauth').transform(() => ({ oauth: oauthClientSchema.parse({}) })),
  z.object({ oauth: oauthClientSchema }).strict(),
  z
    .object({
      client_credentials: z
        .object({
          client_id: z.string().min(1),
          client_secret: z.string().min(1).optional(),
          /** PEM private key for private_key_jwt client authentication, instead of a secret. */
          private_key: z.string().min(1).optional(),
          /** Signing algorithm of `private_key`. Default ES256. */
          algorithm: z.string().default('ES256'),
          scopes: z.array(z.string().min(1)).optional(),
          /** The authorization server these credentials belong to; they are presented to no other. Recommended. */
          issuer: z.url().optional(),
        })
        .strict()
        .refine((c) => (c.client_secret === undefined) !== (c.private_key === undefined), 'client_credentials needs exactly one of client_secret or private_key'),
    })
    .strict(),
]);

export type UpstreamAuthConfig = z.infer<typeof upstreamAuthSchema>;
export type OAuthClientConfig = z.infer<typeof oauthClientSchema>;

/** A remote upstream: Streamable HTTP, falling back to SSE unless `transport` pins one. */
export const remoteUpstreamSchema = z
  .object({
    url: z.url(),
    headers: stringMap.optional(),
    /** Unset: static `headers` only, as before. */
    auth: upstreamAuthSchema.optional(),
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
        ? 'expected a stdio upstream {command, args?, env?, cwd?} or a remote one {url, headers?, auth?, transport?}'
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
    /**
     * Approximate dense search for large catalogs (src/curator/ann.ts): from `from` tools
     * on, a usearch HNSW graph with vectors stored `quantization` proposes the candidates
     * and each is rescored exactly. Below it every row is scored. Default from 20,000
     * tools, i8 (docs/PERFORMANCE.md has the recall lost and the speed gained).
     */
    approximate: z
      .object({
        from: z.number().int().nonnegative().default(DEFAULT_APPROXIMATE.from),
        quantization: z.enum(QUANTIZATIONS).default(DEFAULT_APPROXIMATE.quantization),
      })
      .strict()
      .prefault({}),
    embedder: embedderSchema,
    /**
     * A vector file (written by `tool-curator index --write-vectors F`) whose vectors
     * seed the embeddings cache when the active embedder computed them, so a first start
     * embeds only the texts that changed since; relative to the config file. Unset: none.
     */
    vectors: z.string().min(1).optional(),
  })
  .strict();

/** Bounds of the relayed lists and reads; every size that comes from an upstream is capped. */
export const relaySchema = z
  .object({
    /** Items per page of the gateway's own resources/list, resources/templates/list and prompts/list. Default 100. */
    page_size: z.number().int().positive().max(1000).default(100),
    /** Items kept per upstream and kind (resources, templates, prompts); the rest is dropped and logged. Default 5,000. */
    max_items: z.number().int().positive().default(5000),
    /** Largest resources/read or prompts/get result passed to the host, in bytes of its JSON. Default 16 MiB. */
    max_read_bytes: z.number().int().positive().default(16 * 1024 * 1024),
  })
  .strict()
  .prefault({});

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
        /**
         * `dynamic` (default): find_tools adds its matches to the session's tools/list and
         * sends `notifications/tools/list_changed`. `static`: tools/list is fixed per
         * persona (find_tools, call_tool, pinned); matches are called through call_tool.
         * Use `static` for hosts that ignore list_changed (docs/CONFORMANCE.md, "Exposure modes").
         */
        mode: z.enum(['dynamic', 'static']).default('dynamic'),
      })
      .strict()
      .default({ pinned: [], max_visible: 40, mode: 'dynamic' }),
    /** Identity of the stdio session (HTTP sessions take theirs from the bearer token). */
    session: z
      .object({ persona: z.string().optional(), user_id: z.string().optional() })
      .strict()
      .default({}),
    http: z
      .object({
        /** Bearer tokens for HTTP mode; write values as `${ENV_VAR}`. */
        tokens: z
          .array(
            z
              .object({
                token: z.string().min(16, 'tokens need at least 16 characters'),
                persona: z.string(),
                user_id: z.string().optional(),
                /** Confirmation channel of this token's sessions; default the persona's `confirm_via`, else `approvals`. */
                confirm_via: confirmViaSchema.optional(),
              })
              .strict(),
          )
          .default([]),
        host: z.string().default('127.0.0.1'),
        /**
         * Token for the approvals web page (`/approvals`). Separate from the hosts' tokens:
         * a person approves, never the model's side. Unset: the page is not served.
         */
        approvals_token: z.string().min(16, 'tokens need at least 16 characters').optional(),
        /** An MCP session with no request for this long is closed. Default 30 minutes. */
        session_idle_minutes: z.number().positive().default(30),
        /**
         * Hostnames (no port; IPv6 in brackets) the `Host` header may name; anything else
         * gets HTTP 403 (DNS-rebinding protection). Default: `localhost`, `127.0.0.1`,
         * `[::1]` and the bound address. Set it when hosts reach the gateway by another name.
         */
        allowed_hosts: z
          .array(z.string().refine((h) => URL.canParse(`http://${h}`) && new URL(`http://${h}`).hostname === h.toLowerCase(), 'a hostname without port, e.g. mcp.example.com or [::1]'))
          .optional(),
        /** Origins (`https://app.example.com`) a browser-based host may send. Default: any origin on an allowed host. */
        allowed_origins: z.array(z.url()).optional(),
        /**
         * Identity of requests that carry no `Authorization` header, for local tools that
         * cannot send one (the MCP conformance suite). Accepted only when the face binds a
         * loopback address; a request with a wrong token still gets 401. Unset: every request needs a token.
         */
        anonymous: z.object({ persona: z.string(), user_id: z.string().optional() }).strict().optional(),
      })
      .strict()
      .prefault({}),
    confirmation: z
      .object({
        /** Extra tool names (exposed names) treated as actions, e.g. for unannotated upstreams. */
        actions: z.array(z.string()).default([]),
        /** Minutes a pending approval stays valid. Default 10. */
        approval_ttl_minutes: z.number().positive().default(10),
        /**
         * The approver's private key (Ed25519, mode 0600) that `approvals approve|deny` sign
         * with; the gateway checks signatures against `<approver_key>.pub`. Relative to the
         * config file. Default: `approver.key` beside the store.
         */
        approver_key: z.string().optional(),
      })
      .strict()
      .default({ actions: [], approval_ttl_minutes: 10 }),
    audit: z
      .object({
        redact: z.array(z.string()).default(['password', 'token', 'secret', 'api_key']),
        /**
         * Largest argument value (UTF-8 bytes) stored in the audit log and the approvals
         * store; longer strings are cut with a `…[truncated N bytes]` marker. Default 4096.
         */
        max_value_bytes: z.number().int().min(64).default(4096),
      })
      .strict()
      .prefault({}),
    /** Bounds on what passes through from the upstreams: resources, templates, prompts (src/relay/). */
    relay: relaySchema,
    timeouts: z
      .object({
        /** Time an upstream gets to start and answer tools/list. Default 20 s (npx may install). */
        startup_ms: z.number().int().positive().default(20_000),
        /** Time a forwarded tools/call gets; progress from the upstream starts it again. Default 60 s. */
        call_ms: z.number().int().positive().default(60_000),
        /**
         * Longest total time of a forwarded tools/call that keeps reporting progress, and
         * longest wait for a host's answer to an upstream's question. Default 10 minutes.
         */
        call_max_ms: z.number().int().positive().default(600_000),
      })
      .strict()
      .default({ startup_ms: 20_000, call_ms: 60_000, call_max_ms: 600_000 }),
  })
  .strict();

export type GatewayConfig = z.infer<typeof gatewayConfigSchema>;
export type UpstreamConfig = z.infer<typeof upstreamSchema>;
export type StdioUpstreamConfig = z.infer<typeof stdioUpstreamSchema>;
export type RemoteUpstreamConfig = z.infer<typeof remoteUpstreamSchema>;

/** allow/deny patterns for resources or prompts; allowed iff an allow pattern matches and no deny pattern does. */
export const relayPatternsSchema = z
  .object({ allow: z.array(z.string()).default([]), deny: z.array(z.string()).default([]) })
  .strict()
  .default({ allow: [], deny: [] });

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
    /**
     * Resources and resource templates this persona may list and read: `<server>.<glob>`
     * over the resource URI or template URI (or a bare `<glob>` on any server). Absent:
     * none (deny by default; see docs/PROTOCOL-LISTS.md).
     */
    resources: relayPatternsSchema,
    /** Prompts this persona may list, get and complete: `<server>.<glob>` over the prompt name. Absent: none. */
    prompts: relayPatternsSchema,
    /** Which calls need a person's approval: action tools (default), all, or none. */
    confirm: z.enum(['actions', 'all', 'none']).default('actions'),
    /** How a person confirms them (confirmViaSchema); default per transport: `approvals` over HTTP, `elicitation` over stdio. */
    confirm_via: confirmViaSchema.optional(),
  })
  .strict();

export const personasSchema = z.record(z.string(), personaSchema);
export type Persona = z.infer<typeof personaSchema>;
export type Personas = z.infer<typeof personasSchema>;

export const dependenciesSchema = z.record(z.string(), z.array(z.string()));
export const synonymsSchema = z.record(z.string(), z.string());
export const exemplarsSchema = z.record(z.string(), z.array(z.string()));
