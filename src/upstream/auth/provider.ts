/**
 * The SDK's `OAuthClientProvider` for one remote upstream, backed by the store. The SDK's
 * `auth()` does the protocol (discovery, registration or client ID metadata documents,
 * PKCE, resource indicators, refresh, step-up); this class only keeps its state.
 *
 * Two modes. `interactive` (the `auth` command): registers, saves the PKCE verifier and
 * hands the authorization URL to the caller, which receives the redirect. `unattended`
 * (`serve`): uses and refreshes stored tokens; anything that needs a person — no tokens,
 * a scope beyond the granted ones, tokens the server rejects — throws
 * NeedsAuthorizationError instead of registering or redirecting.
 */
import { randomBytes } from 'node:crypto';
import type { OAuthClientProvider, OAuthDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { OAuthClientConfig } from '../../config/schema.js';
import type { OAuthField, OAuthStore } from '../../store/oauth.js';
import { NeedsAuthorizationError } from './errors.js';

export const CLIENT_NAME = 'Tool Curator';

export interface StoreOAuthProviderOptions {
  upstream: string;
  /** The upstream's MCP URL: stored state is bound to it. */
  url: string;
  store: OAuthStore;
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

  constructor(private readonly opts: StoreOAuthProviderOptions) {}

  private read<T>(field: OAuthField): T | undefined {
    const text = this.opts.store.get(this.opts.upstream, this.opts.url, field);
    return text === undefined ? undefined : (JSON.parse(text) as T);
  }

  private write(field: OAuthField, value: unknown): void {
    this.opts.store.set(this.opts.upstream, this.opts.url, field, value === undefined ? undefined : JSON.stringify(value));
  }

  get redirectUrl(): string {
    if (this.opts.redirectUrl) return this.opts.redirectUrl;
    // Unattended: never redirects, but a defined URL keeps the SDK on the authorization-code path.
    const stored = this.read<{ redirect_uris?: string[] }>('client_information');
    return stored?.redirect_uris?.[0] ?? `http://127.0.0.1:${this.opts.config.redirect_port}/callback`;
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

  clientInformation(): OAuthClientInformationMixed | undefined {
    const stored = this.read<OAuthClientInformationMixed>('client_information');
    const { client_id, client_secret } = this.opts.config;
    if (client_id) {
      // Pre-registered: the config is the source; the stored copy only adds the issuer the SDK bound it to.
      return stored?.client_id === client_id ? { ...stored, client_secret } : { client_id, ...(client_secret && { client_secret }) };
    }
    if (!stored && this.opts.mode === 'unattended' && !this.read('tokens')) {
      // Registering from `serve` would leave a client nobody completes a consent for.
      throw new NeedsAuthorizationError(this.opts.upstream, this.invalidated ? 'rejected' : 'no_consent');
    }
    return stored;
  }

  saveClientInformation(info: OAuthClientInformationMixed): void {
    // A configured secret is not copied into the store: it stays in the config's ${ENV}.
    const { client_secret: _secret, ...rest } = info as OAuthClientInformationMixed & { client_secret?: string };
    this.write('client_information', this.opts.config.client_id ? rest : info);
  }

  tokens(): OAuthTokens | undefined {
    return this.read<OAuthTokens>('tokens');
  }

  saveTokens(tokens: OAuthTokens): void {
    this.write('tokens', tokens);
    if (this.opts.mode === 'interactive') this.write('pending_scope', undefined);
  }

  redirectToAuthorization(url: URL): void {
    if (this.opts.mode === 'interactive' && this.opts.onAuthorizationUrl) {
      this.opts.onAuthorizationUrl(url);
      return;
    }
    const scope = url.searchParams.get('scope') ?? undefined;
    const tokens = this.tokens();
    // Remembered for the next `tool-curator auth`, which asks for exactly this scope.
    if (tokens && scope) this.write('pending_scope', scope);
    const granted = new Set(tokens?.scope?.split(' '));
    const stepUp = tokens?.scope !== undefined && scope !== undefined && scope.split(' ').some((s) => !granted.has(s));
    const reason = stepUp ? 'step_up' : tokens || this.invalidated ? 'rejected' : 'no_consent';
    throw new NeedsAuthorizationError(this.opts.upstream, reason, scope);
  }

  saveCodeVerifier(verifier: string): void {
    // Unattended mode never completes an authorization, so it must not overwrite the one `auth` may be running.
    if (this.opts.mode === 'interactive') this.write('code_verifier', verifier);
  }

  codeVerifier(): string {
    const verifier = this.read<string>('code_verifier');
    if (!verifier) throw new Error(`no authorization of upstream "${this.opts.upstream}" is in progress; run tool-curator auth ${this.opts.upstream}`);
    return verifier;
  }

  /** The scope a step-up asked for that still waits for consent, if any. */
  pendingScope(): string | undefined {
    return this.read<string>('pending_scope');
  }

  /** Remembers `scope` (the granted scopes and those a tool asked for) for the next `tool-curator auth`, which asks for exactly this. */
  requestScope(scope: string): void {
    this.write('pending_scope', scope);
  }

  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.write('discovery', state);
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.read<OAuthDiscoveryState>('discovery');
  }

  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): void {
    this.invalidated = scope;
    if (scope === 'all' || scope === 'client') this.write('client_information', undefined);
    if (scope === 'all' || scope === 'tokens') this.write('tokens', undefined);
    if (scope === 'all' || scope === 'verifier') this.write('code_verifier', undefined);
    if (scope === 'all' || scope === 'discovery') this.write('discovery', undefined);
  }
}
