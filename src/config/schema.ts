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
import { DEFAULT_MAX_RESULT_BYTES } from '../upstream/types.js';

const stringMap = z.record(z.string(), z.string());

/**
 * How a person confirms a call that needs it: `elicitation` (asked in the host; a host
 * without elicitation falls back to the approvals list), `approvals` (the approvals page
 * or CLI only) or `both` (both required). Default per session: `approvals` over HTTP (a
 * client holding a host token could answer elicitation itself), `elicitation` over stdio.
 */
export const confirmViaSchema = z.enum(['elicitation', 'approvals', 'both']);
export type ConfirmVia = z.infer<typeof confirmViaSchema>;

/**
 * Which MCP protocol era the gateway speaks to an upstream (docs/PROTOCOL.md, "Upstream
 * eras"): `auto` asks with `server/discover` and falls back to the 2025 `initialize`
 * handshake for a server that does not know it; `2025-11-25` always uses `initialize`;
 * `2026-07-28` speaks only that revision (a 2025-only server then fails to start).
 * The verdict of `auto` is kept in the store for a day, so restarts and replicas skip the probe.
 */
export const upstreamProtocolSchema = z.enum(['auto', '2025-11-25', '2026-07-28']);
export type UpstreamProtocol = z.infer<typeof upstreamProtocolSchema>;

/** An upstream spawned as a child process speaking MCP over stdio. */
export const stdioUpstreamSchema = z
  .object({
    command: z.string().min(1),
    args: z.array(z.string()).default([]),
    /** Added to the SDK's default environment for a child (PATH, HOME, USER, SHELL, TERM, LOGNAME); nothing else of the gateway's own environment is passed on. */
    env: stringMap.optional(),
    /**
     * Names of `env` entries whose values are credentials, beside those whose names
     * match `audit.redact` (`GITHUB_TOKEN`, `DB_PASSWORD`, …): never sent to a host
     * (docs/SAFETY.md, "Secrets never reach a host"). Default none.
     */
    secret_env: z.array(z.string().min(1)).default([]),
    /** Working directory; relative to the config file. Default: the config file's folder. */
    cwd: z.string().optional(),
    /** Per-upstream start-up timeout in ms; default `timeouts.startup_ms`. */
    startup_timeout_ms: z.number().int().positive().optional(),
    /** Protocol era (upstreamProtocolSchema). Default `auto`. */
    protocol: upstreamProtocolSchema.default('auto'),
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
  z.literal('oauth').transform(() => ({ oauth: oauthClientSchema.parse({}), per_user: false })),
  z
    .object({
      oauth: oauthClientSchema,
      /**
       * Each gateway user acts with their own account: consented once per user (a link the
       * gateway gives them), tokens stored and refreshed per user, never used for another.
       * The gateway's own consent (`tool-curator auth <upstream>`) then only lists the
       * tools. Default false: every user acts through the gateway's one account. docs/AUTH.md.
       */
      per_user: z.boolean().default(false),
    })
    .strict(),
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
    /** Protocol era (upstreamProtocolSchema). Default `auto`; SSE upstreams are 2025-era servers, probed like any other. */
    protocol: upstreamProtocolSchema.default('auto'),
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
  // Neither key, but one neither shape takes (`comand: node`): an unknown key, which gets the closest accepted one (config/suggest.ts).
  const unknown = obj && !('command' in obj || 'url' in obj) ? Object.keys(obj).filter((k) => !(k in stdioUpstreamSchema.shape || k in remoteUpstreamSchema.shape)) : [];
  if (unknown.length > 0) {
    ctx.addIssue({ code: 'unrecognized_keys', keys: unknown, input: obj, message: `Unrecognized key${unknown.length > 1 ? 's' : ''}: ${unknown.map((k) => `"${k}"`).join(', ')}` });
    return z.NEVER;
  }
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

/**
 * Learning from use (src/learning/learning.ts, docs/CURATOR.md "Learning from use"): a
 * find_tools query followed in the same session by a successful, uncorrected, allowed
 * call of a tool it returned becomes evidence; a (query, tool) pair that enough distinct
 * users of one persona gave is indexed as a learned exemplar of that persona only.
 */
export const learningSchema = z
  .object({
    /** Opt-in. Default false: nothing is recorded and rankings are never changed by use. */
    enabled: z.boolean().default(false),
    /**
     * Distinct users of one persona (and tenant) a pair needs before it counts. Default 3:
     * one user, or two colluding, cannot move anyone's ranking. At least 2: one user never teaches alone.
     */
    min_users: z.number().int().min(2).default(3),
    /** Learned queries kept per tool and persona, the most used first. Default 20 (exemplars.json has 1 to 3 per tool). */
    max_per_tool: z.number().int().positive().max(1000).default(20),
    /**
     * Evidence counts half as much after this many days, a quarter after twice as many,
     * and is no longer read after four half-lives. Default 30.
     */
    half_life_days: z.number().positive().default(30),
    /**
     * How long after a find_tools query a call still counts as its outcome, in seconds.
     * Default 300: a host calls what it found within a turn or two; later calls belong to
     * other requests.
     */
    window_seconds: z.number().int().positive().max(86_400).default(300),
    /** How often the learned pairs are read from the store and given to the curator, in seconds. Default 300. */
    refresh_seconds: z.number().int().positive().default(300),
  })
  .strict()
  .prefault({});

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
    learning: learningSchema,
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
    /**
     * Largest tools/call result passed to the host, in bytes of its JSON; a larger one is an
     * error result naming the tool and the size, and the upstream's connection stays up.
     * Default 10 MiB (src/upstream/types.ts says why).
     */
    max_result_bytes: z.number().int().positive().default(DEFAULT_MAX_RESULT_BYTES),
    /**
     * Log messages (`notifications/message`) of one upstream relayed to one session per
     * second; the rest of a flood is dropped and counted in one warning to the session. Default 50.
     */
    max_log_per_second: z.number().int().positive().default(50),
  })
  .strict()
  .prefault({});

