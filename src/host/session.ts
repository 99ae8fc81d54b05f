/**
 * One host session: the MCP server face the host talks to. tools/list shows the meta
 * tools, the pinned tools and, in the `dynamic` exposure mode, the tools this session has
 * discovered through find_tools (bounded, least recently used out); in `static` mode it
 * never changes as a side effect of a request. tools/call goes through the gateway's
 * guarded call path. Visibility is not permission: the call path checks the persona on
 * every call, and any allowed tool can be called by name in either mode.
 */
import { randomUUID } from 'node:crypto';
import { type CallToolResult, type LoggingLevel, type ServerCapabilities, type ServerContext, type Tool, type Transport } from '@modelcontextprotocol/server';
import { fitBytes } from '../catalog/bounds.js';
import type { ToolRecord } from '../catalog/types.js';
import type { Selection } from '../curator/types.js';
import { visibleSchema } from '../guards/pipeline.js';
import { redactingTransport } from '../guards/secrets/transport.js';
import { sealerFor } from '../guards/sealed.js';
import { errorResult, isToolResult, type CallContext, type CallOutcome, type SessionIdentity } from '../guards/types.js';
import { log } from '../log.js';
import { RelayError, type HostRequest, type HostSession } from '../relay/calls.js';
import type { RequestFields } from '../relay/types.js';
import { attachRelay } from '../relay/handlers.js';
import { ArgumentsNotSentError } from '../upstream/call.js';
import { accountOf } from '../gateway/accounts.js';
import type { Gateway } from '../gateway/gateway.js';
import { scopeOf, type SessionEvidence } from '../learning/learning.js';
import { HostServer } from './invalidParams.js';
import { bindingOf, CACHE_HINTS, callFieldsOf, modernLogFilter, requestLogLevel, type ProtocolEra } from './era.js';
import {
  CALL_TOOL,
  FIND_TOOLS,
  INSTRUCTIONS,
  callToolDefinition,
  findToolsDefinitionFor,
  parseCallTool,
  findResult,
  withUnavailable,
  parseFindTools,
} from '../gateway/metaTools.js';

export const SERVER_INFO = { name: 'tool-curator', version: '0.1.0' };

/** The retrievers behind each curator mode, as find_tools reports them. */
const RETRIEVERS: Record<Selection['mode'], string[]> = { hybrid: ['bm25', 'dense'], dense: ['dense'], bm25: ['bm25'], none: [] };

/**
 * What the gateway offers a host: its own tools (with list_changed), the upstreams' log
 * messages (relay/logging.ts), and the resources, prompts and completions the upstreams
 * offer (relay/relay.ts). A 2026 host is not offered resource subscriptions: it would ask
 * for them in `subscriptions/listen` (`resourceSubscriptions`), whose streams carry no
 * `resources/updated` from the gateway (host/listen.ts), and the SDK acknowledges the
 * URIs of a filter whenever `subscribe` is offered.
 */
function hostCapabilities(relayed: ServerCapabilities, era: ProtocolEra): ServerCapabilities {
  if (era === 'modern' && relayed.resources?.subscribe) {
    const { subscribe: _, ...resources } = relayed.resources;
    return { tools: { listChanged: true }, logging: {}, ...relayed, resources };
  }
  return { tools: { listChanged: true }, logging: {}, ...relayed };
}

/**
 * The audit's record of who signed in with the identity provider and which rule chose the
 * persona (the audit entry's `userId` and `persona` say the rest); none for other sessions.
 */
function signInNotes({ principal, userId, persona }: SessionIdentity): string[] {
  if (!principal) return [];
  const client = principal.clientId ? `, client ${principal.clientId}` : '';
  return [`signed in as ${userId} (sub ${principal.subject}, issuer ${principal.issuer}${client}); persona ${persona} by ${principal.rule}`];
}

