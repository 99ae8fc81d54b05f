/**
 * Databases of their own on a PostgreSQL server, for the tests and benchmarks that put a
 * store on PostgreSQL: a role that may create databases (TOOL_CURATOR_TEST_PG, a
 * postgres:// URL; docs/STORE.md, "Tests") creates one with a random name and drops it
 * after. No test framework here: bench/ uses it too (test/helpers/stores.ts wraps it).
 */
import pg from 'pg';

/** The server and role the PostgreSQL tests use, if set. */
export const PG_URL = process.env.TOOL_CURATOR_TEST_PG;

/** `base` (default PG_URL) with another database name. */
export function pgUrlFor(name: string, base = PG_URL): string {
  if (!base) throw new Error('TOOL_CURATOR_TEST_PG is not set: a postgres:// URL of a role that may create databases (see docs/STORE.md, "Tests")');
  const u = new URL(base);
  u.pathname = `/${name}`;
  return u.href;
}

/** Runs `sql` on the server's maintenance connection (the URL as given, default PG_URL). */
export async function adminQuery(sql: string, base = PG_URL): Promise<void> {
  const own = base && new URL(base).pathname.slice(1);
  const client = new pg.Client({ connectionString: pgUrlFor(own || 'postgres', base) });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** A new database of its own on the server of `base` (default PG_URL), dropped with `dropDatabase`. */
export async function createDatabase(base = PG_URL): Promise<{ name: string; url: string }> {
  const name = `tc_test_${Math.random().toString(36).slice(2, 10)}`;
  await adminQuery(`CREATE DATABASE ${name}`, base);
  return { name, url: pgUrlFor(name, base) };
}

/**
 * Drops `name`, ending its connections. PostgreSQL refuses to end an autovacuum worker
 * that happens to be in the database (it has no role this one is a member of: "must be a
 * member of the role whose process is being terminated"); such a worker ends by itself
 * soon, so the drop is tried again, up to 20 times, a quarter second apart.
 */
export async function dropDatabase(name: string, base = PG_URL): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`, base);
    } catch (err) {
      if ((err as { code?: string }).code !== '42501' || attempt >= 20) throw err;
      await new Promise((r) => setTimeout(r, 250));
    }
  }
}