/** Bounds on the tool definitions upstreams send and the tool lists hosts get (src/catalog/bounds.ts, docs/SAFETY.md). */
export const definitionsSchema = z
  .object({
    /** Longest tool description, in UTF-8 bytes; longer is clipped with a `…[clipped N bytes to M]` marker. Default 8 KiB. */
    max_description_bytes: z.number().int().min(256).default(8192),
    /** Longest tool title (and annotations.title), in characters; longer is clipped. Default 256. */
    max_title_chars: z.number().int().min(16).default(256),
    /**
     * Largest inputSchema, outputSchema, and other definition fields (annotations, icons,
     * _meta, execution), each in bytes of JSON; a tool over it is left out of the catalog and
     * the reason logged. Default 64 KiB.
     */
    max_schema_bytes: z.number().int().min(1024).default(64 * 1024),
    /**
     * Largest list of tool definitions in one find_tools result or tools/list answer, in
     * bytes of JSON: the first tools that fit are sent, the rest named (find_tools `cut`) or
     * left out and logged (tools/list). Default 1 MiB.
     */
    max_list_bytes: z.number().int().min(16 * 1024).default(1024 * 1024),
    /**
     * What happens when an upstream changes a tool's definition (name, title, description,
     * schemas, annotations) from the one pinned when first seen or last accepted by a
     * person (guards/pins.ts): `hold` keeps the tool out of tools/list and find_tools and
     * refuses its calls until a person accepts the new definition; `warn` exposes it and
     * logs, audits and reports it (doctor). Either way an earlier approval does not run the
     * new definition, and new annotations never loosen confirmation. Default `hold`.
     */
    on_change: z.enum(['hold', 'warn']).default('hold'),
  })
  .strict()
  .prefault({});

/** One value or a list of them; a list means "any of". */
const oneOrMany = z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]).transform((v) => (typeof v === 'string' ? [v] : v));

const isLoopbackUrl = (u: string) => ['localhost', '127.0.0.1', '[::1]'].includes(new URL(u).hostname);

