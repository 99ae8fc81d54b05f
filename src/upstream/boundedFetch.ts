/**
 * The HTTP counterpart of lineReader.ts: the fetch under a remote upstream's transport,
 * bounding each message the upstream sends back. The SDK reads a JSON answer whole and
 * an SSE event whole, with no limit. Here a JSON answer over the limit fails its request
 * with MessageTooLargeError, and an SSE event over it is dropped while it streams past and
 * replaced by an error answer to the request of the stream (the POST's JSON-RPC id). The
 * connection and the upstream's session carry on; nothing over the limit is held.
 */
import { isJSONRPCRequest, type FetchLike, type RequestId } from '@modelcontextprotocol/client';
import { log } from '../log.js';
import { MessageTooLargeError, tooLargeResponse } from './limits.js';
import { describeLine, EDGE_BYTES, lastBytes } from './lineReader.js';

/** The JSON-RPC id of a POSTed request body, if it is one request. */
function requestIdOf(body: unknown): RequestId | undefined {
  if (typeof body !== 'string') return undefined;
  try {
    const message: unknown = JSON.parse(body);
    return isJSONRPCRequest(message) ? message.id : undefined;
  } catch {
    return undefined;
  }
}

function skipped(name: string, bytes: number, maxBytes: number): void {
  log.warn({ upstream: name, bytes, limit: maxBytes }, `upstream "${name}" sent a message of ${bytes} bytes, over the limit; skipped, the connection stays up`);
}

/** The body as text, or MessageTooLargeError once it passes `maxBytes` (the rest is not read). */
async function readJson(name: string, res: Response, maxBytes: number): Promise<string> {
  const refuse = async (bytes: number) => {
    await res.body?.cancel().catch(() => undefined);
    skipped(name, bytes, maxBytes);
    return new MessageTooLargeError(bytes, maxBytes);
  };
  const declared = Number(res.headers.get('content-length') ?? NaN);
  if (declared > maxBytes) throw await refuse(declared);
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    bytes += chunk.length;
    if (bytes > maxBytes) throw await refuse(bytes);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * The id to answer for a skipped event: its own (read from the two ends of its data, as
 * lineReader.ts does for a line) when it is an answer, else the request of the POST the
 * stream answers; none when the event is a request or notification of the upstream.
 */
function answeredId(head: Buffer, tail: Buffer, bytes: number, postId: RequestId | undefined): RequestId | undefined {
  const text = head.toString('utf8');
  const data = /(^|\n)data: ?/.exec(text);
  const line = describeLine(data ? text.slice(data.index + data[0].length) : text, tail.toString('utf8').trimEnd(), bytes);
  if (line.kind === 'request' || line.kind === 'notification') return undefined;
  return line.id ?? postId;
}

/**
 * Passes SSE events through whole; an event over `maxBytes` is dropped as it streams and,
 * when it answered a request (its own id, or the POST's `postId`), an error answer to that
 * request takes its place. Events end at a blank line (LF or CRLF line ends, as the SDKs'
 * servers write them).
 */
function boundedEvents(name: string, maxBytes: number, postId: RequestId | undefined): TransformStream<Uint8Array, Uint8Array> {
  let event: Buffer[] = [];
  let eventBytes = 0;
  /** Bytes of the current event once it is over the limit; only its two ends are kept. */
  let skippedBytes = 0;
  let head: Buffer = Buffer.alloc(0);
  let tail: Buffer = Buffer.alloc(0);
  /** Length of the current line so far, and whether its last byte is a CR. */
  let lineBytes = 0;
  let lineEndsCr = false;
  const encoder = new TextEncoder();
  const keep = (piece: Buffer) => {
    if (skippedBytes > 0) {
      skippedBytes += piece.length;
      tail = lastBytes(Buffer.concat([tail, piece]));
      return;
    }
    event.push(Buffer.from(piece));
    eventBytes += piece.length;
    if (eventBytes <= maxBytes) return;
    const whole = Buffer.concat(event);
    [head, tail] = [Buffer.from(whole.subarray(0, EDGE_BYTES)), lastBytes(whole)];
    skippedBytes = eventBytes;
    event = [];
    eventBytes = 0;
  };
  const endEvent = (controller: TransformStreamDefaultController<Uint8Array>) => {
    if (skippedBytes > 0) {
      skipped(name, skippedBytes, maxBytes);
      const id = answeredId(head, tail, skippedBytes, postId);
      if (id !== undefined) controller.enqueue(encoder.encode(`event: message\ndata: ${JSON.stringify(tooLargeResponse(id, skippedBytes, maxBytes))}\n\n`));
    } else if (eventBytes > 0) controller.enqueue(Buffer.concat(event));
    event = [];
    eventBytes = 0;
    skippedBytes = 0;
  };
  return new TransformStream({
    transform(chunk, controller) {
      const buf = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.length);
      let start = 0;
      while (start < buf.length) {
        const nl = buf.indexOf(0x0a, start);
        const text = buf.subarray(start, nl === -1 ? buf.length : nl);
        if (text.length > 0) lineEndsCr = text[text.length - 1] === 0x0d;
        lineBytes += text.length;
        keep(buf.subarray(start, nl === -1 ? buf.length : nl + 1));
        if (nl === -1) return;
        const blank = lineBytes === 0 || (lineBytes === 1 && lineEndsCr);
        lineBytes = 0;
        lineEndsCr = false;
        if (blank) endEvent(controller);
        start = nl + 1;
      }
    },
    flush(controller) {
      if (skippedBytes === 0 && eventBytes > 0) controller.enqueue(Buffer.concat(event));
    },
  });
}

/** A fetch for upstream `name` that bounds each JSON answer and SSE event at `maxBytes`. */
export function boundedFetch(name: string, maxBytes: number, fetchFn: FetchLike = fetch): FetchLike {
  return async (url, init) => {
    const res = await fetchFn(url, init);
    if (!res.ok || !res.body) return res;
    const type = (res.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
    const rebuilt = (body: string | ReadableStream<Uint8Array>) => new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
    if (type === 'application/json') return rebuilt(await readJson(name, res, maxBytes));
    if (type === 'text/event-stream') return rebuilt(res.body.pipeThrough(boundedEvents(name, maxBytes, requestIdOf(init?.body))));
    return res;
  };
}
