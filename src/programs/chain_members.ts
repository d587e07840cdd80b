/**
 * The members of the chain databases given as several URLs (replicas), as `/health` and `/ready` show them:
 * each one's state, tip and reads, passwords masked (layers/chain_replicas.ts keeps them).
 */
import type { ChainDatabase, ChainDatabases } from "@layers/chain_db.ts";

export interface ChainMember {
  readonly location: string;
  readonly state: "connecting" | "in use" | "catching up" | "lagging" | "down";
  readonly blockNo: number | null;
  readonly reads: number;
  readonly reason?: string;
  readonly since: string;
}

export type ChainMembers = Readonly<Record<string, ReadonlyArray<ChainMember>>>;

export const membersOf = (db: ChainDatabase): ReadonlyArray<ChainMember> | undefined =>
  db.replicas?.members().map((m) => ({ ...m, blockNo: m.blockNo ?? null }));

/** Per network given as several URLs; undefined when there is none. */
export const chainMembers = (dbs: typeof ChainDatabases.Service): ChainMembers | undefined => {
  const entries = dbs.all.flatMap((db) => {
    const members = membersOf(db);
    return members ? [[db.network, members] as const] : [];
  });
  return entries.length === 0 ? undefined : Object.fromEntries(entries);
};
