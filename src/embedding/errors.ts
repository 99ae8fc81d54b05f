/** Error text for logs and wrapped errors. */

/**
 * The first line of an error's message plus that of its `cause`, which is where
 * Node's fetch puts the real reason: `fetch failed (getaddrinfo ENOTFOUND huggingface.co)`.
 */
export function describeError(err: unknown): string {
  const line = (e: unknown) => (e instanceof Error ? e.message : String(e)).split('\n')[0]!;
  const cause = err instanceof Error && err.cause !== undefined ? ` (${line(err.cause)})` : '';
  return line(err) + cause;
}