/** An https URL (http only on localhost, 127.0.0.1 or [::1], for tests and local trials) without a fragment. */
const secureUrl = z
  .url()
  .refine((u) => new URL(u).protocol === 'https:' || (new URL(u).protocol === 'http:' && isLoopbackUrl(u)), 'must be an https URL (http only on localhost, 127.0.0.1 or [::1])')
  .refine((u) => new URL(u).hash === '', 'must not have a #fragment');

/**
 * One condition on a claim of a host's access token. Exactly one of `includes`, `equals`
 * and `domain`; each takes one value or a list (any of them matches).
 */
export const claimConditionSchema = z
  .object({
    /**
     * Where the claim is: a top-level name (`groups`, `email`, `roles`, or a namespaced
     * `https://example.com/roles`), else a dotted path into nested objects
     * (`realm_access.roles`, `resource_access.mcp-gateway.roles`).
     */
    claim: z.string().min(1),
    /** The claim — a list, or a space-separated string such as `scope` — holds one of these values. */
    includes: oneOrMany.optional(),
    /** The claim is exactly one of these (a number or boolean claim compares by its text). */
    equals: oneOrMany.optional(),
    /** The claim is an email address at one of these domains (case-insensitive; a subdomain is a different domain). */
    domain: oneOrMany.optional(),
  })
  .strict()
  .refine((c) => [c.includes, c.equals, c.domain].filter((v) => v !== undefined).length === 1, 'a condition needs exactly one of includes, equals or domain');
export type ClaimCondition = z.infer<typeof claimConditionSchema>;

/** Conditions that must all hold: one, or a list. */
const conditionsSchema = z.union([claimConditionSchema, z.array(claimConditionSchema).min(1)]).transform((v) => (Array.isArray(v) ? v : [v]));

/** A rule that picks a persona for a signed-in host; the first rule whose conditions all hold wins. */
export const personaRuleSchema = z
  .object({
    persona: z.string().min(1),
    /** Conditions that must all hold (one or a list). Absent: every valid token matches — a default, so put it last. */
    when: conditionsSchema.optional(),
    /** Confirmation channel of these sessions; default the persona's `confirm_via`, else `approvals`. */
    confirm_via: confirmViaSchema.optional(),
  })
  .strict();
export type PersonaRule = z.infer<typeof personaRuleSchema>;

/**
 * Who may decide on the approvals page, by the claims of their sign-in with the identity
 * provider of `http.oauth` (the same conditions as `http.oauth.personas`). A bare
 * condition (`{ claim: groups, includes: payments-approvers }`) is short for
 * `{ when: <it> }`; `personas` limits the rule to calls made in those personas.
 */
export const approverRuleSchema = z.preprocess(
  (v) => (v !== null && typeof v === 'object' && !Array.isArray(v) && 'claim' in v ? { when: v } : v),
  z
    .object({
      /** Conditions that must all hold (one or a list). Required: a rule that matches every signed-in person would make everyone an approver. */
      when: conditionsSchema,
      /** The personas whose calls these approvers may decide. Absent: every persona's. */
      personas: z.array(z.string().min(1)).min(1).optional(),
    })
    .strict(),
);
export type ApproverRule = z.infer<typeof approverRuleSchema>;

/** A page's own OAuth client at `http.oauth.issuer`, for a person's browser sign-in (authorization code + PKCE). */
export const signInClientSchema = z.object({ client_id: z.string().min(1), client_secret: z.string().min(1).optional() }).strict();
export type SignInClientConfig = z.infer<typeof signInClientSchema>;

/** JWS algorithms accepted for access tokens by default: every asymmetric one; never `none`, never HMAC (no shared secret with the issuer). */
export const DEFAULT_TOKEN_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519'] as const;

/**
 * Hosts sign in with the organisation's identity provider (docs/AUTH.md, "Hosts sign in"):
 * the gateway is an OAuth protected resource (MCP authorization, spec 2025-11-25). It
 * serves its protected-resource metadata, answers 401 with a pointer to it, and accepts
 * access tokens the issuer signed (JWT, checked against the issuer's JWKS) or vouches for
 * (opaque, RFC 7662 introspection) for its `resource`. Claims choose the persona and the
 * user id. Static `http.tokens` keep working beside it.
 */
