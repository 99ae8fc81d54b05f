/**
 * POST bodies on the HTTP face, read with a bound. A body over the bound gets 413 and its
 * connection is closed after the answer (`Connection: close`), so nothing else is read as
 * a request from the rest of it. The rest is read and dropped first (up to DRAIN_BYTES):
 * a server that closes while the client is still sending resets the connection, and the
 * client then loses the 413 and every request it had queued behind it on a kept-alive
 * connection. A client that announces a body over the bound (`Expect: 100-continue`) is
 * refused before it sends it.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

/** Largest request body read: 4 MiB, the SDK transport's own limit. */
export const MAX_BODY_BYTES = 4 * 1024 * 1024;
/** Most of an oversized body read and dropped before its connection closes; past it the connection is cut. */
const DRAIN_BYTES = 64 * 1024 * 1024;

export function reply(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
}

/**
 * Deepest nesting of arrays and objects a body may have: 1,000 levels. MCP messages nest a
 * few levels, the fuzz sends 150; past about 4,400 the SDK's own `JSON.stringify` of the
 * body (to build its web request) overflows the stack, which answered 500 "internal error"
 * and logged a stack trace per request (attack8).
 */
export const MAX_BODY_DEPTH = 1000;

class BodyTooLarge extends Error {}
class BodyTooDeep extends Error {}

/** Whether `text` (JSON) nests arrays and objects deeper than `max`; one pass, strings skipped. */
export function nestedDeeper(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // a backslash escapes the next character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  // Not `for await (… of req)`: that destroys the request stream at its end, and the SDK
  // transport (through @hono/node-server) takes a destroyed request for a client gone
  // away and aborts a response still streaming (ECONNRESET for a slow tools/call).
  for await (const c of req.iterator({ destroyOnReturn: false })) {
    size += (c as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new BodyTooLarge();
    chunks.push(c as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (nestedDeeper(text, MAX_BODY_DEPTH)) throw new BodyTooDeep();
  return text ? JSON.parse(text) : undefined;
}

/** Reads and drops the rest of `req`; resolves to false when more than DRAIN_BYTES remain or the client goes away. */
function drain(req: IncomingMessage): Promise<boolean> {
  if (req.readableEnded) return Promise.resolve(true);
  return new Promise((resolve) => {
    let dropped = 0;
    const done = (whole: boolean) => {
      req.off('data', count).off('end', ended).off('error', failed).off('close', failed);
      resolve(whole);
    };
    const count = (c: Buffer) => {
      dropped += c.length;
      if (dropped > DRAIN_BYTES) done(false);
    };
    const ended = () => done(true);
    const failed = () => done(false);
    req.on('data', count).once('end', ended).once('error', failed).once('close', failed);
    req.resume();
  });
}

/** 413, then the connection closes; cut at once when the client sends on past DRAIN_BYTES. */
async function refuseTooLarge(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const whole = await drain(req);
  if (res.writableEnded) return;
  reply(res, 413, { jsonrpc: '2.0', error: { code: -32600, message: `request body over ${MAX_BODY_BYTES} bytes` }, id: null }, { connection: 'close' });
  if (!whole) res.once('finish', () => req.socket.destroy());
}

/** The parsed POST body, or `ok: false` once `res` has been answered (413, or 400 for a body that is not JSON or nests deeper than MAX_BODY_DEPTH). */
export async function readBody(req: IncomingMessage, res: ServerResponse): Promise<{ ok: true; body: unknown } | { ok: false }> {
  try {
    return { ok: true, body: await readJson(req) };
  } catch (err) {
    if (err instanceof BodyTooLarge) await refuseTooLarge(req, res);
    else if (err instanceof BodyTooDeep) reply(res, 400, { jsonrpc: '2.0', error: { code: -32600, message: `invalid request: JSON nested deeper than ${MAX_BODY_DEPTH} levels` }, id: null });
    else reply(res, 400, { jsonrpc: '2.0', error: { code: -32700, message: 'parse error: body is not JSON' }, id: null });
    return { ok: false };
  }
}

/**
 * The server's `checkContinue` handler: a body announced over the bound is refused before
 * the client sends it; any other goes on as a request (`serve`).
 */
export function checkContinue(serve: (req: IncomingMessage, res: ServerResponse) => void): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    if (Number(req.headers['content-length'] ?? 0) > MAX_BODY_BYTES) {
      reply(res, 413, { jsonrpc: '2.0', error: { code: -32600, message: `request body over ${MAX_BODY_BYTES} bytes` }, id: null }, { connection: 'close' });
      return;
    }
    res.writeContinue();
    serve(req, res);
  };
}
