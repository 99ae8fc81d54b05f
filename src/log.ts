/**
 * The one logger of the gateway, `log`, a live binding every module imports.
 *
 * - As a library (`import 'tool-curator'`) it is silent: an application's stderr is its
 *   own. `setLogger(pinoLogger)` hands the library a logger of the application's.
 * - The CLI calls `configureLogging()` first: stderr (fd 2) only, since in stdio mode
 *   stdout is the MCP protocol channel and one stray byte there breaks the host's session.
 *   Human-readable lines (pino-pretty) when stderr is a terminal, one JSON object per line
 *   otherwise; `--log-format json|pretty` or TOOL_CURATOR_LOG_FORMAT decides instead.
 *   Level from TOOL_CURATOR_LOG (trace|debug|info|warn|error|fatal|silent), default `info`.
 *
 * Warnings logged during start-up are also kept, so the CLI can repeat them in one block
 * once the gateway is ready (`startupWarnings`): a persona pattern typo logged between
 * dozens of info lines is easy to miss.
 */
import { createRequire } from 'node:module';
import { pino, type DestinationStream, type Logger } from 'pino';

export type { Logger };

export const LOG_FORMATS = ['json', 'pretty'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

/**
 * Keys that may hold an upstream's OAuth tokens or client secret, or a bearer header:
 * censored wherever they appear in a log object, as a second line of defence — no
 * module logs them on purpose.
 */
const SECRET_KEYS = ['access_token', 'refresh_token', 'id_token', 'client_secret', 'tokens', 'code_verifier', 'authorization', 'Authorization', 'private_key'];
const redact = { paths: SECRET_KEYS.flatMap((k) => [k, `*.${k}`, `*.*.${k}`]), censor: '[redacted]' };

/** pino's level number of `warn`. */
const WARN = 40;

/** Messages of the warnings logged since configureLogging(), until startupWarnings() takes them. */
let collected: string[] | undefined;

/** The gateway's logger; silent until configureLogging() or setLogger() replaces it. */
export let log: Logger = pino({ level: 'silent' });

/**
 * Gives the library a logger: every module logs through it from now on.
 *
 * ### Usage
 * ```ts
 * import { pino } from 'pino';
 * import { setLogger } from 'tool-curator';
 * setLogger(pino({ level: 'warn' }));
 * ```
 */
export function setLogger(logger: Logger): void {
  log = logger;
}

export interface LoggingOptions {
  /** Default TOOL_CURATOR_LOG, else `info`. */
  level?: string;
  /** Default TOOL_CURATOR_LOG_FORMAT, else `pretty` when stderr is a terminal and `json` otherwise. */
  format?: LogFormat;
}

/**
 * The CLI's logger on stderr (see the module comment), installed as `log` and returned.
 * @throws for a format other than `json` or `pretty` (from the environment too).
 */
export function configureLogging({ level, format }: LoggingOptions = {}): Logger {
  const requested = level ?? process.env.TOOL_CURATOR_LOG ?? 'info';
  const valid = requested === 'silent' || requested in pino.levels.values;
  const chosen = format ?? process.env.TOOL_CURATOR_LOG_FORMAT ?? (process.stderr.isTTY ? 'pretty' : 'json');
  if (!(LOG_FORMATS as readonly string[]).includes(chosen)) throw new Error(`TOOL_CURATOR_LOG_FORMAT=${chosen} is not a log format; use json or pretty`);
  collected = [];
  log = pino(
    {
      level: valid ? requested : 'info',
      base: undefined,
      redact,
      hooks: {
        logMethod(args, method, levelNumber) {
          if (levelNumber >= WARN && collected) collected.push(messageOf(args));
          method.apply(this, args);
        },
      },
    },
    chosen === 'pretty' ? prettyStderr() : pino.destination({ fd: 2, sync: true }),
  );
  if (!valid) log.warn(`TOOL_CURATOR_LOG=${requested} is not a level (trace, debug, info, warn, error, fatal, silent); using info`);
  return log;
}

/**
 * The warnings logged since configureLogging(), and no more collecting: called once, at
 * the end of start-up.
 */
export function startupWarnings(): string[] {
  const warnings = collected ?? [];
  collected = undefined;
  return warnings;
}

/** The message of a pino call: `log.warn(obj, msg)` or `log.warn(msg)`. */
function messageOf(args: unknown[]): string {
  const msg = args.find((a) => typeof a === 'string');
  return typeof msg === 'string' ? msg : JSON.stringify(args[0]);
}

/**
 * pino-pretty writing to stderr synchronously (log lines and the process's own writes
 * keep their order, and nothing is lost at exit), loaded only when chosen.
 */
function prettyStderr(): DestinationStream {
  const pretty = createRequire(import.meta.url)('pino-pretty') as typeof import('pino-pretty').build;
  return pretty({
    destination: 2,
    sync: true,
    colorize: process.stderr.isTTY === true,
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'pid,hostname,warnings',
    singleLine: true,
  });
}
