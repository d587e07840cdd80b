/**
 * A request's query string read once, for every route: each parameter must be given once. A repeated one
 * (`network=preprod&network=mainnet`) is ambiguous, and two readers of it (the access check and the program)
 * could take different values, so it is refused before anything reads it. `apikey` and `apiKey` are one
 * parameter: both name the key.
 */

export type QueryReading =
  | { readonly ok: true; readonly query: Readonly<Record<string, string>> }
  | { readonly ok: false; readonly parameter: string; readonly count: number };

/** The name a parameter counts under (the key's two spellings are one parameter). */
const countedAs = (name: string) => (name === "apiKey" ? "apikey" : name);

export const readQuery = (url: URL): QueryReading => {
  const query: Record<string, string> = Object.create(null);
  const counts = new Map<string, number>();
  for (const [name, value] of url.searchParams) {
    const counted = countedAs(name);
    counts.set(counted, (counts.get(counted) ?? 0) + 1);
    query[name] = value;
  }
  for (const [parameter, count] of counts) {
    if (count > 1) return { ok: false, parameter, count };
  }
  return { ok: true, query };
};

/** The one sentence every envelope carries for a repeated parameter. */
export const repeatedParameterMessage = (parameter: string, count: number) =>
  `The query parameter ${parameter.slice(0, 100)} is given ${count} times; give it once`;
