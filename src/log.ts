/**
 * The one logger of the gateway. It writes to stderr (fd 2) only: in stdio mode stdout
 * is the MCP protocol channel, and one stray byte there breaks the host's session.
 * Level from TOOL_CURATOR_LOG (trace|debug|info|warn|error|silent), default `info`.
 */
import { pino, type Logger } from 'pino';

export type { Logger };

export const log: Logger = pino(
  { level: process.env.TOOL_CURATOR_LOG ?? 'info', base: undefined },
  pino.destination({ fd: 2, sync: true }),
);
