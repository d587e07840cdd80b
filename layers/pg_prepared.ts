/**
 * Server-side prepared statements for the statements that ask for one with a leading `/* prepared *\/` comment:
 * each connection parses and plans such a statement once and then only binds and executes it, so PostgreSQL
 * plans it at most a few times per connection (a generic plan after five custom ones) instead of on every call.
 * For big statements run with many different keys: a transaction's read (src/queries/transaction.ts, about 30
 * subplans) cost PostgreSQL 7 ms of CPU (the explorer's) and 31-38 ms (with the UTxO detail) unprepared, about
 * 2 ms prepared, mostly planning. Opt-in, not for every statement: a generic plan suits a
 * lookup by a unique key, not a filter whose best plan depends on the value (a busy address against a quiet one).
 * Only where each connection is its own session (real PostgreSQL): pglite-socket serves all its connections from
 * one session, where a second connection's Parse of the same name would fail. The comment is harmless elsewhere.
 */
import { createHash } from "node:crypto";
import type pg from "pg";

/** Whether `text` asks to be prepared (leads with the mark). */
export const marked = /^\s*\/\* prepared \*\//;

const names = new Map<string, string>();

/** The statement's name: from its text, so one text has one name on every connection and two never share one. */
const nameOf = (text: string): string => {
  let name = names.get(text);
  if (name === undefined) {
    name = `cds_${createHash("sha1").update(text).digest("hex").slice(0, 24)}`;
    names.set(text, name);
  }
  return name;
};

type Query = pg.Client["query"];

/** Names every marked statement the pool's connections run (node-postgres then prepares it once per connection). */
export const prepareMarkedStatements = (pool: pg.Pool): void => {
  pool.on("connect", (client) => {
    const query = client.query.bind(client) as (...args: Array<unknown>) => unknown;
    client.query = ((config: unknown, ...rest: Array<unknown>) => {
      if (typeof config === "string" && marked.test(config)) {
        return query({ name: nameOf(config), text: config }, ...rest);
      }
      if (
        typeof config === "object" && config !== null && !("submit" in config) && !("name" in config) &&
        "text" in config && typeof config.text === "string" && marked.test(config.text)
      ) {
        return query({ ...config, name: nameOf(config.text) }, ...rest);
      }
      return query(config, ...rest);
    }) as Query;
  });
};
