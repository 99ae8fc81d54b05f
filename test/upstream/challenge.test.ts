/** How a failure after an upstream's 401 is reported (src/upstream/auth/challenge.ts). */
import { IssuerMismatchError } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { authFailure, type ChallengeWatch } from '../../src/upstream/auth/challenge.js';

const refused: ChallengeWatch = { fetch, last: () => ({ status: 401, error: 'invalid_token' }) };

describe('authFailure', () => {
  it("names the SDK's refusal of the authorization server (RFC 8414 §3.3 issuer) beside the challenge", () => {
    const err = authFailure('tracker', new IssuerMismatchError('metadata', 'http://localhost:1/', 'http://localhost:1/oauth'), refused, true);
    expect(err?.message).toBe(
      'upstream "tracker" refused authorization (HTTP 401, error="invalid_token"); the SDK stopped the authorization: ' +
        'Issuer mismatch in authorization server metadata (RFC 8414 §3.3): expected "http://localhost:1/", received "http://localhost:1/oauth"; ' +
        'check its auth config, or run tool-curator auth tracker',
    );
  });

  it('reports any other failure after a 401 by the challenge alone', () => {
    expect(authFailure('tracker', new Error('fetch failed'), refused, true)?.message).toBe(
      'upstream "tracker" refused authorization (HTTP 401, error="invalid_token"); check its auth config, or run tool-curator auth tracker',
    );
  });
});
