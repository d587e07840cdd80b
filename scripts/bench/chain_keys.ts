/**
 * Keys drawn at random from a db-sync database (transaction and block hashes, addresses, stake and pool ids),
 * for benches whose lookups must each be computed afresh: spread over the whole chain, in random order.
 */
import type pg from "pg";

/**
 * `count` distinct values of `value` (an expression over `table`'s columns) at distinct random row ids of the
 * table (ids are dense in db-sync), shuffled; fewer when the table has fewer (a count above the table's rows
 * gives them all).
 */
export const randomKeys = async (
  client: pg.Client,
  table: string,
  value: string,
  count: number,
  where = "true",
): Promise<Array<string>> => {
  const max = Number((await client.query(`select max(id) as n from ${table}`)).rows[0]?.n ?? 0);
  const ids = new Set<number>();
  // a third more ids than keys: some rows fail `where`, some share a value (an address's several outputs)
  const wanted = Math.min(max, Math.ceil(count * 1.34));
  if (wanted === max) { for (let id = 1; id <= max; id++) ids.add(id); }
  while (ids.size < wanted) ids.add(1 + Math.floor(Math.random() * max));
  const found = (await client.query(
    `select distinct ${value} as v from ${table} where id = any($1::bigint[]) and ${where}`,
    [[...ids]],
  )).rows.map((r) => r.v as string);
  for (let i = found.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [found[i], found[j]] = [found[j]!, found[i]!];
  }
  if (found.length < count && wanted < max) console.log(`(${table}: ${found.length} keys, not ${count})`);
  return found.slice(0, count);
};
