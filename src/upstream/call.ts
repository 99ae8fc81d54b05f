/**
 * A tools/call forwarded to one connected upstream: the call's timeouts (progress starts
 * the timeout again, up to the maximum total), the host's cancellation and `_meta`, the
 * size bound on the result, one retry on a new session when a Streamable HTTP upstream
 * forgot ours, and every failure turned into an MCP error result the host can read.
 */
import { MissingRequiredClientCapabilityError, SdkHttpError, UrlElicitationRequiredError, type CallToolResult, type InputRequiredResult, type Tool } from '@modelcontextprotocol/client';
import { log } from '../log.js';
import { NeedsAuthorizationError, UpstreamAuthError } from './auth/index.js';
import type { Connection } from './connect.js';
import { hostBound } from './envelope.js';
import { tooLarge, tooLargeMessage } from './limits.js';
import type { CallOptions } from './types.js';

export const errorResult = (text: string): CallToolResult => ({ isError: true, content: [{ type: 'text', text }] });

/** What a forwarded call needs of the pool's upstream record. */
export interface CallTarget {
  server: string;
  /** The current connection; undefined while none is usable. */
  conn(): Connection | undefined;
  /**
   * The upstream's definition of `tool` as listed, if the caller keeps it: the SDK checks
   * the result's `structuredContent` against its `outputSchema` (the pages of tools/list
   * are fetched one by one, outside the SDK's own list cache).
   */
  definition?(tool: string): Tool | undefined;
  /** Opens a new session in place of `gone`'s, which the upstream forgot (unless another already replaced it); resolves to whether it is ready again. */
  reinitialize(gone: Connection): Promise<boolean>;
  /** The grant was withdrawn (not a step-up): the upstream waits for consent again. */
  consentLost(err: NeedsAuthorizationError): void;
  /** Any consent the call needs (a step-up included), before the error result is made: per-user upstreams offer their user a link. */
  consentNeeded?(err: NeedsAuthorizationError): void;
}

export interface CallLimits {
  callMs: number;
  callMaxMs?: number;
  maxResultBytes: number;
}

/**
 * The upstream no longer knows our Streamable HTTP session (it restarted, or expired it):
 * 404 as the spec says, or the 400 "No valid session ID" that some servers built on the
 * SDK's examples send. Either way the request was refused, not run, so a retry is safe.
 */
export function sessionGone(err: unknown): boolean {
  if (!(err instanceof SdkHttpError)) return false;
  return err.status === 404 || (err.status === 400 && /session/i.test(err.message));
}

/**
 * The call's arguments could not be serialized to JSON (nested deeper than JSON.stringify
 * can walk): nothing was sent, so the tool has not run. Thrown rather than made an error
 * result, so that the call is not counted as having reached the upstream.
 */
export class ArgumentsNotSentError extends Error {
  constructor(
    readonly server: string,
    readonly tool: string,
  ) {
    super(`its arguments could not be sent to upstream "${server}": they are nested too deep to serialize as JSON, so ${tool} has not run; send them less deeply nested`);
  }
}

/** Whether `value` serializes to JSON here (a stack overflow on a deeply nested value does not). */
function serializes(value: unknown): boolean {
  try {
    JSON.stringify(value);
    return true;
  } catch {
    return false;
  }
}

/** What a forwarded call answers: the tool's result, or (with `allowInputRequired`) a 2026 upstream's request for input. */
export type UpstreamOutcome = CallToolResult | InputRequiredResult;

/** `result`, or an error result naming the tool and the size when its JSON is over `limit` bytes. */
function bounded(server: string, tool: string, result: UpstreamOutcome, limit: number): UpstreamOutcome {
  const bytes = Buffer.byteLength(JSON.stringify(result));
  if (bytes <= limit) return result;
  log.warn({ upstream: server, tool, bytes, limit }, 'tool result over relay.max_result_bytes refused');
  return errorResult(tooLargeMessage(server, tool, { bytes, limit }));
}

/**
 * Forwards `tool` with `args` to `target`. Resolves to the upstream's result or an error
 * result; throws only UrlElicitationRequiredError (-32042) and MissingRequiredClientCapabilityError
 * (-32021, a 2026 upstream needs a capability the host did not declare), which ask the host to act,
 * and ArgumentsNotSentError when `args` cannot be serialized (nothing reached the upstream).
 */
export async function forwardCall(target: CallTarget, tool: string, args: Record<string, unknown>, relayed: CallOptions & { allowInputRequired: true }, limits: CallLimits): Promise<UpstreamOutcome>;
export async function forwardCall(target: CallTarget, tool: string, args: Record<string, unknown>, relayed: CallOptions, limits: CallLimits): Promise<CallToolResult>;
export async function forwardCall(target: CallTarget, tool: string, args: Record<string, unknown>, relayed: CallOptions, limits: CallLimits): Promise<UpstreamOutcome> {
  const { server } = target;
  const { signal, onprogress, meta, retry } = relayed;
  const params = { name: tool, arguments: args, ...(meta && { _meta: meta }), ...retry };
  const definition = target.definition?.(tool);
  const options = {
    timeout: limits.callMs,
    maxTotalTimeout: Math.max(limits.callMs, limits.callMaxMs ?? 0),
    signal,
    onprogress,
    resetTimeoutOnProgress: true,
    ...(relayed.allowInputRequired && { allowInputRequired: true }),
    ...(definition && { toolDefinition: definition }),
  };
  // callTool's type names the complete result only; with allowInputRequired an input_required comes back as it is.
  const forward = async (conn: Connection) => bounded(server, tool, hostBound((await conn.client.callTool(params, options)) as UpstreamOutcome), limits.maxResultBytes);
  const failed = (err: unknown): CallToolResult => {
    // Both are the host's to act on: passed on as errors, never turned into a failed call.
    if (err instanceof UrlElicitationRequiredError || err instanceof MissingRequiredClientCapabilityError) throw err;
    // A stack overflow while sending: the request never left (checked only on failure, so a call that succeeds is not serialized twice).
    if (err instanceof RangeError && !serializes(params)) throw new ArgumentsNotSentError(server, tool);
    const size = tooLarge(err);
    if (size) return errorResult(tooLargeMessage(server, tool, size));
    const explained = target.conn()?.explain?.(err) ?? (err as Error);
    // The model is told what happened, never a command to run (the log and doctor have the operator's fix).
    if (!(explained instanceof NeedsAuthorizationError)) return errorResult(`upstream "${server}" failed on ${tool}: ${explained instanceof UpstreamAuthError ? explained.forModel : explained.message}`);
    target.consentNeeded?.(explained);
    // A step-up only concerns this call: the upstream's other tools keep working.
    if (explained.reason !== 'step_up') target.consentLost(explained);
    return errorResult(`${tool}: ${explained.forModel}`);
  };
  const conn = target.conn();
  if (!conn) return errorResult(`upstream "${server}" is unavailable; try again later`);
  try {
    return await forward(conn);
  } catch (err) {
    if (!sessionGone(err) || !(await target.reinitialize(conn))) return failed(err);
    const again = target.conn();
    if (!again) return failed(err);
    try {
      return await forward(again);
    } catch (retryErr) {
      return failed(retryErr);
    }
  }
}
