/**
 * Chain sync over the running service: findIntersection (origin, points, none found, malformed), nextBlock's
 * backward-then-forward steps, the whole demo chain streamed with 100 requests in flight and every block valid
 * against Ogmios' schema and equal to db-sync's rows, a nextBlock waiting at the tip without holding up queries,
 * the official @cardano-ogmios/client following the chain, and (on PostgreSQL, where the test can write to the
 * database the service reads) a rollback and a new block reaching that client.
 */
import assert from "node:assert/strict";
import { createChainSynchronizationClient, createInteractionContext } from "@cardano-ogmios/client";
import { startRestFixture } from "../support/rest.ts";
import { connect, type RawSocket } from "../support/ogmios_ws.ts";
import { assertMatchesOgmiosSchema } from "../support/ogmios_schema.ts";
import { testDatabaseUrl } from "../support/databases.ts";

const request = (method: string, params?: unknown, id?: unknown) => ({
  jsonrpc: "2.0",
  method,
  ...(params === undefined ? {} : { params }),
  ...(id === undefined ? {} : { id }),
});

interface TipRow {
  slot: string;
  hash: string;
  height: number;
}

Deno.test({
  name: "chain sync: findIntersection and nextBlock",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async (t) => {
    // chain sync streams thousands of messages: no rate limit in the way
    const f = await startRestFixture("chainsync", { RATE_LIMIT_PAID: "0" });
    const wsUrl = `${f.service.base.replace("http", "ws")}/v1/ogmios?apikey=${f.key}`;
    const tipRow = async () =>
      (await f.query<TipRow>(
        "mainnet",
        `select slot_no::text as slot, encode(hash, 'hex') as hash, block_no as height from block
         where block_no is not null order by id desc limit 1`,
      ))[0]!;
    const tip = await tipRow();
    const tipJson = { slot: Number(tip.slot), id: tip.hash, height: tip.height };
    const [middle] = await f.query<TipRow>(
      "mainnet",
      `select slot_no::text as slot, encode(hash, 'hex') as hash, block_no as height from block where block_no = 100`,
    );
    let c: RawSocket | undefined;
    try {
      await t.step("findIntersection at the origin; then backward to it, then the first block", async () => {
        c = await connect(wsUrl);
        c.send(request("findIntersection", { points: ["origin"] }, "i"));
        const found = await c.next();
        await assertMatchesOgmiosSchema("ogmios.json#/properties/FindIntersectionResponse", found);
        assert.deepEqual(found.result, { intersection: "origin", tip: tipJson });
        assert.equal(found.id, "i");
        c.send(request("nextBlock"));
        c.send(request("nextBlock"));
        const back = await c.next();
        await assertMatchesOgmiosSchema("ogmios.json#/properties/NextBlockResponse", back);
        assert.deepEqual(back, {
          jsonrpc: "2.0",
          method: "nextBlock",
          result: { direction: "backward", point: "origin", tip: tipJson },
          id: null,
        });
        const first = await c.next();
        await assertMatchesOgmiosSchema("ogmios.json#/properties/NextBlockResponse", first);
        assert.equal(first.result.direction, "forward");
        assert.equal(first.result.block.height, 0);
        assert.equal(first.result.block.ancestor, "genesis");
        assert.equal(first.result.block.type, "praos");
        assert.equal(first.result.block.era, "conway");
      });

      await t.step("findIntersection picks the first point on the chain, in the order given", async () => {
        const unknown = { slot: 5, id: "ab".repeat(32) };
        const point = { slot: Number(middle!.slot), id: middle!.hash };
        c!.send(request("findIntersection", { points: [unknown, point, "origin"] }, 2));
        const found = await c!.next();
        assert.deepEqual(found.result, { intersection: point, tip: tipJson });
        c!.send(request("nextBlock", undefined, "a"));
        c!.send(request("nextBlock", undefined, "b"));
        assert.deepEqual((await c!.next()).result, { direction: "backward", point, tip: tipJson });
        const after = await c!.next();
        assert.equal(after.id, "b");
        assert.equal(after.result.block.height, 101);
        assert.equal(after.result.block.ancestor, middle!.hash);
        // a point whose slot does not match its hash is not on the chain
        c!.send(request("findIntersection", { points: [{ slot: point.slot + 1, id: point.id }] }, 3));
        const none = await c!.next();
        await assertMatchesOgmiosSchema("ogmios.json#/properties/FindIntersectionResponse", none);
        assert.deepEqual(none.error, {
          code: 1000,
          message: "No intersection found.",
          data: { tip: tipJson },
        });
        assert.equal(none.id, 3);
        for (
          const params of [undefined, { points: [] }, { points: "origin" }, {
            points: [{ slot: "1", id: "00" }],
          }]
        ) {
          c!.send(request("findIntersection", params, "bad"));
          const bad = await c!.next();
          assert.equal(bad.error.code, -32602, JSON.stringify(params));
          assert.match(bad.error.message, /point/);
          assert.equal(bad.method, "findIntersection");
        }
      });

      await t.step(
        "the whole chain streams with 100 in flight, each block valid and equal to db-sync",
        async () => {
          const txs = await f.query<
            {
              block: string;
              hash: string;
              fee: string;
              outSum: string;
              valid: boolean;
              labels: number;
              votes: number;
              certs: number;
            }
          >(
            "mainnet",
            `select encode(b.hash, 'hex') as block, encode(t.hash, 'hex') as hash, t.fee::text as fee,
                  t.out_sum::text as "outSum", t.valid_contract as valid,
                  (select count(*)::int from tx_metadata m where m.tx_id = t.id) as labels,
                  (select count(*)::int from voting_procedure v where v.tx_id = t.id) as votes,
                  (select count(distinct cert_index)::int from (
                     select cert_index from stake_registration where tx_id = t.id
                     union all select cert_index from stake_deregistration where tx_id = t.id
                     union all select cert_index from delegation where tx_id = t.id
                     union all select cert_index from delegation_vote where tx_id = t.id
                     union all select cert_index from pool_retire where announced_tx_id = t.id
                     union all select cert_index from pool_update where registered_tx_id = t.id
                     union all select cert_index from drep_registration where tx_id = t.id) c) as certs
           from tx t join block b on b.id = t.block_id where b.block_no is not null order by t.id`,
          );
          const byBlock = new Map<string, typeof txs[number][]>();
          for (const tx of txs) byBlock.set(tx.block, [...(byBlock.get(tx.block) ?? []), tx]);
          c!.send(request("findIntersection", { points: ["origin"] }, "o"));
          await c!.next();
          for (let i = 0; i < 100; i++) c!.send(request("nextBlock"));
          assert.equal((await c!.nextExact()).result.direction, "backward");
          let height = -1;
          let sent = 100;
          let transactions = 0;
          let votes = 0;
          while (height < tip.height) {
            const reply = await c!.nextExact();
            const block = reply.result.block;
            assert.equal(block.height, height + 1, "consecutive heights");
            height = block.height;
            const expected = byBlock.get(block.id) ?? [];
            assert.deepEqual(
              block.transactions.map((x: { id: string }) => x.id),
              expected.map((x) => x.hash),
            );
            for (const [i, tx] of block.transactions.entries()) {
              const row = expected[i]!;
              assert.equal(BigInt(tx.fee.ada.lovelace), BigInt(row.fee));
              assert.equal(tx.spends, row.valid ? "inputs" : "collaterals");
              if (row.valid) {
                const sum = tx.outputs.reduce(
                  (s: bigint, o: { value: { ada: { lovelace: bigint } } }) =>
                    s + BigInt(o.value.ada.lovelace),
                  0n,
                );
                assert.equal(sum, BigInt(row.outSum), `outputs of ${tx.id}`);
              }
              assert.equal(Object.keys(tx.metadata?.labels ?? {}).length, row.labels);
              assert.equal((tx.votes ?? []).length, row.votes, `votes of ${tx.id}`);
              votes += row.votes;
              assert.ok((tx.certificates ?? []).length >= row.certs, `certificates of ${tx.id}`);
            }
            transactions += block.transactions.length;
            if (sent < tip.height + 2) {
              c!.send(request("nextBlock"));
              sent++;
            }
          }
          assert.equal(transactions, txs.length);
          assert.ok(votes > 0, "the demo chain's votes were seen");
          // the replies still pending are at the tip: none arrives, and queries on the socket go on meanwhile
          c!.send(request("queryNetwork/tip", undefined, "q"));
          const q = await c!.next();
          assert.deepEqual([q.id, q.result], ["q", { slot: tipJson.slot, id: tipJson.id }]);
          assert.equal(await c!.quietFor(1500), true, "nextBlock at the tip waits for a block");
          c!.close();
        },
      );

      await t.step("every block is valid against Ogmios' schema", async () => {
        const s = await connect(wsUrl);
        s.send(request("findIntersection", { points: ["origin"] }, "o"));
        await s.next();
        for (let i = 0; i < 100; i++) s.send(request("nextBlock"));
        await s.next();
        for (let h = 0; h <= tip.height; h++) {
          const reply = await s.next();
          await assertMatchesOgmiosSchema("ogmios.json#/properties/NextBlockResponse", reply);
          if (h + 99 <= tip.height) s.send(request("nextBlock"));
        }
        s.close();
      });

      await t.step("the official client follows the chain to its tip", async () => {
        const context = await createInteractionContext(() => {}, () => {}, {
          connection: { address: { http: `${f.service.base}/v1/ogmios`, webSocket: wsUrl } },
        });
        let backward = 0;
        let last = -1;
        let reached: () => void;
        const atTip = new Promise<void>((resolve) => (reached = resolve));
        const client = await createChainSynchronizationClient(context, {
          rollBackward: (_r, next) => {
            backward++;
            next();
            return Promise.resolve();
          },
          rollForward: ({ block }, next) => {
            const height = (block as { height: number }).height;
            assert.equal(height, last + 1);
            last = height;
            if (height === tip.height) reached();
            next();
            return Promise.resolve();
          },
        });
        const intersection = await client.resume(["origin"]);
        assert.equal(intersection.intersection, "origin");
        await atTip;
        assert.equal(backward, 1);
        await client.shutdown();
      });

      await t.step({
        name: "a rollback and a new block reach the official client (PostgreSQL)",
        ignore: !testDatabaseUrl,
        fn: async () => {
          const events: Array<{ direction: string; id: string; ancestor?: string }> = [];
          let notify = () => {};
          const context = await createInteractionContext(() => {}, () => {}, {
            connection: { address: { http: `${f.service.base}/v1/ogmios`, webSocket: wsUrl } },
          });
          const client = await createChainSynchronizationClient(context, {
            rollBackward: ({ point }, next) => {
              events.push({ direction: "backward", id: point === "origin" ? "origin" : point.id });
              notify();
              next();
              return Promise.resolve();
            },
            rollForward: ({ block }, next) => {
              const b = block as { id: string; ancestor: string };
              events.push({ direction: "forward", id: b.id, ancestor: b.ancestor });
              notify();
              next();
              return Promise.resolve();
            },
          });
          const until = (test: () => boolean) =>
            new Promise<void>((resolve, reject) => {
              const timer = setTimeout(
                () => reject(new Error(`timed out: ${JSON.stringify(events)}`)),
                30_000, // the tip is polled once a second; a loaded CI machine can take far longer to pass it on
              );
              notify = () => {
                if (test()) {
                  clearTimeout(timer);
                  resolve();
                }
              };
              notify();
            });
          const newest = await f.query<{ id: string; hash: string }>(
            "mainnet",
            `select b.id::text, encode(b.hash, 'hex') as hash from block b order by b.id desc limit 4`,
          );
          await client.resume([{ slot: Number(tip.slot), id: tip.hash }], 10);
          await until(() => events.length === 1);
          assert.deepEqual(events[0], { direction: "backward", id: tip.hash });
          // db-sync rolls back three blocks (deleting them and their transactions' rows) ...
          const keep = newest[3]!;
          await f.query(
            "mainnet",
            `with gone as (delete from tx where block_id > $1 returning id),
                  outs as (delete from tx_out where tx_id in (select id from gone)),
                  ins as (delete from tx_in where tx_in_id in (select id from gone))
             delete from block where id > $1`,
            keep.id,
          );
          await until(() => events.length === 2);
          assert.deepEqual(events[1], { direction: "backward", id: keep.hash });
          // ... then adopts a new block on top of the surviving chain (a fresh id, as db-sync's sequence gives)
          const [added] = await f.query<{ hash: string }>(
            "mainnet",
            `insert into block (id, hash, epoch_no, slot_no, epoch_slot_no, block_no, previous_id, slot_leader_id, size,
                                time, tx_count, proto_major, proto_minor, vrf_key, op_cert, op_cert_counter)
             select $2::bigint + 1, sha256(hash), epoch_no, slot_no + 7, epoch_slot_no + 7, block_no + 1, id, slot_leader_id, 4,
                    time + interval '7 seconds', 0, proto_major, proto_minor, vrf_key, op_cert, op_cert_counter
             from block where id = $1
             returning encode(hash, 'hex') as hash`,
            keep.id,
            newest[0]!.id,
          );
          await until(() => events.length === 3);
          assert.deepEqual(events[2], { direction: "forward", id: added!.hash, ancestor: keep.hash });
          await client.shutdown();
        },
      });
    } finally {
      c?.close();
      await f.close();
    }
  },
});
