/**
 * The SDK's `OAuthClientProvider` for one remote upstream, backed by the store. The SDK's
 * `auth()` does the protocol (discovery, registration or client ID metadata documents,
 * PKCE, resource indicators, refresh, step-up); this class keeps its state, per
 * (upstream, subject): subject `''` is the gateway's own authorization.
 *
 * Two modes. `interactive` (the `auth` command): registers, saves the PKCE verifier and
 * hands the authorization URL to the caller, which receives the redirect. `unattended`
 * (`serve`): uses and refreshes stored tokens; anything that needs a person — no tokens,
 * a scope beyond the granted ones, tokens the server rejects — throws
 * NeedsAuthorizationError instead of registering or redirecting.
 *
 * Refresh tokens may be single-use, and every call of every replica may find the access
 * token expired at once. So a refresh is one at a time per (upstream, subject) across the
 * fleet (refresh.ts runs `auth()` under the store's lock; whoever waited re-reads the
 * stored tokens instead of refreshing), and a refused refresh clears the stored tokens
 * only if they are still the refused ones: tokens another refresh stored meanwhile stay,
 * and the SDK's retry after `invalid_grant` uses them.
 */
import { randomBytes } from 'node:crypto';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthClientProvider, OAuthDiscoveryState, OAuthTokens } from '@modelcontextprotocol/client';
import type { OAuthClientConfig } from '../../config/schema.js';
import type { OAuthField, OAuthKey, Store } from '../../store/types.js';
import { NeedsAuthorizationError } from './errors.js';

export const CLIENT_NAME = 'Tool Curator';

export interface StoreOAuthProviderOptions {
  upstream: string;
  /** Whose authorization: `''` (default) is the gateway's own; a user id, a per-user one. */
  subject?: string;
  /** The upstream's MCP URL: stored state is bound to it. */
  url: string;
  store: Pick<Store, 'oauth' | 'lock'>;
  config: OAuthClientConfig;
  mode: 'interactive' | 'unattended';
  /** Loopback redirect URL of the running `auth` command (interactive mode). */
  redirectUrl?: string;
  /** Receives the authorization URL to show the user (interactive mode). */
  onAuthorizationUrl?: (url: URL) => void;
}

export class StoreOAuthProvider implements OAuthClientProvider {
  /** The `state` of the authorization in progress, checked against the redirect. */
  lastState: string | undefined;
  /** What `invalidateCredentials` last dropped, so a later failure can say why. */
  private invalidated: string | undefined;
  /** The client information as last read or saved: `redirectUrl` is read synchronously. */
  private client: OAuthClientInformationMixed | undefined;
  /** Refresh tokens the authorization server refused (refresh.ts sees the token requests). */
  private readonly refused = new Set<string>();
  readonly key: OAuthKey;
  /** The granted and step-up scopes as last read or written here, for status lines that cannot wait for the store (stepUp.ts moreScope). */
  private scopes: { granted?: string; pending?: string } = {};

  constructor(readonly opts: StoreOAuthProviderOptions) {
    this.key = { upstream: opts.upstream, subject: opts.subject ?? '', url: opts.url };
  }

  /** The name of the fleet-wide lock a refresh of these tokens holds. */
  get lockName(): string {
    return `oauth:${this.opts.upstream}:${this.key.subject}`;
  }

  protected async read<T>(field: OAuthField): Promise<T | undefined> {
    const text = await this.opts.store.oauth.get(this.key, field);
    return text === undefined ? undefined : (JSON.parse(text) as T);
  }

  protected write(field: OAuthField, value: unknown): Promise<void> {
    return this.opts.store.oauth.set(this.key, field, value === undefined ? undefined : JSON.stringify(value));
  }

  get redirectUrl(): string {
    if (this.opts.redirectUrl) return this.opts.redirectUrl;
    // Unattended: never redirects, but a defined URL keeps the SDK on the authorization-code path.
    const registered = this.client as { redirect_uris?: string[] } | undefined;
    return registered?.redirect_uris?.[0] ?? `http://127.0.0.1:${this.opts.config.redirect_port}/callback`;
  }

  get clientMetadataUrl(): string | undefined {
    return this.opts.config.client_metadata_url;
  }

  get clientMetadata(): OAuthClientMetadata {
    const { scopes, client_secret } = this.opts.config;
    return {
      client_name: CLIENT_NAME,
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      // A gateway on a user's machine is a public client unless it was given a secret.
      token_endpoint_auth_method: client_secret ? 'client_secret_basic' : 'none',
      ...(scopes?.length && { scope: scopes.join(' ') }),
    };
  }

  state(): string {
    this.lastState = randomBytes(16).toString('hex');
    return this.lastState;
  }

  async clientInformation(): Promise<OAuthClientInformationMixed | undefined> {
    const stored = await this.read<OAuthClientInformationMixed>('client_information');
    this.client = stored;
    const { client_id, client_secret } = this.opts.config;
    if (client_id) {
      // Pre-registered: the config is the source; the stored copy only adds the issuer the SDK bound it to.
      return stored?.client_id === client_id ? { ...stored, client_secret } : { client_id, ...(client_secret && { client_secret }) };
    }
    if (!stored && this.opts.mode === 'unattended' && !(await this.read('tokens'))) {
      // Registering from `serve` would leave a client nobody completes a consent for.
      throw new NeedsAuthorizationError(this.opts.upstream, this.invalidated ? 'rejected' : 'no_consent');
    }
    return stored;
  }

