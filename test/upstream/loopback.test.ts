/** The `auth` command's loopback redirect listener: code, state check, refusals, timeout. */
import { afterEach, describe, expect, it } from 'vitest';
import { startLoopback, type Loopback } from '../../src/upstream/auth/loopback.js';

describe('loopback redirect listener', () => {
  let loop: Loopback;
  afterEach(async () => loop?.close());

  it('hands over the code of a redirect with the expected state, even one that arrived first', async () => {
    loop = await startLoopback(0);
    expect(loop.redirectUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    const res = await fetch(`${loop.redirectUrl}?code=c-123&state=s1`);
    expect(res.status).toBe(200);
    await expect(loop.next('s1', 5000)).resolves.toEqual({ code: 'c-123' });
  });

  it("hands over the redirect's iss (RFC 9207) with the code, for the SDK to check", async () => {
    loop = await startLoopback(0);
    await fetch(`${loop.redirectUrl}?code=c-9&state=s2&iss=${encodeURIComponent('https://as.example.com')}`);
    await expect(loop.next('s2', 5000)).resolves.toEqual({ code: 'c-9', iss: 'https://as.example.com' });
  });

  it('refuses a state that does not match, and an error redirect with its description', async () => {
    loop = await startLoopback(0);
    const mismatch = expect(loop.next('expected', 5000)).rejects.toThrow('the redirect carried a state that does not match this authorization; start again');
    await fetch(`${loop.redirectUrl}?code=c&state=other`);
    await mismatch;
    const refused = expect(loop.next(undefined, 5000)).rejects.toThrow('the authorization server refused: access_denied: user said no');
    const res = await fetch(`${loop.redirectUrl}?error=access_denied&error_description=user%20said%20no`);
    expect(res.status).toBe(400);
    await refused;
  });

  it('answers 404 off the callback path and gives up after the timeout', async () => {
    loop = await startLoopback(0);
    expect((await fetch(loop.redirectUrl.replace('/callback', '/other'))).status).toBe(404);
    await expect(loop.next(undefined, 50)).rejects.toThrow(/^no authorization arrived at http:\/\/127\.0\.0\.1:\d+\/callback within 0 s$/);
  });
});
