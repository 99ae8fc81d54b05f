/**
 * `tool-curator serve`: the gateway for a host, over stdio (one session, this process's
 * persona) or Streamable HTTP (a session per bearer token). Once start-up is over, the
 * warnings it logged are repeated in one block so a typo in a persona pattern is not lost
 * among the info lines.
 */
import { Gateway } from '../gateway/gateway.js';
import { checkTokens, serveHttp } from '../host/http.js';
import { installLifecycle } from './lifecycle.js';
import { reloadAndLog, watchConfig } from '../gateway/liveConfig.js';
import { Session } from '../host/session.js';
import { guardedStdioTransport } from '../host/stdio.js';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { log, startupWarnings } from '../log.js';
import type { FlagsOf } from './commands.js';
import { collectWhenIdle } from './idleCollect.js';
import { checkSession, config, identity, strictError } from './session.js';

/** Logs the start-up warnings again as one block: "3 warnings at start-up: 1. … 2. …". */
export function summarizeWarnings(): void {
  const warnings = startupWarnings();
  if (warnings.length === 0) return;
  const list = warnings.map((w, i) => `  ${i + 1}. ${w}`).join('\n');
  log.warn({ warnings }, `${warnings.length} warning${warnings.length === 1 ? '' : 's'} at start-up (tool-curator doctor checks the config):\n${list}`);
}

export async function serve(flags: FlagsOf<'serve'>): Promise<void> {
  const loaded = config(flags);
  if (flags.exposure) {
    loaded.config.exposure.mode = flags.exposure;
    loaded.overrides = { exposure: flags.exposure };
  }
  const port = flags.http;
  const { persona, userId, borrowed } = identity(flags, loaded);
  if (port === undefined) checkSession(loaded, persona, userId, borrowed);
  else checkTokens(loaded);
  // Signal handlers first: Gateway.create spawns the upstreams, and a SIGTERM that arrived
  // before the handlers would end the gateway at once, leaving its children behind.
  let gateway: Gateway | undefined;
  const { shutdown } = installLifecycle({
    close: async () => gateway?.close(),
    reload: async () => {
      if (gateway) await reloadAndLog(gateway, 'SIGHUP');
    },
  });
  // The host gets its initialize answer at once; tools/list and find_tools wait for the catalog and index.
  gateway = await Gateway.create(loaded);
  if (flags.strict) {
    await gateway.catalogComplete;
    const refused = strictError(loaded, gateway.patternIssues);
    if (refused) {
      await gateway.close().catch(() => undefined);
      throw refused;
    }
  }
  void gateway.ready.then(summarizeWarnings, () => undefined);
  // Edits to the config files apply without a restart where they can (liveConfig.ts).
  watchConfig(gateway);
  collectWhenIdle();
  if (port !== undefined) {
    await serveHttp(gateway, port);
    return;
  }
  // The opening exchange decides the connection's era (SDK serveStdio): `initialize` pins a
  // 2025 Session, a 2026 `_meta` envelope a 2026 one (static exposure, input_required,
  // list changes on subscriptions/listen). The factory also builds the instance that
  // answers a server/discover probe, discarded if the host then falls back to initialize.
  const gw = gateway;
  const transport = guardedStdioTransport();
  serveStdio(({ era }) => new Session(gw, { persona, userId, transport: 'stdio', era }).served(), {
    legacy: 'serve',
    transport,
    onerror: (err) => log.debug({ err: err.message }, 'stdio message refused or failed'),
  });
  const onclose = transport.onclose;
  transport.onclose = () => {
    onclose?.();
    void shutdown('stdio transport closed');
  };
  process.stdin.on('end', () => void shutdown('host closed stdin'));
  log.info({ persona: persona ?? '(open)', exposure: loaded.config.exposure.mode }, 'serving MCP on stdio');
}