export const hostOAuthSchema = z
  .object({
    /** The authorization server's issuer URL; its metadata comes from RFC 8414 / OpenID discovery and must name the same issuer. */
    issuer: secureUrl,
    /**
     * The gateway's MCP endpoint as hosts reach it (`https://mcp.example.com/mcp`): the
     * resource tokens must be issued for (RFC 8707) and the `resource` of the metadata.
     */
    resource: secureUrl,
    /**
     * Accepted `aud` values. Default: `[resource]`. Set it for issuers that put another
     * value there (Entra ID v2 tokens: the API app's client ID).
     */
    audience: z.array(z.string().min(1)).min(1).optional(),
    /**
     * Scopes every token must carry, as hosts request them; advertised in the metadata and
     * in the 401 challenge. A token's short name counts for a URI-form scope ending in
     * `/<short name>` (Entra ID's `scp`). Default none.
     */
    scopes: z.array(z.string().min(1)).default([]),
    /** JWS algorithms accepted. Default: the asymmetric ones (RS*, PS*, ES*, EdDSA). `none` and HMAC are never accepted. */
    algorithms: z.array(z.enum(DEFAULT_TOKEN_ALGORITHMS)).min(1).default([...DEFAULT_TOKEN_ALGORITHMS]),
    /** Seconds of clock skew allowed on `exp`, `nbf` and `iat`. Default 30. */
    clock_tolerance_seconds: z.number().int().min(0).max(300).default(30),
    /**
     * RFC 7662 introspection for opaque (non-JWT) access tokens. Unset: only JWTs are
     * accepted. Results are cached briefly (never past the token's `exp`), bounded.
     */
    introspection: z
      .object({
        /** Default: the issuer metadata's `introspection_endpoint`. */
        endpoint: secureUrl.optional(),
        client_id: z.string().min(1),
        /** Write it as `${ENV}`. */
        client_secret: z.string().min(1),
        /** How the gateway authenticates to the endpoint. Default `client_secret_basic`. */
        auth_method: z.enum(['client_secret_basic', 'client_secret_post']).default('client_secret_basic'),
        /** Seconds an active result is reused. Default 60; 0 asks every time. */
        cache_seconds: z.number().int().min(0).max(600).default(60),
        /** Most results kept; the oldest go first. Default 10,000. */
        cache_max_entries: z.number().int().positive().default(10_000),
      })
      .strict()
      .optional(),
    /**
     * The claim that becomes the user id the identity guard injects (`${user_id}` in
     * personas.yaml): `sub` (default), `email`, `preferred_username`, `oid`, … (same path syntax as rules).
     */
    user_claim: z.string().min(1).default('sub'),
    /** Ordered rules from claims to persona; the first that matches wins. A token no rule matches is refused (HTTP 403). */
    personas: z.array(personaRuleSchema).min(1, 'add at least one rule mapping claims to a persona'),
    /** Name hosts may show when they ask the user to sign in. Default "Tool Curator". */
    resource_name: z.string().min(1).default('Tool Curator'),
  })
  .strict();
export type HostOAuthConfig = z.infer<typeof hostOAuthSchema>;

/**
 * Per-user upstream accounts (upstreams with `auth: { oauth, per_user: true }`): the
 * connections kept per (upstream, user), and the consent link a user without an account
 * is given (docs/AUTH.md, "Per-user upstream accounts").
 */
