/**
 * The OAuth credentials the store holds for remote upstreams — access, refresh and ID
 * tokens, a dynamically registered client's secret and registration token — for the
 * gateway's own authorization and each per-user account, kept in the held set as they
 * rotate: read at start, re-read for an (upstream, subject) on the store's `oauth` event
 * (a refresh by any replica, the `auth` command storing new tokens, a logout), all re-read
 * on `resync`. The values a rotation replaces stay held one generation longer: an upstream
 * may still echo the token of a request it logged before the refresh.
 */
import type { Store } from '../../store/types.js';
import type { HeldSecrets, HeldValue } from './held.js';

/** A remote upstream with OAuth (`auth:` in the config) and the URL its state is bound to. */
export interface OAuthUpstream {
  upstream: string;
  url: string;
}

/** Per-user accounts read at start per upstream; later ones join on their first `oauth` event. */
const MAX_SUBJECTS = 10_000;

const TOKEN_FIELDS: [string, string][] = [
  ['access_token', 'OAuth access token'],
  ['refresh_token', 'OAuth refresh token'],
  ['id_token', 'OAuth ID token'],
];
const CLIENT_FIELDS: [string, string][] = [
  ['client_secret', 'OAuth client secret'],
  ['registration_access_token', 'OAuth registration access token'],
];

function parse(text: string | undefined): Record<string, unknown> {
  if (text === undefined) return {};
  try {
    const v = JSON.parse(text) as unknown;
    return v && typeof v === 'object' ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

function valuesOf(object: Record<string, unknown>, fields: [string, string][], upstream: string): HeldValue[] {
  return fields.flatMap(([field, what]) => (typeof object[field] === 'string' && object[field] ? [{ value: object[field], label: `${what} of upstream ${upstream}` }] : []));
}

export class OAuthSecrets {
  private readonly urls: Map<string, string>;
  /** The re-read in progress per (upstream, subject): reads of one key run in order, so an older state never lands last. */
  private readonly chains = new Map<string, Promise<void>>();
  private unsubscribe: (() => void)[] = [];

  constructor(
    private readonly held: HeldSecrets,
    private readonly store: Pick<Store, 'oauth' | 'events'>,
    upstreams: OAuthUpstream[],
  ) {
    this.urls = new Map(upstreams.map((u) => [u.upstream, u.url]));
  }

  /** Reads every upstream's stored credentials and follows the store's events; resolves when the first read is done. */
  async start(): Promise<void> {
    this.unsubscribe = [
      // A failed re-read (the store down or closed) keeps the values held so far.
      this.store.events.on('oauth', ({ upstream, subject }) => void this.reread(upstream, subject).catch(() => undefined)),
      this.store.events.on('resync', () => void this.readAll().catch(() => undefined)),
    ];
    await this.readAll();
  }

  stop(): void {
    for (const off of this.unsubscribe) off();
    this.unsubscribe = [];
  }

  private async readAll(): Promise<void> {
    await Promise.all(
      [...this.urls.keys()].map(async (upstream) => {
        const subjects = await this.store.oauth.consented(upstream, MAX_SUBJECTS);
        const all = new Set(['', ...subjects.map((s) => s.subject)]);
        await Promise.all([...all].map((subject) => this.reread(upstream, subject)));
      }),
    );
  }

  /**
   * Re-reads (upstream, subject), in order with earlier re-reads of it; the held set waits
   * for it (HeldSecrets.track) so nothing is sent before a rotated token is known.
   */
  reread(upstream: string, subject: string): Promise<void> {
    const url = this.urls.get(upstream);
    if (url === undefined) return Promise.resolve();
    const key = `${upstream}\0${subject}`;
    const read = (this.chains.get(key) ?? Promise.resolve()).then(async () => {
      const at = { upstream, subject, url };
      const [tokens, client] = await Promise.all([this.store.oauth.get(at, 'tokens'), this.store.oauth.get(at, 'client_information')]);
      this.replace(key, [...valuesOf(parse(tokens), TOKEN_FIELDS, upstream), ...valuesOf(parse(client), CLIENT_FIELDS, upstream)]);
    });
    const settled = read.catch(() => undefined);
    this.chains.set(key, settled);
    void settled.then(() => this.chains.get(key) === settled && this.chains.delete(key));
    this.held.track(read);
    return read;
  }

  /**
   * Takes the tokens a provider is about to use (upstream/auth/provider.ts `onTokens`), so
   * they are held before any request carries them even when their store event is late.
   */
  observe(upstream: string, subject: string, tokens: object | undefined): void {
    if (!this.urls.has(upstream) || tokens === undefined) return;
    const key = `${upstream}\0${subject}`;
    const fresh = valuesOf(tokens as Record<string, unknown>, TOKEN_FIELDS, upstream);
    const known = new Set(this.held.get(`oauth\0${key}`).map((v) => v.value));
    if (fresh.every((v) => known.has(v.value))) return;
    const clients = this.held.get(`oauth\0${key}`).filter((v) => CLIENT_FIELDS.some(([, what]) => v.label.startsWith(what)));
    this.replace(key, [...fresh, ...clients]);
  }

  private replace(key: string, values: HeldValue[]): void {
    const current = this.held.get(`oauth\0${key}`);
    const kept = new Set(values.map((v) => v.value));
    const retired = current.filter((v) => !kept.has(v.value));
    if (retired.length > 0) this.held.set(`oauth-previous\0${key}`, retired);
    this.held.set(`oauth\0${key}`, values);
  }
}
