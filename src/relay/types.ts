/**
 * The relay's view of a host: a session (its MCP Server face, persona, log level) and the
 * host's tools/call being served. Owned by relay/; the gateway's Session fills them in.
 */
import type { ClientCapabilities, LoggingLevel, ProgressToken, RequestId, Server, ServerContext, ServerNotification } from '@modelcontextprotocol/server';
import type { CallContext } from '../guards/types.js';
import type { InputRelay } from './inputRequired.js';

/** One host session as the relay sees it. */
export interface HostSession {
  readonly id: string;
  /** Undefined when no personas.yaml is configured. */
  readonly persona?: string;
  /** The session's MCP server face: requests to the host go out through it. */
  readonly server: Server;
  /** Set by the host's `logging/setLevel`; undefined lets every level through. */
  logLevel?: LoggingLevel;
}

/** A host's tools/call in progress: who asked, and how to answer on its behalf. */
export interface HostRequest {
  readonly session: HostSession;
  /** JSON-RPC id of the host's tools/call; requests to the host are sent as related to it (over HTTP: on its response stream). */
  readonly requestId: RequestId;
  /** Aborted when the host sends `notifications/cancelled` for the call (or its session closes). */
  readonly signal: AbortSignal;
  /** The host's `_meta.progressToken`, if it asked for progress. */
  readonly progressToken?: ProgressToken;
  /** The host's other `_meta` keys, passed upstream unchanged. */
  readonly meta?: Record<string, unknown>;
  /** What the host declared for this request (a 2026 host's `_meta`); absent: its session's initialize. */
  readonly capabilities?: ClientCapabilities;
  /** Sends a request to the host related to the call (an upstream's question): the SDK handler context's `mcpReq.send`. */
  sendRequest: ServerContext['mcpReq']['send'];
  /** Sends a notification related to the call (progress, log messages). */
  sendNotification(notification: ServerNotification): Promise<void>;
}

/** Who asks for a relayed list, read, prompt or completion. */
export interface RelayCaller {
  /** Undefined when no personas.yaml is configured. */
  readonly persona?: string;
  /** The session's user id: a per-user upstream's items come through this user's own connection only. */
  readonly userId?: string;
  /** The host's request: a consent link, or an upstream's question to a 2025 host, is asked as a request related to it. */
  readonly host?: HostRequest;
  /** The request's era, what the host declared and a 2026 retry's input (host/era.ts callFieldsOf); absent: a 2025 request, capabilities unknown. */
  readonly request?: RequestFields;
  /** Seals an upstream's question relayed to a 2026 host (inputRequired.ts); absent: such a question is not relayed. */
  readonly inputRelay?: InputRelay;
}

/** What a host's request brings besides its params: era, declared capabilities, a 2026 retry's answers and opened state. */
export type RequestFields = Pick<CallContext, 'era' | 'hostCapabilities' | 'input'>;

export { RelayError } from './errors.js';
