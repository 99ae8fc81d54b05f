/**
 * Secrets never reach a host (docs/SAFETY.md): the gateway knows every credential it holds
 * (held.ts: from the configuration, config.ts, and from the store's OAuth state, store.ts,
 * kept current as tokens rotate) and removes them, in every spelling an upstream may echo
 * (forms.ts), from everything sent to a host (transport.ts) and from the audit
 * (guards/audit.ts), with a marker saying what was removed (redactor.ts). Well-known
 * secret formats (patterns.ts) are redacted or refused on top, by `guards.secrets` (guard.ts).
 */
import type { GatewayConfig } from '../../config/schema.js';
import { log } from '../../log.js';
import type { Store } from '../../store/types.js';
import { configSecrets } from './config.js';
import { HeldSecrets } from './held.js';
import { SecretRedactor } from './redactor.js';
import { OAuthSecrets } from './store.js';

export { secretsGuard } from './guard.js';
export { HeldSecrets, type HeldValue } from './held.js';
export { SecretRedactor, type PatternMode } from './redactor.js';
export { redactingTransport } from './transport.js';
export { OAuthSecrets } from './store.js';

type SecretsConfig = Parameters<typeof configSecrets>[0] & Pick<GatewayConfig, 'guards'>;

/** The gateway's secrets: what it holds, the redactor over them, and the OAuth state followed in the store. */
export interface GatewaySecrets {
  held: HeldSecrets;
  redactor: SecretRedactor;
  /** Absent without a store or without OAuth upstreams. */
  oauth?: OAuthSecrets;
  /** Learns the tokens an upstream's OAuth provider hands out, before the request carrying them is sent (upstream/auth TokensSeen). */
  tokensSeen(upstream: string, subject: string, tokens: object | undefined): void;
  stop(): void;
}

/**
 * Builds the held set from `config` and, with a store, from its OAuth state (followed until
 * `stop`). Logs once, by label, each held value too short to be searched for. Every key
 * holding a credential takes effect on a restart only (gateway/liveConfig.ts), so a
 * running gateway's configured credentials are those it started with. A store that cannot
 * be read now is logged: its events re-read it, and the tokens a provider uses are learnt
 * as it uses them (`tokensSeen`).
 *
 * ### Usage
 * ```ts
 * const secrets = await startSecrets(config, store);
 * await server.connect(redactingTransport(transport, secrets.redactor));
 * ```
 */
export async function startSecrets(config: SecretsConfig, store?: Pick<Store, 'oauth' | 'events'>): Promise<GatewaySecrets> {
  const held = new HeldSecrets();
  held.set('config', configSecrets(config));
  const short = held.tooShort();
  if (short.length > 0) log.warn({ secrets: short }, `these credentials are shorter than 8 characters and are not removed from answers by value: ${short.join(', ')}`);
  const remote = Object.entries(config.upstreams).flatMap(([upstream, u]) => ('url' in u && u.auth ? [{ upstream, url: u.url }] : []));
  const oauth = store && remote.length > 0 ? new OAuthSecrets(held, store, remote) : undefined;
  await oauth?.start().catch((err: Error) => log.error({ err: err.message }, 'the OAuth tokens in the store could not be read for redaction; they are read again on its next event'));
  return {
    held,
    redactor: new SecretRedactor(held, config.guards.secrets),
    ...(oauth && { oauth }),
    tokensSeen: (upstream, subject, tokens) => oauth?.observe(upstream, subject, tokens),
    stop: () => oauth?.stop(),
  };
}
