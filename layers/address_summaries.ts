/**
 * `AddressSummaries`: each address's summary (balance, UTxO and token counts, activity; the queries are in
 * src/queries/address_summary.ts), kept in the Cache and brought up to date from what new blocks changed, so an
 * exchange address with 100k+ UTxOs costs its full history once, then milliseconds.
 * - A summary older than `recomputeAfterMillis` is recomputed rather than updated: the update reads all of the
 *   chain's activity since its watermark, which after long enough outgrows the full read.
 * - Addresses with `heavyOutputs` outputs or more (what makes their full read cost: an exchange's 443k take
 *   seconds) are recorded in the service database
 *   (cds.heavy_address). A background fiber keeps their summaries current every few seconds, and computes them
 *   at start-up, so after the first request ever no request waits for their history, even after a restart.
 * - A heavy address's summary is computed once per chain tip for all instances: the one that takes the row's
 *   lease (a conditional update of `lease_until`) computes it and stores it in cds.heavy_address; the others
 *   wait for it and read it there (or compute it themselves when the lease holder does not finish in time).
 */
import type { SqlError } from "@effect/sql/SqlError";
import { Context, Duration, Effect, Layer, Option, Schedule } from "effect";
import { Cache } from "./cache.ts";
import { type ChainDatabase, ChainDatabases } from "./chain_db.ts";
import { ChainTips } from "./chain_tips.ts";
import { ServiceDatabase } from "./service_db.ts";
import type { Network } from "@schemas/network.ts";
import { DatabaseUnavailable } from "@src/domain/errors.ts";
import { type AddressSummary, addressSummary, addressSummarySince } from "@src/queries/address_summary.ts";

/** Where an address's summary is cached (v2: summaries that carry each token's quantity). */
export const summaryCacheKey = (network: Network, address: string) => `address:v2:${network}:${address}`;

/** An address as stored by db-sync, with its payment credential (hex; null for Byron and stake addresses). */
export interface SummarizedAddress {
  readonly text: string;
  readonly paymentCred: string | null;
}

export interface AddressSummariesShape {
  readonly get: (
    network: Network,
    address: SummarizedAddress,
  ) => Effect.Effect<AddressSummary | undefined, DatabaseUnavailable>;
  /** Summaries this instance computed from the chain (full reads and updates), for the metrics and tests. */
  readonly computations: () => number;
}

export class AddressSummaries
  extends Context.Tag("AddressSummaries")<AddressSummaries, AddressSummariesShape>() {}

const recomputeAfterMillis = 30 * 60_000;
const keepCurrentEvery = Duration.seconds(5);
/** Enough for every exchange and busy script address; a bound, since a loaded database makes reads slow. */
const maxHeavy = 1000;
/** How long a heavy summary's lease holds (a full read of an exchange takes seconds); the others wait that long. */
const leaseSeconds = 30;
const waitForLease = Duration.millis(100);

/**
 * `heavyOutputs`: an address with this many outputs ever is heavy. By size, not by the time its read took, so a
 * loaded database does not make ordinary addresses heavy. Tests lower it.
 */
export const makeAddressSummariesLive = (heavyOutputs = 20_000): Layer.Layer<
  AddressSummaries,
  never,
  Cache | ChainDatabases | ChainTips | ServiceDatabase