  async saveClientInformation(info: OAuthClientInformationMixed): Promise<void> {
    // A configured secret is not copied into the store: it stays in the config's ${ENV}.
    const { client_secret: _secret, ...rest } = info as OAuthClientInformationMixed & { client_secret?: string };
    this.client = this.opts.config.client_id ? rest : info;
    await this.write('client_information', this.client);
  }

  async tokens(): Promise<OAuthTokens | undefined> {
    const tokens = await this.read<OAuthTokens>('tokens');
    this.scopes.granted = tokens?.scope;
    return tokens;
  }

  async saveTokens(tokens: OAuthTokens): Promise<void> {
    await this.write('tokens', tokens);
    this.scopes.granted = tokens.scope;
    if (this.opts.mode === 'interactive') await this.requestScope(undefined);
  }

  async redirectToAuthorization(url: URL): Promise<void> {
    if (this.opts.mode === 'interactive' && this.opts.onAuthorizationUrl) {
      this.opts.onAuthorizationUrl(url);
      return;
    }
    const scope = url.searchParams.get('scope') ?? undefined;
    const tokens = await this.tokens();
    // Remembered for the next `tool-curator auth`, which asks for exactly this scope.
    if (tokens && scope) await this.requestScope(scope);
    const granted = new Set(tokens?.scope?.split(' '));
    const stepUp = tokens?.scope !== undefined && scope !== undefined && scope.split(' ').some((s) => !granted.has(s));
    const reason = stepUp ? 'step_up' : tokens || this.invalidated ? 'rejected' : 'no_consent';
    throw new NeedsAuthorizationError(this.opts.upstream, reason, scope);
  }

  async saveCodeVerifier(verifier: string): Promise<void> {
    // Unattended mode never completes an authorization, so it must not overwrite the one `auth` may be running.
    if (this.opts.mode === 'interactive') await this.write('code_verifier', verifier);
  }

  async codeVerifier(): Promise<string> {
    const verifier = await this.read<string>('code_verifier');
    if (!verifier) throw new Error(`no authorization of upstream "${this.opts.upstream}" is in progress; run tool-curator auth ${this.opts.upstream}`);
    return verifier;
  }

  /**
   * Drops a dynamic registration made for another redirect URI than this provider's: of
   * no use to an authorization that redirects here, so the SDK registers again.
   */
  async forgetOtherRegistration(): Promise<void> {
    if (this.opts.config.client_id) return;
    const registered = await this.read<{ redirect_uris?: string[] }>('client_information');
    if (registered?.redirect_uris && !registered.redirect_uris.includes(this.redirectUrl)) await this.write('client_information', undefined);
  }

  /** The redirect URI of the stored dynamic registration, if any. */
  async registeredRedirect(): Promise<URL | undefined> {
    const uri = (await this.read<{ redirect_uris?: string[] }>('client_information'))?.redirect_uris?.[0];
    return uri === undefined || !URL.canParse(uri) ? undefined : new URL(uri);
  }

  /** The scope a step-up asked for that still waits for consent, if any. */
  async pendingScope(): Promise<string | undefined> {
    this.scopes.pending = await this.read<string>('pending_scope');
    return this.scopes.pending;
  }

  /** Remembers `scope` (the granted scopes and those a tool asked for) for the next `tool-curator auth`, which asks for exactly this. */
  async requestScope(scope: string | undefined): Promise<void> {
    await this.write('pending_scope', scope);
    this.scopes.pending = scope;
  }

  /** The granted and step-up scopes as last read or written by this provider. */
  knownScopes(): { granted?: string; pending?: string } {
    return { ...this.scopes };
  }

  async saveDiscoveryState(state: OAuthDiscoveryState): Promise<void> {
    await this.write('discovery', state);
  }

  discoveryState(): Promise<OAuthDiscoveryState | undefined> {
    return this.read<OAuthDiscoveryState>('discovery');
  }

  /** Notes a refresh token the authorization server refused (an answer 400/401 to its refresh request). */
  refusedRefresh(refreshToken: string): void {
    this.refused.add(refreshToken);
  }

  async invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): Promise<void> {
    this.invalidated = scope;
    if (scope === 'all' || scope === 'client') await this.write('client_information', undefined);
    if (scope === 'all') await this.write('tokens', undefined);
    if (scope === 'tokens') await this.dropRefusedTokens();
    if (scope === 'all' || scope === 'verifier') await this.write('code_verifier', undefined);
    if (scope === 'all' || scope === 'discovery') await this.write('discovery', undefined);
  }

  /**
   * After `invalid_grant`: the stored tokens go only if their refresh token is one the
   * server refused (compare-and-clear). Tokens stored since by another refresh, of this
   * process or another replica, stay, and the SDK's retry refreshes with them.
   */
  protected async dropRefusedTokens(): Promise<void> {
    const text = await this.opts.store.oauth.get(this.key, 'tokens');
    if (text === undefined) return;
    const stored = JSON.parse(text) as OAuthTokens;
    if (stored.refresh_token === undefined || this.refused.has(stored.refresh_token)) {
      await this.opts.store.oauth.setIf(this.key, 'tokens', text, undefined);
    }
  }
}