/**
 * Drops `server`'s list_changed, resource-update and other notifications until the host
 * has sent `notifications/initialized`: the lifecycle lets a server send only pings and
 * log messages before that, and a stdio host reading its first line as the initialize
 * answer must not meet an upstream's arrival. Nothing is lost: a host lists and
 * subscribes after initializing, and sees the catalog as it is then.
 */
function holdUntilInitialized(server: HostServer): void {
  let initialized = false;
  const previous = server.oninitialized;
  server.oninitialized = () => {
    initialized = true;
    previous?.();
  };
  const notify = server.notification.bind(server);
  server.notification = (notification, options) =>
    initialized || notification.method === 'notifications/message' ? notify(notification, options) : Promise.resolve();
}

/** Who a Session serves, and in which era (default `legacy`: a 2025 connection or MCP session). */
export type SessionOptions = Omit<SessionIdentity, 'sessionId'> & { sessionId?: string; era?: ProtocolEra };

export class Session {
  readonly server: HostServer;
  readonly identity: SessionIdentity;
  /** `modern`: this Session serves one 2026-07-28 request (static exposure, no notifications of its own). */
  readonly era: ProtocolEra;
  /** The log level the 2026 request being served asked for (undefined: none). */
  private logLevel: LoggingLevel | undefined;
  /** Discovered tool names, least recently used first (Map keeps insertion order). */
  private readonly visible = new Map<string, true>();
  private readonly onCatalog = () => void this.catalogChanged();
  /** The last tools/list answer, as JSON (static mode tells the host only when it changes). */
  private listed: string | undefined;
  private readonly detachRelay: () => Promise<void>;
  /** This session as the call relay knows it (progress, logs, questions from upstreams). */
  private readonly relayed: HostSession;
  /** What this session searched for and used, for learning from use (undefined without it or without a user id). */
  private readonly evidence: SessionEvidence | undefined;

  constructor(
    private readonly gateway: Gateway,
    { era = 'legacy', ...identity }: SessionOptions,
  ) {
    this.era = era;
    this.identity = { ...identity, sessionId: identity.sessionId ?? randomUUID() };
    this.evidence = gateway.learning?.session(this.identity);
    // Fixed capabilities (relay.capabilities()): initialize never waits for the upstreams; relayed requests do.
    const relayedCaps = gateway.relay.capabilities();
    const sealer = sealerFor(gateway.store.sealing);
    const binding = bindingOf(this.identity);
    // Invalid params of any method get -32602 with a short message (invalidParams.ts).
    this.server = new HostServer(SERVER_INFO, {
      capabilities: hostCapabilities(relayedCaps, era),
      instructions: INSTRUCTIONS[this.mode],
      cacheHints: CACHE_HINTS,
      // A sealed requestState opens only for this authorization, once (guards/sealed.ts).
      requestState: { verify: sealer.verifier(binding) },
    });
    if (era === 'legacy') holdUntilInitialized(this.server);
    // The relay knows the user by the key of their per-user accounts (consent.ts accountOf); an upstream's
    // question during prompts/get or resources/read reaches the host as during tools/call (relay/inputRequired.ts).
    this.detachRelay = attachRelay(
      this.server,
      gateway.relay,
      {
        ...this.identity,
        userId: accountOf(this.identity),
        ready: gateway.catalogReady,
        fields: (ctx) => callFieldsOf(era, ctx, this.server.getClientCapabilities()),
        inputRelay: { sealer, binding, abandon: (bridge) => gateway.calls.abandon(bridge) },
      },
      relayedCaps,
    );
    this.relayed = gateway.calls.join({ id: this.identity.sessionId, persona: this.identity.persona }, this.server);
    this.server.setRequestHandler('tools/list', async () => ({ tools: await this.listTools() }));
    // The SDK's Server checks tools/call params before this handler runs (-32602 for bad ones).
    this.server.setRequestHandler('tools/call', (req, ctx) => {
      this.seeLogLevel(ctx);
      return this.callTool(req.params.name, req.params.arguments ?? {}, gateway.calls.hostRequest(this.relayed, ctx), callFieldsOf(era, ctx, this.server.getClientCapabilities()));
    });
    // Static exposure for 2026: list_changed only when the session's own list changed (on stdio the SDK turns it into a listen notification).
    gateway.on('catalog', this.onCatalog);
    this.server.onclose = () => {
      gateway.off('catalog', this.onCatalog);
      gateway.calls.leave(this.relayed);
      void this.detachRelay();
    };
    // What the SDK drops without an answer (a line that is not JSON, a message that is not
    // JSON-RPC, such as params: null) is at least logged, so a host author can see why.
    this.server.onerror = (err) => log.warn({ session: this.identity.sessionId, err: err.message }, 'MCP message from the host rejected');
  }