export const perUserSchema = z
  .object({
    /**
     * Where browsers reach the gateway (`https://mcp.example.com`): consent links and the
     * redirect URI `<public_url>/oauth/callback` start with it. Default: the origin and
     * path of `http.oauth.resource` without its final `/mcp`, else the HTTP face's own address.
     */
    public_url: secureUrl.optional(),
    /** Minutes a consent link stays valid (it works once). Default 10. */
    link_minutes: z.number().positive().max(60).default(10),
    /**
     * Seconds a call waits, after its host opened the consent link (URL elicitation
     * accepted), for the user to finish; in time, the call then runs. Default 50, under
     * hosts' usual 60 s request timeout; 0 answers at once (the model asks the user to retry).
     */
    wait_seconds: z.number().min(0).max(300).default(50),
    /** Upstream connections kept open across users; the least recently used idle one closes first. Default 100. */
    max_connections: z.number().int().positive().default(100),
    /** A user's upstream connection unused this long is closed. Default 10. */
    idle_minutes: z.number().positive().default(10),
    /**
     * The consent page's own OAuth client at `http.oauth.issuer`: a user who signed in
     * there (a host with an access token) signs in again in the browser before consenting,
     * so a link forwarded to someone else is of no use. Needed with `http.oauth`; its
     * redirect URI is `<public_url>/oauth/signin/callback`.
     */
    sign_in: signInClientSchema.optional(),
  })
  .strict()
  .prefault({});
export type PerUserConfig = z.infer<typeof perUserSchema>;

/** MCP tool annotation hints an override may set (merged over the upstream's). */
const annotationsOverrideSchema = z
  .object({
    title: z.string().optional(),
    readOnlyHint: z.boolean().optional(),
    destructiveHint: z.boolean().optional(),
    idempotentHint: z.boolean().optional(),
    openWorldHint: z.boolean().optional(),
  })
  .strict();

/**
 * What an operator changes about one upstream tool (`overrides:` in gateway.config.yaml,
 * keyed `<server>.<tool>`, the tool's upstream name). The host sees the result and the
 * curator indexes it; the upstream's own definition stays in the catalog record
 * (`upstreamDefinition`) for the checks that compare it. Live-reloaded.
 */
export const toolOverrideSchema = z
  .object({
    /** Replaces the upstream's description. */
    description: z.string().optional(),
    /** Added after the description (the upstream's, or `description`), as its own paragraph. */
    append_description: z.string().min(1).optional(),
    /** Example requests for the tool: indexed by the curator like exemplars.json, never shown to the host. */
    examples: z.array(z.string().trim().min(1)).optional(),
    /** The name hosts see and call instead (the upstream is still called by its own). */
    name: z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, 'exposed names are 1 to 64 of A-Z a-z 0-9 _ . -').optional(),
    /** Replaces the upstream's title. */
    title: z.string().optional(),
    /** true: the tool leaves the catalog (not listed, not found, not callable). */
    hidden: z.boolean().default(false),
    /** Annotation hints merged over the upstream's (readOnlyHint, destructiveHint, …). */
    annotations: annotationsOverrideSchema.optional(),
    /**
     * `action`: the tool changes state and needs confirmation as the persona's `confirm`
     * says; `read-only`: it never does, whatever its annotations. Default: from the
     * annotations and `confirmation.actions`.
     */
    kind: z.enum(['action', 'read-only']).optional(),
  })
  .strict();

export type ToolOverride = z.infer<typeof toolOverrideSchema>;

/** `<server>.<tool>`: an upstream name (letters, digits, _ and -), a dot, the tool's upstream name. */
const OVERRIDE_KEY = /^[A-Za-z0-9_-]+\..+$/;

