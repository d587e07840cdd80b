/**
 * Row ids as PostgreSQL writes bigints in text (`id::text`): compared as decimals without a BigInt per row,
 * which cost more than reading the row.
 */

/** a < b for two non-negative decimal integers without leading zeros. */
export const decimalLess = (a: string, b: string): boolean =>
  a.length < b.length || (a.length === b.length && a < b);