  private definition(t: ToolRecord): Tool {
    const def: Tool = { name: t.name, description: t.description, inputSchema: visibleSchema(t, this.gateway.policy.persona(this.identity.persona)) };
    if (t.title) def.title = t.title;
    if (t.icons) def.icons = t.icons;
    if (t.annotations) def.annotations = t.annotations;
    if (t.outputSchema) def.outputSchema = t.outputSchema;
    if (t.execution) def.execution = t.execution;
    if (t._meta) def._meta = t._meta;
    return def;
  }

  /** The exposure mode: the configured one for 2025 sessions; always `static` for 2026 requests (the list may vary only by authorization). */
  private get mode() {
    return this.era === 'modern' ? 'static' : this.gateway.loaded.config.exposure.mode;
  }

  /** A 2026 request's `_meta` log level decides which relayed log messages it gets (none without one). */
  private seeLogLevel(ctx: ServerContext): void {
    if (this.era === 'legacy') return;
    this.logLevel = requestLogLevel(ctx);
    if (this.logLevel !== undefined) this.relayed.logLevel = this.logLevel;
  }

  /** Meta tools, then pinned and (dynamic mode) discovered tools that the persona may use, by (server, name). */
  async listTools(): Promise<Tool[]> {
    await this.gateway.catalogReady;
    const allowed = new Set(this.gateway.allowedFor(this.identity.persona).map((t) => t.name));
    const names = new Set([...this.gateway.loaded.config.exposure.pinned, ...this.visible.keys()]);
    const shown = this.gateway.catalog.filter((t) => names.has(t.name) && allowed.has(t.name));
    const tools = this.boundedList(shown.map((t) => this.definition(t)));
    this.listed = JSON.stringify(tools);
    return tools;
  }

  /** The meta tools and `defs` within definitions.max_list_bytes: over it, pinned tools are kept first, then the most recently found; the list keeps its order. */
  private boundedList(defs: Tool[]): Tool[] {
    const meta = [findToolsDefinitionFor(this.mode), callToolDefinition];
    const max = this.gateway.loaded.config.definitions.max_list_bytes;
    if (fitBytes(defs, max).left.length === 0) return [...meta, ...defs];
    const priority = [...this.gateway.loaded.config.exposure.pinned, ...[...this.visible.keys()].reverse()];
    const { kept, left } = fitBytes([...defs].sort((a, b) => priority.indexOf(a.name) - priority.indexOf(b.name)), max);
    log.warn({ session: this.identity.sessionId, left: left.map((t) => t.name) }, 'tools/list over definitions.max_list_bytes: the least recently found tools are left out');
    const keep = new Set(kept.map((t) => t.name));
    return [...meta, ...defs.filter((t) => keep.has(t.name))];
  }

  /**
   * The catalog changed (an upstream arrived or changed its tools). Dynamic mode tells the
   * host at once; static mode only when the session's own tools/list changed (a pinned
   * tool came or went): find_tools and call_tool reach the new tools either way.
   */
  private async catalogChanged(): Promise<void> {
    if (this.mode === 'static') {
      const before = this.listed;
      if (before === undefined || (await this.listTools().then((t) => JSON.stringify(t))) === before) return;
    }
    await this.notifyListChanged();
  }

