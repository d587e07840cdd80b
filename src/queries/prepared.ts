/**
 * Statements that begin with `prepared` (a comment) are kept prepared on each PostgreSQL connection
 * (layers/sql_pg.ts names them), so the server plans them a few times and then reuses a generic plan. For the
 * many-subquery statements of one key's lookups (a stake account, a block, a pool), planning took 2-3 ms of a
 * 3 ms answer; the generic plan runs in 0.3 ms. Only for statements whose plan does not depend on the key
 * (unique-index lookups): a generic plan ignores how many rows a busy key has. PGlite ignores the comment.
 */
export const prepared = "/* prepared */";

/** Whether `text` asks to be kept prepared. */
export const isPrepared = (text: string): boolean => text.trimStart().startsWith(prepared);
