/** One short-lived PostgreSQL connection for a test's own statements (setup, inserted blocks, checks). */
import pg from "pg";

export const onDatabase = async <A>(url: string, f: (c: pg.Client) => Promise<A>): Promise<A> => {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return await f(c);
  } finally {
    await c.end();
  }
};