> =>
  Layer.scoped(
    AddressSummaries,
    Effect.gen(function* () {
      const cache = yield* Cache;
      const chains = yield* ChainDatabases;
      const service = yield* ServiceDatabase;
      const tips = yield* ChainTips;
      const heavy = new Map<string, { readonly network: Network; readonly address: SummarizedAddress }>();
      let computations = 0;

      /** Records a heavy address with the summary its full read just gave, current for `tip` (read before it). */
      const remember = (
        network: Network,
        address: SummarizedAddress,
        millis: number,
        summary: AddressSummary | undefined,
        tip: string | undefined,
      ) =>
        Effect.suspend(() => {
          heavy.set(`${network}:${address.text}`, { network, address });
          return service.sql`
          insert into cds.heavy_address (network, address, payment_cred, full_millis, summary, summary_tip, full_at)
          values (${network}, ${address.text}, ${address.paymentCred}, ${Math.round(millis)},
            ${JSON.stringify(summary ?? null)}::jsonb, ${tip ?? null}, now())
          on conflict (network, address) do update set full_millis = excluded.full_millis`;
        }).pipe(
          Effect.catchAll((e) => Effect.logWarning(`could not record a heavy address: ${e.message}`)),
        );

      const get = (network: Network, address: SummarizedAddress) => {
        const db: ChainDatabase = chains.get(network);
        const options = { paymentCredHex: address.paymentCred, spentTracking: db.dbSync.spentTracking };
        const unavailable = (e: { message: string }) =>
          new DatabaseUnavailable({ network, message: e.message });
        // the tip before the read: the summary is current for it at least
        const full = Effect.suspend(() => {
          const tipBefore = tips.get(network).current()?.hash;
          return addressSummary(db.sql, address.text, options).pipe(
            Effect.tap(() => void computations++),
            Effect.mapError(unavailable),
            Effect.timed,
            Effect.tap(([took, summary]) =>
              (summary?.outputs ?? 0) >= heavyOutputs && heavy.size < maxHeavy &&
                !heavy.has(`${network}:${address.text}`)
                ? remember(network, address, Duration.toMillis(took), summary, tipBefore)
                : Effect.void
            ),
            Effect.map(([, summary]) => summary),
          );
        });
        const update = (previous: AddressSummary) =>
          addressSummarySince(db.sql, previous, options).pipe(
            Effect.tap(() => void computations++),
            Effect.mapError(unavailable),
            Effect.flatMap((updated) => (updated ? Effect.succeed(updated) : full)),
          );
        /** Whether this instance's own next value is a full read (nothing recent to update). */
        const needsFull = (
          previous: Option.Option<{ readonly value: AddressSummary | undefined; ageMillis: number }>,
        ) =>
          Option.isNone(previous) || previous.value.value === undefined ||
          previous.value.ageMillis > recomputeAfterMillis;
        const local = (
          previous: Option.Option<{ readonly value: AddressSummary | undefined; ageMillis: number }>,
        ) => needsFull(previous) ? full : update(Option.getOrThrow(previous).value!);
        return cache.refresh<AddressSummary | undefined, DatabaseUnavailable, never>(
          summaryCacheKey(network, address.text),
          "2 seconds",
          (previous) =>
            heavy.has(`${network}:${address.text}`)
              ? shared(network, address.text, tips.get(network).current()?.hash, {
                update,
                local: local(previous),
                localIsFull: needsFull(previous),
              })
              : local(previous),
        );
      };

      /**
       * A heavy address's summary for `tip`: the stored one when it is current, else computed by whoever takes
       * the lease (from the stored one when a full read is recent enough) and stored; the others wait for it.
       */
      const shared = (
        network: Network,
        address: string,
        tip: string | undefined,
        compute: {
          readonly update: (
            previous: AddressSummary,
          ) => Effect.Effect<AddressSummary | undefined, DatabaseUnavailable>;
          /** This instance's own next value: an update of its cached summary, or a full read. */
          readonly local: Effect.Effect<AddressSummary | undefined, DatabaseUnavailable>;
          readonly localIsFull: boolean;
        },
      ): Effect.Effect<AddressSummary | undefined, DatabaseUnavailable> => {
        const sql = service.sql;
        const where = sql`network = ${network} and address = ${address}`;
        const stored = sql<
          { summary: AddressSummary | null; tip: string | null; fullAgeMillis: number | null }
        >`
          select summary, summary_tip as tip,
            (extract(epoch from now() - full_at) * 1000)::float8 as "fullAgeMillis"
          from cds.heavy_address where ${where}`.pipe(Effect.map((rows) => rows[0]));
        // taken only while no current summary is stored: between this instance's read of the row and its take,
        // the holder may have stored one and released the lease
        const notCurrent = tip === undefined
          ? sql`true`
          : sql`not (summary_tip = ${tip} and summary is not null and summary <> 'null'::jsonb)`;
        const take =
          sql`update cds.heavy_address set lease_until = now() + ${`${leaseSeconds} seconds`}::interval
          where ${where} and (lease_until is null or lease_until < now()) and ${notCurrent} returning 1`.pipe(
            Effect.map((rows) => rows.length > 0),
          );
        const store = (summary: AddressSummary | undefined, fullAt: boolean) =>
          sql`update cds.heavy_address set summary = ${JSON.stringify(summary ?? null)}::jsonb,
            summary_tip = ${tip ?? null}, lease_until = null,
            full_at = ${fullAt ? sql`now()` : sql`full_at`} where ${where}`;
        const release = sql`update cds.heavy_address set lease_until = null where ${where}`;
        const computeAndStore = (
          row: { summary: AddressSummary | null; fullAgeMillis: number | null } | undefined,
        ) => {
          const fromStored = row?.summary && row.fullAgeMillis !== null &&
            row.fullAgeMillis < recomputeAfterMillis;
          // with no recent stored summary, this instance's own cached one is updated rather than the whole
          // history read again (seconds for an exchange, with every request for it waiting); `full_at` moves
          // only on a full read
          return (fromStored ? compute.update(row.summary!) : compute.local).pipe(
            Effect.tap((summary) => Effect.ignore(store(summary, !fromStored && compute.localIsFull))),
            Effect.onError(() => Effect.ignore(release)),
          );
        };
        const attempt = Effect.gen(function* () {
          const row = yield* stored;
          if (tip !== undefined && row?.summary && row.tip === tip) return Option.some(row.summary);
          if (!(yield* take)) return Option.none();
          return Option.some(yield* computeAndStore(row));
        });
        // the lease holder's result, polled; past its lease, computed here
        const untilDone = (): Effect.Effect<AddressSummary | undefined, SqlError | DatabaseUnavailable> =>
          Effect.flatMap(
            attempt,
            Option.match({
              onSome: Effect.succeed,
              onNone: () => Effect.zipRight(Effect.sleep(waitForLease), Effect.suspend(untilDone)),
            }),
          );
        return untilDone().pipe(
          Effect.mapError((e) =>
            e instanceof DatabaseUnavailable
              ? e
              : new DatabaseUnavailable({ network: "service", message: e.message })
          ),
          Effect.timeoutFail({
            duration: Duration.seconds(leaseSeconds + 1),
            onTimeout: () => "lease" as const,
          }),
          Effect.catchIf(
            (e) => e === "lease",
            () =>
              Effect.logWarning(`the shared summary of ${address} did not come in time; computed here`).pipe(
                Effect.zipRight(compute.local),
              ),
          ),
        );
      };

      // the heavy addresses recorded by earlier runs, then kept current (one at a time: background work yields
      // to requests)
      const recorded = yield* service.sql<{ network: Network; address: string; paymentCred: string | null }>`
      select network, address, payment_cred as "paymentCred" from cds.heavy_address`.pipe(
        Effect.catchAll((e) =>
          Effect.as(Effect.logWarning(`could not read heavy addresses: ${e.message}`), [])
        ),
      );
      const networks = new Set(chains.all.map((c) => c.network));
      for (const r of recorded) {
        if (networks.has(r.network)) {
          heavy.set(`${r.network}:${r.address}`, {
            network: r.network,
            address: { text: r.address, paymentCred: r.paymentCred },
          });
        }
      }
      const keepCurrent = Effect.suspend(() =>
        Effect.forEach([...heavy.values()], ({ network, address }) =>
          get(network, address).pipe(
            Effect.catchAll((e) => Effect.logWarning(`keeping ${address.text} current: ${e.message}`)),
          ), { discard: true })
      );
      yield* keepCurrent.pipe(Effect.repeat(Schedule.spaced(keepCurrentEvery)), Effect.forkScoped);

      return { get, computations: () => computations };
    }),
  );

export const AddressSummariesLive = makeAddressSummariesLive();
