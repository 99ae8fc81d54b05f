/**
 * The read side of a stdio upstream connection, bounded without breaking it. The SDK's
 * `ReadBuffer` (1.32) throws once more than 10 MiB are unread, and its stdio transport
 * then closes the connection: the upstream process is killed, and every other session's
 * call in flight to it fails with "Connection closed". This reader takes the SDK's place
 * (same `append` / `readMessage` / `clear`) and skips a line longer than `maxBytes`
 * instead: while the line streams past it keeps only its first and last bytes, and when
 * the line ends it reports it (`onOversized`), with the JSON-RPC id it answered when one
 * can be found. The connection, and every other message on it, carries on.
 */
import type { JSONRPCMessage, RequestId } from '@modelcontextprotocol/client';

/** Bytes kept from each end of a skipped line: enough for the envelope around the id. */
export const EDGE_BYTES = 512;

/** A line over the limit, as far as it could be read without holding it. */
export interface OversizedLine {
  bytes: number;
  /** `response` (result or error), `request` (has a method and an id), `notification`, or `unknown`. */
  kind: 'response' | 'request' | 'notification' | 'unknown';
  /** The top-level JSON-RPC id, when the line's start or end shows it. */
  id?: RequestId;
}

/** A JSON string or number literal, as a JSON-RPC id is written. */
const ID = String.raw`(-?\d+|"(?:[^"\\]|\\.)*")`;
/** `{"jsonrpc":"2.0","id":7,…` (id first: most SDKs other than TypeScript's). */
const ID_AT_START = new RegExp(String.raw`^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*${ID}`);
/** `…,"jsonrpc":"2.0","id":7}` (id last: the TypeScript SDK). */
const ID_AT_END = new RegExp(String.raw`"id"\s*:\s*${ID}\s*\}\s*$`);
/** The first of the keys that tell a message's kind, as it appears in the line's start. */
const KIND_KEY = /"(result|error|method)"\s*:/;

/** What a skipped line was, from its first and last bytes. */
export function describeLine(head: string, tail: string, bytes: number): OversizedLine {
  const key = KIND_KEY.exec(head)?.[1];
  const literal = ID_AT_START.exec(head)?.[1] ?? ID_AT_END.exec(tail)?.[1];
  const id = literal === undefined ? undefined : (JSON.parse(literal) as RequestId);
  const kind = key === 'result' || key === 'error' ? 'response' : key === 'method' ? (id === undefined ? 'notification' : 'request') : 'unknown';
  return { bytes, kind, ...(id !== undefined && { id }) };
}

export class BoundedLineReader {
  /** Complete lines (or messages put in their place) not yet read. */
  private readonly ready: (Buffer | JSONRPCMessage)[] = [];
  /** The current, unfinished line. */
  private partial: Buffer[] = [];
  private partialBytes = 0;
  /** Set while a line over the limit streams past. */
  private skipping: { head: Buffer; tail: Buffer; bytes: number } | undefined;

  /**
   * @param maxBytes longest line kept, in bytes (without its newline).
   * @param onOversized told of every skipped line once it has ended; what it returns
   *   (e.g. an error answer to the request the line answered) is read in the line's place.
   */
  constructor(
    private readonly maxBytes: number,
    private readonly onOversized: (line: OversizedLine) => JSONRPCMessage | undefined,
  ) {}

  append(chunk: Buffer): void {
    let start = 0;
    while (start < chunk.length) {
      const newline = chunk.indexOf(0x0a, start);
      const end = newline === -1 ? chunk.length : newline;
      this.take(chunk.subarray(start, end));
      if (newline === -1) return;
      this.endLine();
      start = newline + 1;
    }
  }

  /**
   * The next message, `null` when no complete line is left. The line is parsed, not
   * validated: the SDK's Protocol checks every message against the JSON-RPC schemas
   * before it dispatches it (a response, request or notification it cannot read goes to
   * `onerror`), so the SDK reader's own schema parse here would be a second one on every
   * call's path (~30 µs).
   * @throws for a line that is not JSON, or not a JSON-RPC 2.0 object.
   */
  readMessage(): JSONRPCMessage | null {
    const next = this.ready.shift();
    if (next === undefined) return null;
    if (!Buffer.isBuffer(next)) return next;
    const message: unknown = JSON.parse(next.toString('utf8'));
    if (message === null || typeof message !== 'object' || Array.isArray(message) || (message as { jsonrpc?: unknown }).jsonrpc !== '2.0') throw new TypeError('upstream sent a line that is not a JSON-RPC 2.0 message');
    return message as JSONRPCMessage;
  }

  clear(): void {
    this.ready.length = 0;
    this.partial = [];
    this.partialBytes = 0;
    this.skipping = undefined;
  }

  private take(piece: Buffer): void {
    if (piece.length === 0) return;
    if (this.skipping) {
      this.skipping.bytes += piece.length;
      this.skipping.tail = lastBytes(Buffer.concat([this.skipping.tail, piece]));
      return;
    }
    this.partial.push(piece);
    this.partialBytes += piece.length;
    if (this.partialBytes <= this.maxBytes) return;
    // Over the limit: keep the two ends, let go of the middle.
    const line = Buffer.concat(this.partial);
    this.skipping = { head: Buffer.from(line.subarray(0, EDGE_BYTES)), tail: lastBytes(line), bytes: line.length };
    this.partial = [];
    this.partialBytes = 0;
  }

  private endLine(): void {
    if (this.skipping) {
      const { head, tail, bytes } = this.skipping;
      this.skipping = undefined;
      const instead = this.onOversized(describeLine(head.toString('utf8'), tail.toString('utf8'), bytes));
      if (instead) this.ready.push(instead);
      return;
    }
    if (this.partialBytes === 0) return;
    // Copied out of the stream's chunks, so a small line does not pin a large chunk.
    this.ready.push(this.partial.length === 1 ? Buffer.from(this.partial[0]!) : Buffer.concat(this.partial));
    this.partial = [];
    this.partialBytes = 0;
  }
}

/** The last EDGE_BYTES of `b` (a copy, so a large buffer is not pinned). */
export function lastBytes(b: Buffer): Buffer {
  return b.length <= EDGE_BYTES ? b : Buffer.from(b.subarray(b.length - EDGE_BYTES));
}
