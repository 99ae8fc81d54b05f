/**
 * Errors the relay answers the host with: a JSON-RPC code, message and data, sent as
 * they are. (An upstream's own ProtocolError passes on unchanged.)
 */
import { ProtocolError } from '@modelcontextprotocol/server';

export class RelayError extends ProtocolError {
  constructor(code: number, message: string, data?: unknown) {
    super(code, message, data);
    this.name = 'RelayError';
  }
}