export const gatewayConfigSchema = z
  .object({
    upstreams: z.record(z.string().regex(/^[A-Za-z0-9_-]+$/, 'upstream names use letters, digits, _ and -'), upstreamSchema),
    curator: curatorSchema.prefault({ embedder: 'auto' }),
    /**
     * Where the gateway keeps its state (audit log, approvals, exposed names, OAuth tokens,
     * embeddings, pinned definitions): a SQLite file, relative to the config file (default
     * `.tool-curator/store.db`), or a PostgreSQL URL `postgres://user:password@host/db`
     * for a fleet of replicas, usually as `${TOOL_CURATOR_STORE}` so the password stays in
     * the environment. docs/STORE.md.
     */
    store: z.string().min(1).default('.tool-curator/store.db'),
    /** Connection settings used when `store` is a PostgreSQL URL. */
    postgres: z
      .object({
        /** Connections in the pool (one more for events, one per fleet-wide lock held). Default 10. */
        pool_size: z.number().int().min(1).max(1000).default(10),
        /** Longest a statement may run before the server cancels it, in ms. Default 15 s. */
        statement_timeout_ms: z.number().int().positive().default(15_000),
        /** Longest a new connection may take, in ms. Default 5 s. */
        connect_timeout_ms: z.number().int().positive().default(5_000),
      })
      .strict()
      .prefault({}),
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
         * Open MCP sessions per token (per anonymous identity); an initialize past it gets
         * HTTP 429 until one is closed (DELETE) or idles out. Default 64.
         */
        max_sessions_per_token: z.number().int().positive().default(64),
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
        /**
         * Prometheus metrics at `/metrics` (docs/FLEET.md, "Metrics"). Default off. With a
         * `token`, a scrape needs `Authorization: Bearer <token>` (Prometheus
         * `authorization: {credentials: …}`); without one the face must bind a loopback address.
         */
        metrics: z
          .object({
            /** Serve /metrics. Default false: nothing is registered or counted. */
            enabled: z.boolean().default(false),
            /** Bearer token of the scraper, separate from the hosts' tokens; write it as `${ENV_VAR}`. */
            token: z.string().min(16, 'tokens need at least 16 characters').optional(),
          })
          .strict()
          .prefault({}),
        /**
         * Serve every MCP request on its own, with no session state (no `Mcp-Session-Id`):
         * any replica behind a load balancer can answer any request (docs/FLEET.md,
         * "Stateless"). Needs `exposure.mode: static`, whose tools/list never depends on
         * earlier requests. Default false.
         */
        stateless: z.boolean().default(false),
        /** Hosts sign in with the organisation's identity provider (hostOAuthSchema). Unset: static tokens only. */
        oauth: hostOAuthSchema.optional(),
      })
      .strict()
      .prefault({}),
    confirmation: z
      .object({
        /**
         * Tools that are actions (confirmed under `confirm: actions`) whatever their
         * annotations say: persona patterns, `<server>.<glob>` or a bare `<glob>` over the
         * upstream or exposed name. Wins over `read_only`.
         */
        actions: z.array(z.string()).default([]),
        /**
         * Tools that are read-only (not confirmed under `confirm: actions`) whatever their
         * annotations say, e.g. the read tools of an upstream that annotates nothing: without
         * annotations a tool is an action (MCP's defaults). Same patterns as `actions`.
         */
        read_only: z.array(z.string()).default([]),
        /** Minutes a pending approval stays valid. Default 10. */
        approval_ttl_minutes: z.number().positive().default(10),
        /**
         * The approver's private key (Ed25519, mode 0600) that `approvals approve|deny` sign
         * with; the gateway checks signatures against `<approver_key>.pub`. Relative to the
         * config file. Default: `approver.key` beside the store.
         */
        approver_key: z.string().optional(),
        /**
         * Seconds a parked call waits for a person's decision before answering that it awaits
         * approval: decided in time (on this replica or another, page or CLI), it runs or is
         * refused at once. One parked call per session waits at a time; others answer at
         * once. Per transport; at most 50 s, under hosts' usual 60 s request timeout.
         * Default 30 over HTTP (a person on the approvals page); 0 over stdio, whose hosts
         * block on the call and confirm through elicitation.
         */
        wait_seconds: z
          .object({ stdio: z.number().min(0).max(50).default(0), http: z.number().min(0).max(50).default(30) })
          .strict()
          .prefault({}),
        /**
         * With `http.oauth`: the people who may decide on the approvals page, by the claims
         * of their own browser sign-in with the identity provider (approverRuleSchema; any
         * rule may match). The page then takes no token: each decision is signed for the
         * approver's user id (`http.oauth.user_claim`). Unset: the page takes
         * `http.approvals_token` (docs/AUTH.md, "Approvals and the identity provider").
         */
        approvers: z.array(approverRuleSchema).min(1, 'name at least one rule, or remove confirmation.approvers').optional(),
        /**
         * Whether an approver may approve a call they made themselves (as the same user id).
         * Default false: a second person is the point of an approval (separation of duties).
         * Denying one's own call is always allowed.
         */
        approvers_may_approve_own_calls: z.boolean().default(false),
        /**
         * The approvals page's own client at `http.oauth.issuer`, redirect URI
         * `<public_url>/approvals/signin/callback`. Default: `per_user.sign_in`.
         */
        approvers_sign_in: signInClientSchema.optional(),
        /** Minutes an approver's page session lasts before they sign in again. Default 30. */
        approvers_session_minutes: z.number().positive().max(24 * 60).default(30),
      })
      .strict()
      .prefault({}),
    guards: z
      .object({
        /**
         * Well-known secret formats (private keys, AWS, GitHub, GitLab, Slack, Google and
         * Stripe keys, JWTs) in tool results and arguments: `redact` (default) replaces them
         * with a marker (in arguments before the call goes upstream, and the model is told);
         * `block` refuses a call whose arguments carry one and answers an error instead of a
         * result that does; `off` leaves them. The secrets the gateway holds itself are
         * removed from everything sent to a host whatever this says. docs/SAFETY.md.
         */
        secrets: z.enum(['block', 'redact', 'off']).default('redact'),
      })
      .strict()
      .prefault({}),
    audit: z
      .object({
        /**
         * Field names whose values never reach the audit log or the approvals shown to people,
         * matched by words at any depth, whatever the case (`authorization` hides a nested
         * `headers.Authorization`; `token` hides `access_token`, `refresh_token`; `cookie`
         * hides `set-cookie`); values echoed in an upstream's error text are hidden too
         * (guards/redact.ts). A list given here replaces this default: keep its names.
         */
        redact: z.array(z.string()).default(['password', 'passwd', 'token', 'secret', 'api_key', 'apikey', 'authorization', 'cookie', 'credential', 'credentials', 'private_key']),
        /**
         * Largest argument value (UTF-8 bytes) stored in the audit log and the approvals
         * store; longer strings are cut with a `…[truncated N bytes]` marker. Default 4096.
         */
        max_value_bytes: z.number().int().min(64).default(4096),
      })
      .strict()
      .prefault({}),
    /**
     * Operator overrides per upstream tool, keyed `<server>.<tool>` (the tool's upstream
     * name): description, examples, exposed name, hidden, annotations, kind
     * (toolOverrideSchema). Live-reloaded; docs/OVERRIDES.md.
     */
    overrides: z
      .record(z.string(), toolOverrideSchema)
      .superRefine((overrides, ctx) => {
        for (const key of Object.keys(overrides)) {
          if (!OVERRIDE_KEY.test(key)) ctx.addIssue({ code: 'custom', path: [key], message: 'override keys are <server>.<tool>, e.g. finance.get_fee_dues' });
        }
      })
      .default({}),
    /** Bounds on what passes through from the upstreams: resources, templates, prompts (src/relay/). */
    relay: relaySchema,
    per_user: perUserSchema,
    definitions: definitionsSchema,
    timeouts: z
      .object({
        /** Time an upstream gets to start and answer tools/list. Default 20 s (npx may install). */
        startup_ms: z.number().int().positive().default(20_000),
        /**
         * Longest wait of a host's first tools/list (find_tools, tools/call, relayed lists)
         * for upstreams still starting; one that arrives later is announced with
         * `notifications/tools/list_changed`. Default 5 s.
         */
        list_wait_ms: z.number().int().nonnegative().default(5_000),
        /** Time a forwarded tools/call gets; progress from the upstream starts it again. Default 60 s. */
        call_ms: z.number().int().positive().default(60_000),
        /**
         * Longest total time of a forwarded tools/call that keeps reporting progress, and
         * longest wait for a host's answer to an upstream's question. Default 10 minutes.
         */
        call_max_ms: z.number().int().positive().default(600_000),
      })
      .strict()
      .default({ startup_ms: 20_000, list_wait_ms: 5_000, call_ms: 60_000, call_max_ms: 600_000 }),
  })
  .strict();

export type GatewayConfig = z.infer<typeof gatewayConfigSchema>;
export type LearningConfig = z.infer<typeof learningSchema>;
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
