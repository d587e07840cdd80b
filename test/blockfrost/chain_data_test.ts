/**
 * The Blockfrost dialect's chain data (network, eras, genesis, epochs, protocol parameters, blocks and their
 * transactions) on both networks: each answer validated against Blockfrost's published schema (found, not
 * found, malformed, paged and empty), its values compared to the chain database's rows and to what our explorer,
 * REST and JSON-RPC answer for the same object.
 */
import assert from "node:assert/strict";
import type { Network } from "@schemas/network.ts";
import { assertBlockfrostShape, startBlockfrostFixture } from "../support/blockfrost.ts";

const networks: ReadonlyArray<Network> = ["mainnet", "preprod"];
const explorerBase = (network: Network) => `/v2/explorer/${network}`;
const seconds = (t: Date | string) => Math.floor(new Date(t).getTime() / 1000);
const zeros = "0".repeat(64);

Deno.test({
  name: "blockfrost: chain data",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async (t) => {
    const f = await startBlockfrostFixture("bf_chain_data");
    try {
      await t.step("protocol parameters: db-sync's rows, equal to JSON-RPC's and REST's", async () => {
        for (const network of networks) {
          const latest = await f.bf("/epochs/latest/parameters", network);
          assertBlockfrostShape("GET", "/epochs/latest/parameters", latest);
          const p = latest.body;
          const [row] = await f.query<Record<string, unknown>>(
            network,
            `select p.epoch_no, p.min_fee_a, p.min_fee_b, p.key_deposit::text as key_deposit,
                    p.coins_per_utxo_size::text as coins, p.drep_deposit::text as drep_deposit,
                    p.gov_action_deposit::text as gov_deposit, p.min_fee_ref_script_cost_per_byte as ref_cost,
                    encode(p.nonce, 'hex') as nonce, c.costs
             from epoch_param p left join cost_model c on c.id = p.cost_model_id
             order by p.epoch_no desc limit 1`,
          );
          assert.equal(p.epoch, row!.epoch_no);
          assert.equal(p.min_fee_a, row!.min_fee_a);
          assert.equal(p.min_fee_b, row!.min_fee_b);
          assert.equal(p.key_deposit, row!.key_deposit);
          assert.equal(p.coins_per_utxo_size, row!.coins);
          assert.equal(p.coins_per_utxo_word, row!.coins);
          assert.equal(p.drep_deposit, row!.drep_deposit);
          assert.equal(p.gov_action_deposit, row!.gov_deposit);
          assert.equal(p.min_fee_ref_script_cost_per_byte, row!.ref_cost);
          assert.match(p.nonce, /^[0-9a-f]{64}$/);
          assert.equal(p.nonce, row!.nonce);
          const costs = row!.costs as Record<string, Array<number>>;
          assert.deepEqual(p.cost_models_raw, costs);
          assert.deepEqual(Object.keys(p.cost_models_raw), ["PlutusV1", "PlutusV2", "PlutusV3"]);
          // named in ledger order: the first and last of each language's parameters
          for (const language of ["PlutusV1", "PlutusV2", "PlutusV3"]) {
            const named = Object.entries(p.cost_models[language] as Record<string, number>);
            assert.equal(named.length, costs[language]!.length);
            assert.deepEqual(named.map(([, v]) => v), costs[language]);
          }
          assert.equal(Object.keys(p.cost_models.PlutusV1)[0], "addInteger-cpu-arguments-intercept");
          assert.equal(Object.keys(p.cost_models.PlutusV1).at(-1), "verifyEd25519Signature-memory-arguments");
          assert.equal(
            Object.keys(p.cost_models.PlutusV2).at(-1),
            "verifySchnorrSecp256k1Signature-memory-arguments",
          );
          assert.equal(Object.keys(p.cost_models.PlutusV3).at(-1), "ripemd_160-memory-arguments");

          const rpc = await f.rpc("queryLedgerState/protocolParameters", undefined, network);
          const o = rpc.body.result;
          const same = (bf: typeof p, ogmios: typeof o) => {
            assert.equal(bf.min_fee_a, ogmios.minFeeCoefficient);
            assert.equal(bf.min_fee_b, ogmios.minFeeConstant.ada.lovelace);
            assert.equal(bf.max_tx_size, ogmios.maxTransactionSize.bytes);
            assert.equal(bf.max_block_size, ogmios.maxBlockBodySize.bytes);
            assert.equal(bf.key_deposit, String(ogmios.stakeCredentialDeposit.ada.lovelace));
            assert.equal(bf.pool_deposit, String(ogmios.stakePoolDeposit.ada.lovelace));
            assert.equal(bf.drep_deposit, String(ogmios.delegateRepresentativeDeposit.ada.lovelace));
            assert.equal(bf.gov_action_deposit, String(ogmios.governanceActionDeposit.ada.lovelace));
            assert.equal(bf.coins_per_utxo_size, String(ogmios.minUtxoDepositCoefficient));
            assert.equal(bf.min_fee_ref_script_cost_per_byte, ogmios.minFeeReferenceScripts.base);
            assert.equal(bf.max_tx_ex_mem, String(ogmios.maxExecutionUnitsPerTransaction.memory));
            assert.equal(bf.max_tx_ex_steps, String(ogmios.maxExecutionUnitsPerTransaction.cpu));
            assert.equal(bf.collateral_percent, ogmios.collateralPercentage);
            assert.equal(bf.max_collateral_inputs, ogmios.maxCollateralInputs);
            assert.deepEqual([bf.protocol_major_ver, bf.protocol_minor_ver], [
              ogmios.version.major,
              ogmios.version.minor,
            ]);
            assert.deepEqual(bf.cost_models_raw.PlutusV1, ogmios.plutusCostModels["plutus:v1"]);
            assert.deepEqual(bf.cost_models_raw.PlutusV2, ogmios.plutusCostModels["plutus:v2"]);
            assert.deepEqual(bf.cost_models_raw.PlutusV3, ogmios.plutusCostModels["plutus:v3"]);
          };
          same(p, o);
          if (network === "mainnet") same(p, (await f.get("/api/public/protocol-parameters")).body);

          const first = await f.bf("/epochs/1/parameters", network);
          assertBlockfrostShape("GET", "/epochs/{number}/parameters", first);
          const [one] = await f.query<{ nonce: string }>(
            network,
            `select encode(nonce, 'hex') as nonce from epoch_param where epoch_no = 1`,
          );
          assert.equal(first.body.epoch, 1);
          assert.equal(first.body.nonce, one!.nonce);
          const again = await f.bf(`/epochs/${p.epoch}/parameters`, network);
          assert.deepEqual(again.body, p);

          const beyond = await f.bf(`/epochs/${p.epoch + 1000}/parameters`, network);
          assert.equal(beyond.status, 404);
          assertBlockfrostShape("GET", "/epochs/{number}/parameters", beyond);
          for (const bad of ["x", "-1", "1.5", "99999999999"]) {
            const r = await f.bf(`/epochs/${bad}/parameters`, network);
            assert.equal(r.status, 400, bad);
            assertBlockfrostShape("GET", "/epochs/{number}/parameters", r);
            assert.match(r.body.message, /number/);
          }
        }
      });

      await t.step(
        "blocks: latest, by hash and by number, equal to the explorer's and the rows",
        async () => {
          for (const network of networks) {
            const latest = await f.bf("/blocks/latest", network);
            assertBlockfrostShape("GET", "/blocks/latest", latest);
            const [tip] = await f.query<{ hash: string; block_no: number }>(
              network,
              `select encode(hash, 'hex') as hash, block_no from block where block_no is not null
             order by id desc limit 1`,
            );
            assert.equal(latest.body.hash, tip!.hash);
            assert.equal(latest.body.height, tip!.block_no);
            assert.equal(latest.body.next_block, null);
            assert.equal(latest.body.confirmations, 0);

            const height = 7;
            const byNumber = await f.bf(`/blocks/${height}`, network);
            assertBlockfrostShape("GET", "/blocks/{hash_or_number}", byNumber);
            const b = byNumber.body;
            const byHash = await f.bf(`/blocks/${b.hash}`, network);
            assert.deepEqual(byHash.body, b);
            assert.equal(b.confirmations, tip!.block_no - height);

            const [row] = await f.query<Record<string, string | number | null>>(
              network,
              `select b.slot_no::int as slot, b.epoch_no, b.epoch_slot_no, b.size, b.tx_count::int as tx_count,
                    b.vrf_key, encode(b.op_cert, 'hex') as op_cert, b.op_cert_counter::text as counter,
                    encode(p.hash, 'hex') as previous, encode(n.hash, 'hex') as next, b.time
             from block b left join block p on p.id = b.previous_id left join block n on n.previous_id = b.id
             where b.block_no = $1`,
              height,
            );
            assert.deepEqual(
              [b.slot, b.epoch, b.epoch_slot, b.size, b.tx_count, b.block_vrf, b.op_cert, b.op_cert_counter],
              [
                row!.slot,
                row!.epoch_no,
                row!.epoch_slot_no,
                row!.size,
                row!.tx_count,
                row!.vrf_key,
                row!.op_cert,
                row!
                  .counter,
              ],
            );
            assert.equal(b.previous_block, row!.previous);
            assert.equal(b.next_block, row!.next);
            assert.equal(b.time, seconds(row!.time as unknown as Date));
            const next = await f.bf(`/blocks/${height + 1}`, network);
            assert.equal(next.body.hash, b.next_block);
            assert.equal(next.body.previous_block, b.hash);

            const explorer = (await f.get(`${explorerBase(network)}/block/${b.hash}`)).body;
            assert.equal(b.height, explorer.blockNo);
            assert.equal(b.slot, explorer.slotNo);
            assert.equal(b.epoch, explorer.epochNo);
            assert.equal(b.epoch_slot, explorer.epochSlotNo);
            assert.equal(b.time, seconds(explorer.time));
            assert.equal(b.tx_count, explorer.txCount);
            assert.equal(b.size, explorer.size);
            if (explorer.poolId) assert.equal(b.slot_leader, explorer.poolId);
            if (b.tx_count > 0) {
              assert.equal(b.output, explorer.totalOutput);
              assert.equal(b.fees, explorer.totalFees);
            }
            // the explorer's own answer keeps its fields (the details are Blockfrost's)
            assert.equal(explorer.previousHash, undefined);

            const [empty] = await f.query<{ block_no: number }>(
              network,
              `select block_no from block where block_no is not null and tx_count = 0 order by id limit 1`,
            );
            if (empty) {
              const r = await f.bf(`/blocks/${empty.block_no}`, network);
              assertBlockfrostShape("GET", "/blocks/{hash_or_number}", r);
              assert.equal(r.body.tx_count, 0);
              assert.equal(r.body.output, null);
              assert.equal(r.body.fees, null);
            }

            for (const unknown of [zeros, String(tip!.block_no + 1000)]) {
              const r = await f.bf(`/blocks/${unknown}`, network);
              assert.equal(r.status, 404, unknown);
              assertBlockfrostShape("GET", "/blocks/{hash_or_number}", r);
            }
            for (const bad of ["zz", "abc", zeros.slice(1), "-3"]) {
              const r = await f.bf(`/blocks/${bad}`, network);
              assert.equal(r.status, 400, bad);
              assertBlockfrostShape("GET", "/blocks/{hash_or_number}", r);
            }
          }
        },
      );

      await t.step("block transactions: paged, both orders, equal to the explorer's", async () => {
        for (const network of networks) {
          const [busy] = await f.query<{ hash: string; block_no: number; n: number }>(
            network,
            `select encode(hash, 'hex') as hash, block_no, tx_count::int as n from block
             where block_no is not null and tx_count >= 5 order by id limit 1`,
          );
          assert.ok(busy, "the demo chain has a block with five transactions");
          const rows = await f.query<{ hash: string }>(
            network,
            `select encode(t.hash, 'hex') as hash from tx t join block b on b.id = t.block_id
             where b.block_no = $1 order by t.block_index`,
            busy!.block_no,
          );
          const hashes = rows.map((r) => r.hash);
          const all = await f.bf(`/blocks/${busy!.hash}/txs`, network);
          assertBlockfrostShape("GET", "/blocks/{hash_or_number}/txs", all);
          assert.deepEqual(all.body, hashes);
          const explorer = await f.get(`${explorerBase(network)}/block/${busy!.block_no}/txs?limit=100`);
          assert.deepEqual(all.body, explorer.body.data.map((tx: { hash: string }) => tx.hash));
          const desc = await f.bf(`/blocks/${busy!.block_no}/txs?order=desc`, network);
          assert.deepEqual(desc.body, [...hashes].reverse());
          const page2 = await f.bf(`/blocks/${busy!.block_no}/txs?count=2&page=2`, network);
          assertBlockfrostShape("GET", "/blocks/{hash_or_number}/txs", page2);
          assert.deepEqual(page2.body, hashes.slice(2, 4));
          const page2desc = await f.bf(`/blocks/${busy!.block_no}/txs?count=2&page=2&order=desc`, network);
          assert.deepEqual(page2desc.body, [...hashes].reverse().slice(2, 4));
          const past = await f.bf(`/blocks/${busy!.block_no}/txs?page=2`, network);
          assert.equal(past.status, 200);
          assert.deepEqual(past.body, []);

          const [emptyBlock] = await f.query<{ block_no: number }>(
            network,
            `select block_no from block where block_no is not null and tx_count = 0 order by id limit 1`,
          );
          if (emptyBlock) {
            const none = await f.bf(`/blocks/${emptyBlock.block_no}/txs`, network);
            assertBlockfrostShape("GET", "/blocks/{hash_or_number}/txs", none);
            assert.deepEqual(none.body, []);
          }

          const latest = await f.bf("/blocks/latest/txs", network);
          assertBlockfrostShape("GET", "/blocks/latest/txs", latest);
          const tip = (await f.bf("/blocks/latest", network)).body;
          assert.deepEqual(latest.body, (await f.bf(`/blocks/${tip.hash}/txs`, network)).body);
          const tipRows = await f.query<{ hash: string }>(
            network,
            `select encode(t.hash, 'hex') as hash from tx t join block b on b.id = t.block_id
             where b.hash = decode($1, 'hex') order by t.block_index`,
            tip.hash,
          );
          const tipHashes = tipRows.map((r) => r.hash);
          assert.ok(tipHashes.length >= 1, `the ${network} tip block has no transactions`);
          assert.deepEqual(latest.body, tipHashes);
          // one a page, in both orders, then the page past the end (the seeded tips hold few transactions)
          for (const order of ["asc", "desc"] as const) {
            const expected = order === "asc" ? tipHashes : [...tipHashes].reverse();
            for (let page = 1; page <= tipHashes.length + 1; page++) {
              const r = await f.bf(`/blocks/latest/txs?count=1&page=${page}&order=${order}`, network);
              assert.equal(r.status, 200, `${order} page ${page}`);
              assertBlockfrostShape("GET", "/blocks/latest/txs", r);
              assert.deepEqual(r.body, expected.slice(page - 1, page), `${order} page ${page}`);
            }
          }
          const pastEnd = await f.bf("/blocks/latest/txs?page=2", network);
          assert.equal(pastEnd.status, 200);
          assertBlockfrostShape("GET", "/blocks/latest/txs", pastEnd);
          assert.deepEqual(pastEnd.body, []);
          for (const query of ["count=0", "count=101", "page=0", "order=up", "count=x"]) {
            const r = await f.bf(`/blocks/latest/txs?${query}`, network);
            assert.equal(r.status, 400, query);
            assertBlockfrostShape("GET", "/blocks/latest/txs", r);
            assert.equal(r.body.status_code, 400);
          }

          const unknown = await f.bf(`/blocks/${zeros}/txs`, network);
          assert.equal(unknown.status, 404);
          assertBlockfrostShape("GET", "/blocks/{hash_or_number}/txs", unknown);
          for (const query of ["count=0", "count=101", "page=0", "order=up", "count=x"]) {
            const r = await f.bf(`/blocks/${busy!.block_no}/txs?${query}`, network);
            assert.equal(r.status, 400, query);
            assertBlockfrostShape("GET", "/blocks/{hash_or_number}/txs", r);
          }
          const bad = await f.bf("/blocks/nope/txs", network);
          assert.equal(bad.status, 400);
        }
      });

      await t.step("the current epoch, genesis and eras", async () => {
        for (const network of networks) {
          const epoch = await f.bf("/epochs/latest", network);
          assertBlockfrostShape("GET", "/epochs/latest", epoch);
          const [row] = await f.query<Record<string, string | number>>(
            network,
            `select b.epoch_no, count(*)::int as blocks, sum(b.tx_count)::int as txs,
                    extract(epoch from min(b.time))::int as first, extract(epoch from max(b.time))::int as last,
                    (select coalesce(sum(fee), 0)::text from tx join block x on x.id = tx.block_id
                     where x.epoch_no = b.epoch_no) as fees,
                    (select sum(amount)::text from epoch_stake s where s.epoch_no = b.epoch_no) as active
             from block b where b.block_no is not null
               and b.epoch_no = (select epoch_no from block where block_no is not null order by id desc limit 1)
             group by b.epoch_no`,
          );
          const e = epoch.body;
          assert.deepEqual(
            [
              e.epoch,
              e.block_count,
              e.tx_count,
              e.first_block_time,
              e.last_block_time,
              e.fees,
              e.active_stake,
            ],
            [row!.epoch_no, row!.blocks, row!.txs, row!.first, row!.last, row!.fees, row!.active],
          );
          assert.equal(e.end_time - e.start_time, 432_000);
          assert.ok(e.start_time <= e.first_block_time && e.last_block_time < e.end_time);
          const stats = (await f.get(`${explorerBase(network)}/stats`)).body;
          assert.equal(e.epoch, stats.epochNo);
          assert.equal(e.active_stake, stats.activeStake);

          const genesis = await f.bf("/genesis", network);
          assertBlockfrostShape("GET", "/genesis", genesis);
          const [meta] = await f.query<{ start: Date }>(
            network,
            `select start_time as start from meta limit 1`,
          );
          assert.equal(genesis.body.system_start, seconds(meta!.start));
          assert.equal(genesis.body.network_magic, network === "mainnet" ? 764_824_073 : 1);
          assert.equal(genesis.body.epoch_length, 432_000);
          const startTime = await f.rpc("queryNetwork/startTime", undefined, network);
          assert.equal(genesis.body.system_start, seconds(startTime.body.result));

          const eras = await f.bf("/network/eras", network);
          assertBlockfrostShape("GET", "/network/eras", eras);
          const summaries = (await f.rpc("queryLedgerState/eraSummaries", undefined, network)).body.result;
          assert.equal(eras.body.length, summaries.length);
          eras.body.forEach((era: Record<string, Record<string, number>>, i: number) => {
            const s = summaries[i];
            assert.deepEqual(era.start, {
              time: s.start.time.seconds,
              slot: s.start.slot,
              epoch: s.start.epoch,
            });
            assert.deepEqual(era.end, { time: s.end.time.seconds, slot: s.end.slot, epoch: s.end.epoch });
            assert.equal(era.parameters!.slot_length, s.parameters.slotLength.milliseconds / 1000);
            assert.equal(era.parameters!.epoch_length, s.parameters.epochLength);
          });
        }
      });

      await t.step("network: supply from the latest pots, stake and script-locked value", async () => {
        for (const network of networks) {
          const answer = await f.bf("/network", network);
          assertBlockfrostShape("GET", "/network", answer);
          const { supply, stake } = answer.body;
          const [pots] = await f.query<Record<string, string>>(
            network,
            `select treasury::text, reserves::text, (utxo + rewards)::text as circulating
             from ada_pots order by id desc limit 1`,
          );
          assert.equal(supply.max, "45000000000000000");
          assert.equal(supply.treasury, pots!.treasury);
          assert.equal(supply.reserves, pots!.reserves);
          assert.equal(supply.circulating, pots!.circulating);
          assert.equal(BigInt(supply.total), 45_000_000_000_000_000n - BigInt(pots!.reserves!));
          const [locked] = await f.query<{ locked: string }>(
            network,
            `select coalesce(sum(value), 0)::text as locked from tx_out o
             where address_has_script and consumed_by_tx_id is null
               and not exists (select 1 from tx_in i where i.tx_out_id = o.tx_id and i.tx_out_index = o.index)`,
          );
          assert.equal(supply.locked, locked!.locked);
          const stats = (await f.get(`${explorerBase(network)}/stats`)).body;
          assert.equal(supply.circulating, stats.circulatingSupply);
          assert.equal(supply.treasury, stats.treasury);
          assert.equal(stake.active, stats.activeStake);
          assert.ok(BigInt(stake.live) > 0n);
        }
      });
    } finally {
      await f.close();
    }
  },
});
