/** What a store location is, and how it is shown: no module of the backends is loaded for it. */

/** Whether `location` names a PostgreSQL database (`postgres://…` or `postgresql://…`) rather than a SQLite file. */
export function isPostgresUrl(location: string): boolean {
  return /^postgres(ql)?:\/\//i.test(location);
}

/** A PostgreSQL URL without its password (in the userinfo or a `password` parameter): what logs and errors show. */
export function safeLocation(url: string): string {
  try {
    const u = new URL(url);
    u.password = '';
    u.searchParams.delete('password');
    return u.href;
  } catch {
    return 'postgres://(an unparsable URL)';
  }
}
