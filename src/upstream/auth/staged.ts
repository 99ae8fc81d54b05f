/**
 * The provider of one `tool-curator auth` run: the store-backed provider whose writes are
 * held in this process until the authorization is complete. A gateway (or replica) serving
 * the upstream meanwhile keeps its client and tokens, whatever this run registers, drops
 * or gives up on; when the new tokens arrive, they are stored together with the client
 * they were issued to and the step-up scope they satisfied, in one transaction, so a
 * reader sees the old pair or the new one, never a mix. A run that fails stores nothing.
 */
import type { OAuthTokens } from '@modelcontextprotocol/client';
import type { OAuthField } from '../../store/types.js';
import { StoreOAuthProvider } from './provider.js';

export class StagedOAuthProvider extends StoreOAuthProvider {
  /** Values this run wrote (JSON text, or undefined for a dropped value), not yet stored. */
  private readonly staged = new Map<OAuthField, string | undefined>();

  protected override async read<T>(field: OAuthField): Promise<T | undefined> {
    if (!this.staged.has(field)) return super.read<T>(field);
    const text = this.staged.get(field);
    return text === undefined ? undefined : (JSON.parse(text) as T);
  }

  protected override async write(field: OAuthField, value: unknown): Promise<void> {
    this.staged.set(field, value === undefined ? undefined : JSON.stringify(value));
  }

  /** This run's tokens are never the ones a refresh was refused for: dropping them drops the staged ones only. */
  protected override async dropRefusedTokens(): Promise<void> {
    this.staged.set('tokens', undefined);
  }

  /**
   * This run discovers afresh instead of trusting the stored discovery: the resource's
   * metadata may name another authorization server since (SEP-2352), where the SDK then
   * registers anew instead of presenting the old server's client. Staged like the rest.
   */
  discoverAfresh(): void {
    this.staged.set('discovery', undefined);
  }

  /** Stores the tokens with everything this run staged (client, discovery, the step-up scope now granted), at once. */
  override async saveTokens(tokens: OAuthTokens): Promise<void> {
    await super.saveTokens(tokens);
    // The verifier was for this authorization only; nobody else reads it.
    this.staged.delete('code_verifier');
    await this.opts.store.oauth.setAll(this.key, Object.fromEntries(this.staged));
    this.staged.clear();
  }
}
