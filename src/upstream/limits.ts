/**
 * The size bound on what an upstream sends back: a message over the limit is replaced by
 * an error answer to the request it answered (lineReader.ts for stdio, boundedFetch.ts
 * for HTTP), and a tools/call result over `relay.max_result_bytes` becomes an error
 * result naming the tool and the size (pool.ts). The connection stays up either way.
 */
import { ProtocolError, ProtocolErrorCode, type JSONRPCErrorResponse, type RequestId } from '@modelcontextprotocol/client';

/** `data.reason` of the error that stands in for a message over the limit. */
const TOO_LARGE = 'message_too_large';

export interface TooLarge {
  /** Size of what the upstream sent (at least this many bytes, when it was cut off). */
  bytes: number;
  limit: number;
}

/** The error answer to request `id` that stands in for a message of `bytes` bytes (an upstream's answer, or its request). */
export function tooLargeResponse(id: RequestId, bytes: number, limit: number): JSONRPCErrorResponse {
  return {
    jsonrpc: '2.0',
    id,
    error: { code: ProtocolErrorCode.InternalError, message: `a message of ${bytes} bytes, over the gateway's limit of ${limit}`, data: { reason: TOO_LARGE, bytes, limit } },
  };
}

/** A remote upstream's answer over the limit (boundedFetch.ts): its request fails with this, unread. */
export class MessageTooLargeError extends Error implements TooLarge {
  constructor(
    readonly bytes: number,
    readonly limit: number,
  ) {
    super(`a message of ${bytes} bytes, over the gateway's limit of ${limit}`);
    this.name = 'MessageTooLargeError';
  }
}

/** The sizes of an error that stands in for an answer over the limit; undefined for any other error. */
export function tooLarge(err: unknown): TooLarge | undefined {
  if (err instanceof MessageTooLargeError) return { bytes: err.bytes, limit: err.limit };
  if (!(err instanceof ProtocolError)) return undefined;
  const data = err.data as { reason?: unknown; bytes?: unknown; limit?: unknown } | undefined;
  if (data?.reason !== TOO_LARGE || typeof data.bytes !== 'number' || typeof data.limit !== 'number') return undefined;
  return { bytes: data.bytes, limit: data.limit };
}

/** What the host is told about a tools/call result over the limit. */
export function tooLargeMessage(server: string, tool: string, { bytes, limit }: TooLarge): string {
  return `upstream "${server}" answered ${tool} with a result of ${bytes} bytes, over the gateway's limit of ${limit} bytes (relay.max_result_bytes); ask for less (narrower arguments, fewer items)`;
}
