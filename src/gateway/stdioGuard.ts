/**
 * The host-facing stdio transport with a guard in front of it. The SDK's
 * StdioServerTransport, given a line over its 10 MiB buffer, closes itself — and the
 * gateway, seeing its transport closed, exits with code 0; a line that is JSON but not
 * JSON-RPC (a request with `params: null`, a batch array) is dropped without an answer.
 *
 * Here each line from the host is bounded and checked first: a well-formed message goes
 * on to the SDK transport as the message the check parsed (the SDK's own reader would
 * parse the same line with the same schema again: once is enough on every call's path);
 * an oversized line, unparseable JSON, a batch, or a malformed request carrying an id gets
 * a JSON-RPC error answer (-32700 / -32600) and the gateway keeps serving. What carries no
 * id a reply could name is logged and dropped.
 */
import { PassThrough, Writable } from 'node:stream';
import { JSONRPCMessageSchema } from '@modelcontextprotocol/core';
import { ProtocolErrorCode, type JSONRPCMessage, type RequestId } from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { log } from '../log.js';

/** Largest line accepted from the host: 4 MiB, the same bound as an HTTP request body. */
export const MAX_LINE_BYTES = 4 * 1024 * 1024;

/** Bytes of an oversized line kept to look for its id. */
const HEAD_BYTES = 4096;

export interface StdioGuardOptions {
  /** Largest accepted line in bytes, newline excluded. Default `MAX_LINE_BYTES`. */
  maxLineBytes?: number;
  stdin?: NodeJS.ReadableStream;
  stdout?: NodeJS.WritableStream;
}

/** What is wrong with one line from the host, and the id to answer, if one could be read. */
export interface Rejection {
  code: ProtocolErrorCode.ParseError | ProtocolErrorCode.InvalidRequest;
  message: string;
  id?: RequestId;
  /** Whether the host gets an error answer; false when nothing could tell it which message failed. */
  answer: boolean;
}

function isId(v: unknown): v is RequestId {
  return typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v));
}

/** One line from the host, checked: the message (as the SDK's schema parses it), or why it was rejected. */
export type CheckedLine = { message: JSONRPCMessage; rejection?: undefined } | { rejection: Rejection };

/**
 * Checks one complete line (without its newline). Returns the parsed message for a valid
 * JSON-RPC message, else the rejection. A malformed *response* (the host answering a
 * request of ours) has an id but must not be answered: it comes back without one.
 */
export function checkLine(line: string): CheckedLine {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return { rejection: { code: ProtocolErrorCode.ParseError, message: 'Parse error: the line is not JSON', answer: true } };
  }
  if (Array.isArray(value)) return { rejection: { code: ProtocolErrorCode.InvalidRequest, message: 'Invalid Request: JSON-RPC batches are not supported by MCP; send one message per line', answer: true } };
  const parsed = JSONRPCMessageSchema.safeParse(value);
  if (parsed.success) return { message: parsed.data };
  const obj = value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : {};
  const issue = parsed.error.issues[0];
  const where = issue?.path.length ? ` at ${issue.path.slice(0, 4).join('.')}` : '';
  const message = `Invalid Request: not a valid JSON-RPC message${where}`;
  // Not a response (no result/error): a request, however broken, and answerable if its id is usable.
  const isRequest = !('result' in obj) && !('error' in obj);
  return { rejection: isRequest && isId(obj.id) ? { code: ProtocolErrorCode.InvalidRequest, message, id: obj.id, answer: true } : { code: ProtocolErrorCode.InvalidRequest, message, answer: false } };
}

/**
 * The id of an oversized request, read from its first bytes: `"id"` before `"params"`
 * (how SDK clients serialize), so an `id` inside the arguments is never taken for it.
 */
