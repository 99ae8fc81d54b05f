/**
 * The call path as a composition of guards, Hono-style: each guard gets the call and
 * `next`, and either answers itself (refuse, correct, park for approval) or calls next.
 * The gateway composes nameGuard → policy → identity → confirmation → upstream, with the
 * audit guard outermost so it sees every decision.
 */
import type { CallToolResult, ClientCapabilities, InputRequiredResult } from '@modelcontextprotocol/server';
import type { ToolRecord } from '../catalog/types.js';
import type { ConfirmVia } from '../config/schema.js';
import type { HostRequest } from '../relay/types.js';
import type { Decision } from '../store/types.js';
import type { SealedContent, SealedState } from './sealed.js';

/** Who is calling. One per MCP session of the host. */
export interface SessionIdentity {
  sessionId: string;
  /** Undefined when no personas.yaml is configured (every tool allowed). */
  persona?: string;
  userId?: string;
  /** How the session reaches the gateway; decides the default confirmation channel. Default stdio. */
  transport?: 'stdio' | 'http';
  /** Confirmation channel set for this session (an HTTP token's `confirm_via`); else the persona's, else per transport. */
  confirmVia?: ConfirmVia;
  /** Who signed in with the organisation's identity provider (`http.oauth`); absent for static tokens, anonymous and stdio sessions. */
  principal?: Principal;
  /**
   * For a session opened with a static host token: a fingerprint of that token (never the
   * token), which tells two tokens of one persona apart when neither names a user.
   */
  credential?: string;
}

/**
 * A person (or service) signed in with the organisation's identity provider, as the
 * validated access token says. `issuer` + `subject` identify them across sessions and
 * token refreshes: the key for anything kept per user.
 */
export interface Principal {
  issuer: string;
  /** The token's `sub` (or `client:<client_id>` for a token without one). */
  subject: string;
  /** The OAuth client (host) the token was issued to, when the token names it. */
  clientId?: string;
  /** The rule that chose the persona: `http.oauth.personas.<i> (<conditions>)`. */
  rule: string;
  /** The validated claims of the token that opened the session. */
  claims: Record<string, unknown>;
}

/** The decision audited for a call (defined with the audit rows that store it). */
export type { Decision } from '../store/types.js';

export interface CallContext {
  session: SessionIdentity;
  /** Name as the host sent it. */
  requestedName: string;
  /** Arguments as they will be forwarded; guards may replace them. */
  args: Record<string, unknown>;
  /** Resolved tool, set by the name guard. */
  tool?: ToolRecord;
  /** Decisions taken on the way, in order (the audit records the last). */
  decisions: Decision[];
  /** Free-text notes for the audit (e.g. "corrected from get_attendence_summary"). */
  notes: string[];
  /** Upstream latency in ms, set by the upstream handler. */
  upstreamMs?: number;
  /** Ask the host's user through MCP elicitation; undefined when the host lacks it. */
  elicit?: (message: string, tool: ToolRecord, args: Record<string, unknown>) => Promise<'accept' | 'decline' | 'cancel'>;
  /** The host's tools/call this call serves (its cancellation signal, progress token); undefined for calls not made by a host. */
  host?: HostRequest;
  /**
   * The protocol era of the host's request: `legacy` (2025-11-25 and before: a session,
   * server-to-client requests) or `modern` (2026-07-28: questions go back as an
   * `input_required` answer). Default `legacy`.
   */
  era?: ProtocolEra;
  /** What the host declared it can do: per request on `modern` (the `_meta` envelope), per session on `legacy`. */
  hostCapabilities?: ClientCapabilities;
  /** A `modern` host's retry of an `input_required` answer: its answers, and the state the gateway sealed, opened and spent (guards/sealed.ts). */
  input?: CallInput;
  /**
   * Seals a `requestState` for this call's authorization (guards/sealed.ts), valid `ttlMs`:
   * what a guard or relay puts in an `input_required` answer; only the same authorization
   * can continue it, once. Set by the host face for every host request.
   */
  seal?: (content: SealedContent, ttlMs: number) => Promise<string>;
}

/** `legacy`: 2025-11-25 and earlier; `modern`: 2026-07-28 (the SDK's ProtocolEra). */
export type ProtocolEra = 'legacy' | 'modern';

/** A retried call's input (2026-07-28 multi-round-trip requests). */
export interface CallInput {
  /** `inputResponses` as the host sent them, keyed as the gateway asked: untrusted, validate before use. */
  responses: Record<string, unknown>;
  /** The sealed `requestState` the host echoed, opened for this authorization and spent; absent when it sent none. */
  state?: SealedState;
}

/** What the call path answers: a tool result, or (`modern` hosts only) a request for input to retry with. */
export type CallOutcome = CallToolResult | InputRequiredResult;
export type CallHandler = (ctx: CallContext) => Promise<CallOutcome>;
/**
 * Whether the call path answered with a tool result (not an `input_required`): the spec's
 * discriminant, read here rather than through the SDK's isInputRequiredResult, whose module
 * loads the protocol schemas (zod) that the package's entry point leaves for first use.
 */
export const isToolResult = (outcome: CallOutcome): outcome is CallToolResult => (outcome as { resultType?: unknown }).resultType !== 'input_required';
export type Guard = (ctx: CallContext, next: CallHandler) => Promise<CallOutcome>;

/** Composes guards left to right around a final handler. */
export function compose(guards: Guard[], final: CallHandler): CallHandler {
  return guards.reduceRight<CallHandler>((next, guard) => (ctx) => guard(ctx, next), final);
}

/** An MCP error result: the call failed, the gateway keeps serving. */
export function errorResult(message: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: message }] };
}
