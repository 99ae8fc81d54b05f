/**
 * The one logger of the gateway. It writes to stderr (fd 2) only: in stdio mode stdout
 * is the MCP protocol channel, and one stray byte there breaks the host's session.
 * Level from TOOL_CURATOR_LOG (trace|debug|info|warn|error|silent), default `info`.
 */
import { pino, type Logger } from 'pino';

export type { Logger };

const requested = process.env.TOOL_CURATOR_LOG ?? 'info';
const valid = requested === 'silent' || requested in pino.levels.values;

/**
 * Keys that may hold an upstream's OAuth tokens or client secret, or a bearer header:
 * censored wherever they appear in a log object, as a second line of defence — no
 * module logs them on purpose.
 */
const SECRET_KEYS = ['access_token', 'refresh_token', 'id_token', 'client_secret', 'tokens', 'code_verifier', 'authorization', 'Authorization', 'private_key'];
const redact = { paths: SECRET_KEYS.flatMap((k) => [k, `*.${k}`, `*.*.${k}`]), censor: '[redacted]' };

export const log: Logger = pino({ level: valid ? requested : 'info', base: undefined, redact }, pino.destination({ fd: 2, sync: true }));

if (!valid) log.warn(`TOOL_CURATOR_LOG=${requested} is not a level (trace, debug, info, warn, error, fatal, silent); using info`);
