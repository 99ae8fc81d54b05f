/**
 * The host-facing side of the relay: registers resources, templates, prompts,
 * completion and subscription handlers on one session's MCP Server (for the
 * capabilities it advertises), and sends that session the list_changed and
 * resources/updated notifications meant for it.
 */
import type { Server, ServerCapabilities, ServerContext } from '@modelcontextprotocol/server';
import { log } from '../log.js';
import type { ListKind } from '../upstream/lists.js';
import type { InputRelay } from './inputRequired.js';
import type { Relay } from './relay.js';
import type { RelayCaller, RequestFields } from './types.js';

export interface RelaySession {
  sessionId: string;
  persona?: string;
  /** The session's user id: per-user upstreams' items come through this user's own connection. */
  userId?: string;
  /** Resolves once the upstreams have connected (the gateway's catalogReady): requests wait for it, as tools/list does. */
  ready?: Promise<unknown>;
  /** What each request brings besides its params (host/era.ts callFieldsOf): prompts/get and resources/read relay an upstream's questions by it. */
  fields?: (ctx: ServerContext) => RequestFields;
  /** Seals an upstream's question relayed to a 2026 host (inputRequired.ts). */
  inputRelay?: InputRelay;
}

/**
 * ### Usage
 * ```ts
 * const caps = relay.capabilities();
 * const server = new Server(info, { capabilities: { tools: {}, ...caps } });
 * const detach = attachRelay(server, relay, { sessionId, persona, userId }, caps);
 * // on session close:
 * await detach();
 * ```
 * @param caps what `server` was created with: only those handlers are registered.
 * @returns a function that stops the notifications and drops the session's subscriptions.
 */
export function attachRelay(server: Server, relay: Relay, who: RelaySession, caps: ServerCapabilities): () => Promise<void> {
  const { persona, sessionId, userId, fields, inputRelay } = who;
  const session = { id: sessionId, persona, server };
  /** The caller of one request: a consent link or an upstream's question it needs is asked as a request related to it. */
  const caller = (ctx: ServerContext): RelayCaller => ({
    persona,
    userId,
    host: { session, requestId: ctx.mcpReq.id, signal: ctx.mcpReq.signal, sendRequest: ctx.mcpReq.send, sendNotification: ctx.mcpReq.notify },
    ...(fields && { request: fields(ctx) }),
    ...(inputRelay && { inputRelay }),
  });
  // Lists and reads wait for the upstreams as tools/list does; a request that arrives
  // during start-up is answered once they have connected (each within startup_ms).
  const after =
    <R, T>(answer: (req: R, who: RelayCaller) => Promise<T>) =>
    async (req: R, ctx: ServerContext) => {
      await who.ready;
      return answer(req, caller(ctx));
    };
  if (caps.resources) {
    server.setRequestHandler('resources/list', after((req, c) => relay.listResources(c, req.params?.cursor)));
    server.setRequestHandler('resources/templates/list', after((req, c) => relay.listTemplates(c, req.params?.cursor)));
    server.setRequestHandler('resources/read', after((req, c) => relay.read(c, req.params.uri)));
  }
  if (caps.resources?.subscribe) {
    const notify = (uri: string) => void server.sendResourceUpdated({ uri }).catch((err: Error) => log.debug({ session: sessionId, err: err.message }, 'could not send resources/updated'));
    server.setRequestHandler(
      'resources/subscribe',
      after(async (req, c) => (await relay.subscribe(sessionId, c, req.params.uri, notify), {})),
    );
    server.setRequestHandler(
      'resources/unsubscribe',
      after(async (req, c) => (await relay.unsubscribe(sessionId, c, req.params.uri), {})),
    );
  }
  if (caps.prompts) {
    server.setRequestHandler('prompts/list', after((req, c) => relay.listPrompts(c, req.params?.cursor)));
    server.setRequestHandler('prompts/get', after((req, c) => relay.getPrompt(c, req.params.name, req.params.arguments)));
  }
  if (caps.completions) server.setRequestHandler('completion/complete', after((req, c) => relay.complete(c, req.params)));

  // A user's own list changed: only that user's sessions are told.
  const onListChanged = (kind: ListKind, user?: string) => {
    if (user !== undefined && user !== userId) return;
    const send = kind === 'resources' ? caps.resources && (() => server.sendResourceListChanged()) : caps.prompts && (() => server.sendPromptListChanged());
    if (send) send().catch((err: Error) => log.debug({ session: sessionId, err: err.message }, `could not send ${kind} list_changed`));
  };
  relay.on('list-changed', onListChanged);
  return async () => {
    relay.off('list-changed', onListChanged);
    await relay.subscriptions.dropSession(sessionId);
  };
}
