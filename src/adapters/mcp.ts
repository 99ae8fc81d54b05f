/**
 * MCP client adapter: curate the tools of one or more connected SDK `Client`s per query,
 * and call them back through the gateway's own guards (name guard, persona policy,
 * identity injection, argument validation, confirmation of actions, audit) — the same
 * call path `tool-curator serve` runs, in process.
 */
import { randomUUID } from 'node:crypto';
import type { CallToolResult, Client, Tool } from '@modelcontextprotocol/client';
import type { ToolRecord } from '../catalog/types.js';
import { gatewayConfigSchema, personasSchema, type Personas } from '../config/schema.js';
import { approverCheck, noApprover } from '../guards/approver.js';
import { AuditWriter } from '../guards/audit.js';
import { createCallPath, visibleSchema } from '../guards/pipeline.js';
import { errorResult, isToolResult, type CallContext, type SessionIdentity } from '../guards/types.js';
import { ToolSelector, type CuratedSelection, type SelectRequest, type ToolSelectorOptions } from '../library/selector.js';
import { fromMcpTools } from '../library/tools.js';
import { Policy } from '../policy/policy.js';
import { openStore } from '../store/index.js';
import { listAllTools } from '../upstream/pool.js';

export interface McpCurationOptions extends ToolSelectorOptions {
  /** Personas as in personas.yaml (an object); default none: every tool allowed, actions confirmed. */
  personas?: Record<string, unknown>;
  /** The persona acting, and its user id for identity injection. */
  persona?: string;
  userId?: string;
  /**
   * Asks a person to approve an action tool (MCP elicitation in the gateway). Without it,
   * an action tool is parked as a pending approval in the store, as in the gateway.
   */
  confirm?: CallContext['elicit'];
  /** The store for the audit log and approvals: a SQLite file or a PostgreSQL URL (docs/STORE.md); default in memory. */
  storePath?: string;
  /**
   * The approver key (`tool-curator approvals init-key`) whose public half (`<path>.pub`)
   * verifies approvals of parked calls. Without it only `confirm` can let an action run.
   */
  approverKey?: string;
  /** Extra tool names treated as actions (the gateway's `confirmation.actions`). */
  actions?: string[];
  /** Time to list a client's tools, ms; default 20000. */
  listTimeoutMs?: number;
}

export interface McpClientsCuration {
  selector: ToolSelector;
  /** The catalog: every client's tools, names disambiguated as the gateway does. */
  readonly tools: readonly ToolRecord[];
  /** The MCP tool definitions to show a model for `query` (identity fields hidden from schemas). */
  select(query: string, request?: SelectRequest): Promise<{ tools: Tool[]; selection: CuratedSelection }>;
  /** Calls a tool by the name the model used, through the guards, on the client that owns it. */
  callTool(name: string, args?: Record<string, unknown>): Promise<CallToolResult>;
  /** Lists every client's tools again and re-indexes (after `list_changed`). */
  refresh(): Promise<void>;
  /** Closes the selector and the store (not the clients). */
  close(): Promise<void>;
}

async function listCatalog(clients: Record<string, Client>, timeoutMs: number, actions: string[]): Promise<ToolRecord[]> {
  const byServer = new Map<string, Tool[]>();
  for (const [server, client] of Object.entries(clients)) {
    byServer.set(server, await listAllTools({ client }, timeoutMs));
  }
  return fromMcpTools(byServer, actions);
}

/**
 * ### Usage
 * ```ts
 * const curation = await curateMcpClients({ github, files }, { embedder: { provider: 'use' } });
 * const { tools } = await curation.select('open an issue about the failing build');
 * const result = await curation.callTool(tools[0].name, { title: 'CI fails' });
 * ```
 */
export async function curateMcpClients(clients: Record<string, Client>, options: McpCurationOptions = {}): Promise<McpClientsCuration> {
  const personas: Personas = personasSchema.parse(options.personas ?? {});
  const policy = new Policy(personas);
  const config = {
    // A parked call answers at once: the app decides whether to retry once a person approved.
    confirmation: gatewayConfigSchema.shape.confirmation.parse({ actions: options.actions ?? [], wait_seconds: { stdio: 0, http: 0 } }),
    audit: gatewayConfigSchema.shape.audit.parse(undefined),
  };
  const listMs = options.listTimeoutMs ?? 20_000;
  let catalog = await listCatalog(clients, listMs, config.confirmation.actions);
  const allowed = () => policy.allowed(options.persona, catalog);
  const selector = await ToolSelector.create(catalog, options);
  const store = await openStore(options.storePath ?? ':memory:');
  const session: SessionIdentity = { sessionId: randomUUID(), persona: options.persona, userId: options.userId };
  const callPath = createCallPath({
    tools: () => catalog,
    policy,
    config,
    audit: new AuditWriter(store.audit, config.audit.redact, config.audit.max_value_bytes),
    approvals: store.approvals,
    approver: options.approverKey ? approverCheck(options.approverKey, () => undefined) : noApprover,
    forward: async (ctx) => {
      const tool = ctx.tool;
      const client = tool && clients[tool.server];
      if (!tool || !client) return errorResult(`unknown tool ${ctx.requestedName}`);
      const started = performance.now();
      try {
        return (await client.callTool({ name: tool.upstreamName, arguments: ctx.args })) as CallToolResult;
      } finally {
        ctx.upstreamMs = Math.round(performance.now() - started);
      }
    },
  });

  return {
    selector,
    get tools() {
      return catalog;
    },
    async select(query, request) {
      const selection = await selector.select(query, { ...request, allowed: allowed().map((t) => t.name) });
      const persona = policy.persona(options.persona);
      const tools = selection.all.map((t): Tool => ({ name: t.name, description: t.description, inputSchema: visibleSchema(t, persona), ...(t.annotations && { annotations: t.annotations }) }));
      return { tools, selection };
    },
    async callTool(name, args = {}) {
      // A library caller is a 2025-era caller (questions through `options.confirm`): the path never answers it input_required.
      const outcome = await callPath({ session, requestedName: name, args, decisions: [], notes: [], elicit: options.confirm });
      return isToolResult(outcome) ? outcome : errorResult(`${name} needs input this caller cannot give; it has not run.`);
    },
    async refresh() {
      catalog = await listCatalog(clients, listMs, config.confirmation.actions);
      await selector.update(catalog);
    },
    async close() {
      await selector.close();
      await store.close();
    },
  };
}
