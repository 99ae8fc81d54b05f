/**
 * Errors the relay answers the host with. The SDK's McpError puts "MCP error N:" in its
 * message, and the host's SDK adds it again on receipt; a RelayError carries the same
 * JSON-RPC code with the message as written, so the host reads it once.
 */
import { ProtocolError } from '@modelcontextprotocol/client';

export class RelayError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = 'RelayError';
  }

  /** An upstream's McpError, passed on with its code, message (unprefixed) and data. */
  static from(err: ProtocolError): RelayError {
    return new RelayError(err.code, err.message.replace(/^MCP error -?\d+: /, ''), err.data);
  }
}
