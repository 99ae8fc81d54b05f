/**
 * The host-facing side of the relay: registers resources, templates, prompts,
 * completion and subscription handlers on one session's MCP Server (for the
 * capabilities it advertises), and sends that session the list_changed and
 * resources/updated notifications meant for it.
 */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CompleteRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
  type ServerCapabilities,
} from '@modelcontextprotocol/sdk/types.js';
import { log } from '../log.js';
import { RelayError } from './errors.js';
import type { ListKind } from '../upstream/lists.js';
import { RESOURCE_NOT_FOUND, type Relay } from './relay.js';

export interface RelaySession {
  sessionId: string;
  persona?: string;
  /** Resolves once the upstreams have connected (the gateway's catalogReady): requests wait for it, as tools/list does. */
  ready?: Promise<unknown>;
}

/**
 * ### Usage
 * ```ts
 * const caps = relay.capabilities();
 * const server = new Server(info, { capabilities: { tools: {}, ...caps } });
 * const detach = attachRelay(server, relay, { sessionId, persona }, caps);
 * // on session close:
 * await detach();
 * ```
 * @param caps what `server` was created with: only those handlers are registered.
 * @returns a function that stops the notifications and drops the session's subscriptions.
 */
export function attachRelay(server: Server, relay: Relay, who: RelaySession, caps: ServerCapabilities): () => Promise<void> {
  const { persona, sessionId } = who;
  // Lists and reads wait for the upstreams as tools/list does; a request that arrives
  // during start-up is answered once they have connected (each within startup_ms).
  const after = <T>(answer: () => T | Promise<T>) => async () => {
    await who.ready;
    return answer();
  };
  if (caps.resources) {
    server.setRequestHandler(ListResourcesRequestSchema, (req) => after(() => relay.listResources(persona, req.params?.cursor))());
    server.setRequestHandler(ListResourceTemplatesRequestSchema, (req) => after(() => relay.listTemplates(persona, req.params?.cursor))());
    server.setRequestHandler(ReadResourceRequestSchema, (req) => after(() => relay.read(persona, req.params.uri))());
  }
  if (caps.resources?.subscribe) {
    server.setRequestHandler(SubscribeRequestSchema, async (req) => {
      await who.ready;
      const target = relay.resolveUri(persona, req.params.uri);
      if (!target) throw new RelayError(RESOURCE_NOT_FOUND, `Resource not found: ${req.params.uri}`, { uri: req.params.uri });
      const notify = (uri: string) => void server.sendResourceUpdated({ uri }).catch((err: Error) => log.debug({ session: sessionId, err: err.message }, 'could not send resources/updated'));
      try {
        // Decided again at each update, so a reload that narrows access ends the subscription.
        const mayRead = () => {
          const now = relay.resolveUri(persona, req.params.uri);
          return now?.server === target.server && now.uri === target.uri;
        };
        await relay.subscriptions.subscribe(sessionId, target, { notify, mayRead });
      } catch (err) {
        const e = err instanceof McpError ? RelayError.from(err) : new RelayError(ErrorCode.InternalError, (err as Error).message);
        throw new RelayError(e.code, `could not subscribe to ${req.params.uri}: ${e.message}`);
      }
      return {};
    });
    server.setRequestHandler(UnsubscribeRequestSchema, async (req) => {
      await who.ready;
      // Whatever the persona may read now: a subscription held from before a reload can still be dropped.
      const target = relay.locate(req.params.uri);
      if (target) await relay.subscriptions.unsubscribe(sessionId, target.server, target.uri);
      return {};
    });
  }
  if (caps.prompts) {
    server.setRequestHandler(ListPromptsRequestSchema, (req) => after(() => relay.listPrompts(persona, req.params?.cursor))());
    server.setRequestHandler(GetPromptRequestSchema, (req) => after(() => relay.getPrompt(persona, req.params.name, req.params.arguments))());
  }
  if (caps.completions) server.setRequestHandler(CompleteRequestSchema, (req) => after(() => relay.complete(persona, req.params))());

  const onListChanged = (kind: ListKind) => {
    const send = kind === 'resources' ? caps.resources && (() => server.sendResourceListChanged()) : caps.prompts && (() => server.sendPromptListChanged());
    if (send) send().catch((err: Error) => log.debug({ session: sessionId, err: err.message }, `could not send ${kind} list_changed`));
  };
  relay.on('list-changed', onListChanged);
  return async () => {
    relay.off('list-changed', onListChanged);
    await relay.subscriptions.dropSession(sessionId);
  };
}
