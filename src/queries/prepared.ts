/**
 * Statements that begin with this comment are kept prepared on each PostgreSQL chain database connection
 * (layers/pg_prepared.ts names them), so the server plans them a few times and then reuses a generic plan. For
 * the many-subquery statements of one key's lookups (a transaction, a stake account, a block, a pool), planning
 * took 2-3 ms of a 3 ms answer; the generic plan runs in 0.3 ms. Only for statements whose plan does not depend
 * on the key (unique-index lookups): a generic plan ignores how many rows a busy key has. PGlite ignores it.
 */
export const prepared = "/* prepared */";