  /**
   * Adds tools to the visible set (most recent last), evicting the least recently used.
   * @returns whether the set changed, i.e. whether the host needs a list_changed.
   */
  private discover(names: string[]): boolean {
    let changed = false;
    for (const n of names) {
      if (!this.visible.delete(n)) changed = true;
      this.visible.set(n, true);
    }
    const max = this.gateway.loaded.config.exposure.max_visible;
    for (const n of this.visible.keys()) {
      if (this.visible.size <= max) break;
      this.visible.delete(n);
      changed = true;
    }
    return changed;
  }

  private async notifyListChanged(): Promise<void> {
    try {
      await this.server.sendToolListChanged();
    } catch (err) {
      log.debug({ err: (err as Error).message }, 'could not send list_changed (host gone?)');
    }
  }

  private async findTools(rawArgs: Record<string, unknown>): Promise<CallToolResult> {
    const parsed = parseFindTools(rawArgs);
    if (typeof parsed === 'string') return errorResult(parsed);
    const started = Date.now();
    const selection = await this.gateway.findTools(parsed.query, this.identity.persona, parsed.limit, scopeOf(this.identity));
    const limit = parsed.limit ?? this.gateway.loaded.config.curator.top_k;
    const found = findResult(selection, limit);
    withUnavailable(found.fields, this.gateway.unavailableFor(this.identity.persona));
    const all = found.shown.map((t) => {
      const d = this.definition(t);
      // Static mode: the result is the only place the host sees the tool, so it gets all of it.
      return this.mode === 'static' ? d : { name: d.name, description: d.description, inputSchema: d.inputSchema };
    });
    // The best-ranked tools that fit the bound; the others are named in `cut`.
    const max = this.gateway.loaded.config.definitions.max_list_bytes;
    const { kept: tools, left } = fitBytes(all, max);
    if (left.length > 0) {
      found.fields.cut = [...left.map((t) => t.name), ...(found.fields.cut ?? [])];
      const bounded = `${left.length === 1 ? 'One tool' : `${left.length} tools`} did not fit the gateway's limit of ${max} bytes per result; search with narrower words or a smaller limit.`;
      found.fields.hint = found.fields.hint ? `${bounded} ${found.fields.hint}` : bounded;
    }
    this.auditSearch(started, rawArgs, tools.map((t) => t.name));
    this.evidence?.found(parsed.query, [...tools.map((t) => t.name), ...(found.fields.cut ?? [])]);
    // A weak match is shown, never added: guesses must not crowd the session's tool list.
    // Best match last = most recently used: when a long result overflows max_visible, the weakest go first.
    if (this.mode === 'dynamic' && !selection.noMatch && this.discover(tools.map((t) => t.name).reverse())) await this.notifyListChanged();
    // `retrievers`: which retrievers answered ('bm25' alone while the dense index is still being built).
    const payload = { tools, confidence: Number(selection.confidence.toFixed(3)), retrievers: RETRIEVERS[selection.mode], ...found.fields };
    return { content: [{ type: 'text', text: JSON.stringify(payload) }], structuredContent: payload };
  }

  /** Searches are audited too: what was asked, and which tools the session was shown (written beside the answer, not before it). */
  private auditSearch(time: number, args: Record<string, unknown>, shown: string[]): void {
    const { sessionId, persona, userId } = this.identity;
    this.gateway.audit
      .record({
        time, sessionId, persona, userId, tool: FIND_TOOLS, requestedName: FIND_TOOLS, args,
        decision: 'allowed', decisions: ['allowed'], notes: [...signInNotes(this.identity), `shown: ${shown.join(', ')}`], outcome: 'ok',
      })
      .catch((err: Error) => this.gateway.storeFailed('audit record of find_tools', err));
  }

