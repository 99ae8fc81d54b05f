/**
 * The gateway's own pagination of relayed lists: an opaque cursor (base64url JSON) that
 * names the list, the relayed catalog's version and the offset of the next page. A
 * cursor from before a list change is refused, so a host never gets a page of one list
 * glued to a page of another.
 */
import { ProtocolErrorCode } from '@modelcontextprotocol/server';
import { RelayError } from './errors.js';

interface CursorState {
  /** Which list: resources, templates or prompts. */
  k: string;
  /** Relayed catalog version. */
  v: string;
  /** Offset of the next page. */
  o: number;
}

export function encodeCursor(state: CursorState): string {
  return Buffer.from(JSON.stringify(state)).toString('base64url');
}

function decodeCursor(cursor: string, kind: string, version: string): number {
  let state: Partial<CursorState> | undefined;
  try {
    state = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as Partial<CursorState>;
  } catch {
    state = undefined;
  }
  if (!state || state.k !== kind || !Number.isInteger(state.o) || state.o! < 0) {
    throw new RelayError(ProtocolErrorCode.InvalidParams, `invalid cursor for ${kind}; list again without a cursor`);
  }
  if (state.v !== version) throw new RelayError(ProtocolErrorCode.InvalidParams, `the ${kind} list changed since this cursor was issued; list again without a cursor`);
  return state.o!;
}

/**
 * One page of `items`.
 *
 * ### Usage
 * ```ts
 * const first = paginate(['a', 'b', 'c'], 2, 'prompts', 'v7');          // { items: ['a', 'b'], nextCursor: '…' }
 * paginate(['a', 'b', 'c'], 2, 'prompts', 'v7', first.nextCursor);       // { items: ['c'] }
 * ```
 * @param pageSize items per page (config `relay.page_size`).
 * @throws RelayError InvalidParams for a cursor that is malformed, of another list, or of an older version.
 */
export function paginate<T>(items: T[], pageSize: number, kind: string, version: string, cursor?: string): { items: T[]; nextCursor?: string } {
  const start = cursor === undefined ? 0 : decodeCursor(cursor, kind, version);
  const end = start + pageSize;
  const page = items.slice(start, end);
  return end < items.length ? { items: page, nextCursor: encodeCursor({ k: kind, v: version, o: end }) } : { items: page };
}
