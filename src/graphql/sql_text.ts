/**
 * How compiled SQL is written: every value the query carries becomes a numbered parameter; identifiers come only
 * from the schema model (catalog names that match `[a-z_][a-z0-9_]*`), quoted.
 */
export class SqlBuilder {
  readonly params: Array<unknown> = [];
  #aliases = 0;

  /** A placeholder for a value sent separately from the SQL text. */
  param(value: unknown): string {
    this.params.push(value);
    return `$${this.params.length}`;
  }

  /** A fresh table alias (t0, t1, ...). */
  alias(): string {
    return `t${this.#aliases++}`;
  }
}

const identifier = /^[a-z_][a-z0-9_]*$/;

/** A quoted identifier; anything not shaped like a catalog name is a bug, never user input. */
export const ident = (name: string): string => {
  if (!identifier.test(name)) throw new Error(`not an identifier from the schema model: ${name}`);
  return `"${name}"`;
};

export const column = (alias: string, name: string): string => `${alias}.${ident(name)}`;

/**
 * A JSON object from key placeholders and value expressions, keys in query order. json_build_object takes at
 * most 100 arguments; wider selections aggregate (key, value) rows in order instead.
 */
export const jsonObject = (b: SqlBuilder, pairs: ReadonlyArray<readonly [string, string]>): string => {
  if (pairs.length <= 50) {
    return `json_build_object(${pairs.map(([k, v]) => `${b.param(k)}::text, ${v}`).join(", ")})`;
  }
  const rows = pairs.map(([k, v], i) => `(${i}, ${b.param(k)}::text, to_json(${v}))`).join(", ");
  return `(select json_object_agg(f.k, f.v order by f.i) from (values ${rows}) as f(i, k, v))`;
};