export function idFromHead(head: string): RequestId | undefined {
  const params = head.indexOf('"params"');
  const m = /"id"\s*:\s*(-?\d+(?:\.\d+)?|"(?:[^"\\]|\\.){0,256}")/.exec(head);
  if (!m || (params >= 0 && m.index > params)) return undefined;
  try {
    const id: unknown = JSON.parse(m[1]!);
    return isId(id) ? id : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The SDK's stdio transport (its `send`, `close`, handlers), fed by the guard instead of
 * reading a stream itself: its own stdin is an idle stream, and the host's input is read
 * from `start` (so no message arrives before `onmessage` is set) until `close`.
 */
class GuardedStdioServerTransport extends StdioServerTransport {
  constructor(
    private readonly input: NodeJS.ReadableStream,
    private readonly guard: NodeJS.WritableStream,
    stdout: NodeJS.WritableStream,
  ) {
    super(new PassThrough(), stdout as never);
  }

  override async start(): Promise<void> {
    await super.start();
    this.input.pipe(this.guard);
  }

  override async close(): Promise<void> {
    this.input.unpipe(this.guard);
    await super.close();
  }

  /** A checked message, handed on as the SDK's reader hands on the ones it parses (a throwing handler goes to `onerror`). */
  deliver(message: JSONRPCMessage): void {
    try {
      this.onmessage?.(message);
    } catch (err) {
      this.onerror?.(err as Error);
    }
  }
}

/**
 * A StdioServerTransport on stdin/stdout whose input passes the guard first. Error
 * answers go out through the same transport's `send`, so they never interleave with
 * another message on stdout.
 */
export function guardedStdioTransport(opts: StdioGuardOptions = {}): StdioServerTransport {
  const max = opts.maxLineBytes ?? MAX_LINE_BYTES;
  const stdin = opts.stdin ?? process.stdin;

  const reject = (r: Rejection, bytes: number) => {
    log.warn({ bytes, code: r.code, id: r.id, reason: r.message }, r.answer ? 'host message rejected with an error answer' : 'host message dropped (no id to answer)');
    if (!r.answer) return;
    // Without an id (parse error, batch) the answer has none: JSON-RPC's id null is not in the SDK's schema.
    const answer = { jsonrpc: '2.0', ...(r.id !== undefined && { id: r.id }), error: { code: r.code, message: r.message } } as JSONRPCMessage;
    transport.send(answer).catch(() => undefined);
  };

  const rejectOversized = (head: Buffer, bytes: number) => {
    const id = idFromHead(head.toString('utf8'));
    reject({ code: ProtocolErrorCode.InvalidRequest, message: `Invalid Request: message of ${bytes} bytes is over the ${max}-byte bound`, id, answer: id !== undefined }, bytes);
  };
  const acceptLine = (line: Buffer) => {
    const text = line.toString('utf8').replace(/\r$/, '');
    if (!text.trim()) return;
    const checked = checkLine(text);
    if (checked.rejection) reject(checked.rejection, line.length);
    else transport.deliver(checked.message);
  };

  /** The start of the current line, while it is within the bound. */
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  /** Once the current line is over the bound: its first bytes (for the id) and its length so far; the rest is skipped, not kept. */
  let oversized: { head: Buffer; bytes: number } | undefined;

  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      let rest = chunk;
      for (let nl = rest.indexOf(0x0a); nl >= 0; nl = rest.indexOf(0x0a)) {
        const part = rest.subarray(0, nl);
        rest = rest.subarray(nl + 1);
        const bytes = (oversized?.bytes ?? pendingBytes) + part.length;
        if (oversized) rejectOversized(oversized.head, bytes);
        else if (bytes > max) rejectOversized(Buffer.concat([...pending, part.subarray(0, HEAD_BYTES)]).subarray(0, HEAD_BYTES), bytes);
        else acceptLine(Buffer.concat([...pending, part]));
        pending = [];
        pendingBytes = 0;
        oversized = undefined;
      }
      if (oversized) {
        oversized.bytes += rest.length;
      } else if (rest.length > 0) {
        pending.push(rest);
        pendingBytes += rest.length;
        if (pendingBytes > max) {
          // Copy the head out, so the megabytes before it can be freed.
          oversized = { head: Buffer.from(Buffer.concat(pending).subarray(0, HEAD_BYTES)), bytes: pendingBytes };
          pending = [];
          pendingBytes = 0;
        }
      }
      done();
    },
  });
  const transport = new GuardedStdioServerTransport(stdin, sink, opts.stdout ?? process.stdout);
  return transport;
}
