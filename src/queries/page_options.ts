/** A page of a list in chain order: `count` rows from page `page` (1-based), oldest first (`asc`) or newest. */
export interface PageOptions {
  readonly count: number;
  readonly page: number;
  readonly order: "asc" | "desc";
}