  /**
   * Every tools/call lands here: meta tools are answered, everything else takes the call path.
   * @param host the host's request, for the relay (progress, cancellation, questions); absent for calls made outside MCP.
   */
  async callTool(name: string, args: Record<string, unknown>, host?: HostRequest, call?: RequestFields): Promise<CallOutcome> {
    try {
      if (name === FIND_TOOLS) return await this.findTools(args);
      if (name === CALL_TOOL) {
        const parsed = parseCallTool(args);
        if (typeof parsed === 'string') return errorResult(parsed);
        // The meta tools are the gateway's own: answered here, never looked up upstream.
        if (parsed.name === FIND_TOOLS) return await this.findTools(parsed.arguments);
        if (parsed.name === CALL_TOOL) return errorResult(`${CALL_TOOL} takes the name of the tool to run, not its own name`);
        return await this.forward(parsed.name, parsed.arguments, host, call);
      }
      return await this.forward(name, args, host, call);
    } catch (err) {
      // An upstream's protocol error meant for the host (URL elicitation required) goes out as that error.
      if (err instanceof RelayError) throw err;
      // Arguments too deeply nested to send: the host's to change, not a failure of the gateway (the audit row says so).
      if (err instanceof ArgumentsNotSentError) return errorResult(`the gateway could not complete ${name}: ${err.message}`);
      log.error({ tool: name, err: (err as Error).stack }, 'tools/call failed inside the gateway');
      return errorResult(`the gateway could not complete ${name}: ${(err as Error).message}`);
    }
  }

  private async forward(name: string, args: Record<string, unknown>, host?: HostRequest, call?: RequestFields): Promise<CallOutcome> {
    // Never waits for an upstream still starting: the name guard says which (gateway.ts callable).
    await this.gateway.callable(name);
    const sealer = sealerFor(this.gateway.store.sealing);
    const ctx: CallContext = {
      session: this.identity, requestedName: name, args, decisions: [], notes: signInNotes(this.identity), ...(host && { host }), ...call,
      seal: (content, ttlMs) => sealer.seal(content, bindingOf(this.identity), ttlMs),
    };
    // 2025 hosts are asked by a server-to-client request; 2026 hosts get an input_required answer (confirmation.ts).
    if (this.era === 'legacy' && this.server.getClientCapabilities()?.elicitation) {
      ctx.elicit = async (message) => {
        const answer = await this.server.elicitInput(
          {
            message,
            requestedSchema: { type: 'object', properties: { confirm: { type: 'boolean', title: 'Run this tool call?' } }, required: ['confirm'] },
          },
          // Asked as part of the host's call (over HTTP, on its stream), and withdrawn if the host cancels it.
          host && { relatedRequestId: host.requestId, signal: host.signal },
        );
        if (answer.action === 'accept' && answer.content?.confirm !== true) return 'decline';
        return answer.action;
      };
    }
    const result = await this.gateway.callPath(ctx);
    if (isToolResult(result)) this.evidence?.called(ctx, result);
    return result;
  }

  /** Serves this session on `transport`: everything it sends the host passes the gateway's secret redaction first (guards/secrets). */
  connect(transport: Transport): Promise<void> {
    return this.server.connect(this.outbound(transport));
  }

  /**
   * The server, for an SDK entry that connects it itself (createMcpHandler, serveStdio):
   * whatever transport the entry gives it passes the same outbound steps as `connect`.
   */
  served(): HostServer {
    const connect = this.server.connect.bind(this.server);
    this.server.connect = (transport) => connect(this.outbound(transport));
    return this.server;
  }

  /** Everything this session sends the host passes the secret redaction (and, for a 2026 request, its log-level filter). */
  private outbound(transport: Transport): Transport {
    const logged = this.era === 'modern' ? modernLogFilter(transport, () => this.logLevel) : transport;
    return redactingTransport(logged, this.gateway.secrets.redactor);
  }

  async close(): Promise<void> {
    this.gateway.off('catalog', this.onCatalog);
    this.gateway.calls.leave(this.relayed);
    await this.detachRelay();
    await this.server.close();
  }
}
