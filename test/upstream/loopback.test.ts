/** The `auth` command's loopback redirect listener: code, state check (another authorization's redirect is ignored), refusals, timeout. */
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

  it('ignores a redirect of another authorization (answered 400) and still takes its own; refuses an error redirect with its description', async () => {
    loop = await startLoopback(0);
    // One of an earlier URL, waiting before next() is called, then one arriving while it waits.
    await fetch(`${loop.redirectUrl}?code=stale&state=earlier`);
    const own = loop.next('expected', 5000);
    const other = await fetch(`${loop.redirectUrl}?code=c-other&state=other`);
    expect(other.status).toBe(400);
    expect(await other.text()).toContain('This redirect belongs to an earlier authorization');
    expect((await fetch(`${loop.redirectUrl}?code=c-own&state=expected`)).status).toBe(200);
    await expect(own).resolves.toEqual({ code: 'c-own' });
    const refused = expect(loop.next('s3', 5000)).rejects.toThrow('the authorization server refused: access_denied: user said no');
    await fetch(`${loop.redirectUrl}?error=access_denied&error_description=someone%20else&state=s-other`);
    const res = await fetch(`${loop.redirectUrl}?error=access_denied&error_description=user%20said%20no&state=s3`);
    expect(res.status).toBe(400);
    await refused;
  });

  it('answers 404 off the callback path and gives up after the timeout', async () => {
    loop = await startLoopback(0);
    expect((await fetch(loop.redirectUrl.replace('/callback', '/other'))).status).toBe(404);
    await expect(loop.next(undefined, 50)).rejects.toThrow(/^no authorization arrived at http:\/\/127\.0\.0\.1:\d+\/callback within 0 s$/);
  });
});
