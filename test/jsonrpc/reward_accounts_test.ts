/**
 * `queryLedgerState/rewardAccountSummaries`: registered accounts only, each with its pool, DRep, spendable rewards
 * and deposit equal to an independent computation over db-sync; every credential form; Ogmios' schema.
 */
import assert from "node:assert/strict";
import { startRestFixture } from "../support/rest.ts";
import { assertMatchesOgmiosSchema } from "../support/ogmios_schema.ts";

Deno.test({
  name: "queryLedgerState/rewardAccountSummaries",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async (t) => {
    const f = await startRestFixture("reward_accounts");
    try {
      const accounts = await f.query<
        { view: string; cred: string; withdrew: boolean; deregistered: boolean }
      >(
        "mainnet",
        `(select s.view, encode(substring(s.hash_raw from 2), 'hex') as cred, true as withdrew, false as deregistered
          from stake_address s where exists (select 1 from withdrawal w where w.addr_id = s.id)
            and not exists (select 1 from stake_deregistration d where d.addr_id = s.id) limit 3)
         union all
         (select s.view, encode(substring(s.hash_raw from 2), 'hex'), false, true from stake_address s
          where (select max(tx_id) from stake_deregistration d where d.addr_id = s.id)
              > (select max(tx_id) from stake_registration r where r.addr_id = s.id) limit 2)
         union all
         (select s.view, encode(substring(s.hash_raw from 2), 'hex'), false, false from stake_address s
          join delegation_vote v on v.addr_id = s.id
          where not exists (select 1 from stake_deregistration d where d.addr_id = s.id) limit 3)`,
      );

      await t.step("registered accounts with pool, DRep, rewards and deposit as db-sync says", async () => {
        const r = await f.rpc("queryLedgerState/rewardAccountSummaries", {
          keys: accounts.map((a) => a.cred),
        });
        assert.equal(r.status, 200, JSON.stringify(r.body));
        await assertMatchesOgmiosSchema(
          "ogmios.json#/properties/QueryLedgerStateRewardAccountSummariesResponse",
          r.body,
        );
        const byCredential = new Map(r.body.result.map((s: { credential: string }) => [s.credential, s]));
        for (const a of accounts) {
          // deno-lint-ignore no-explicit-any
          const summary = byCredential.get(a.cred) as any;
          if (a.deregistered) {
            assert.equal(summary, undefined, `${a.view} is deregistered`);
            continue;
          }
          assert.ok(summary, a.view);
          const [expected] = await f.query<{ rewards: string; pool: string | null }>(
            "mainnet",
            `with s as (select id from stake_address where view = $1), e as (select max(epoch_no) as n from block)
             select ((select coalesce(sum(amount), 0) from reward, e where addr_id = (select id from s) and spendable_epoch <= e.n)
                   + (select coalesce(sum(amount), 0) from reward_rest, e where addr_id = (select id from s) and spendable_epoch <= e.n)
                   - (select coalesce(sum(amount), 0) from withdrawal where addr_id = (select id from s)))::text as rewards,
                    (select case when exists (
                              -- the ledger drops a delegation to a pool that retired after it
                              select 1 from pool_retire r where r.hash_id = p.id and r.announced_tx_id > d.tx_id
                                and r.retiring_epoch <= (select n from e)
                                and not exists (select 1 from pool_update u where u.hash_id = p.id
                                                and u.registered_tx_id > r.announced_tx_id))
                            then null else p.view end
                     from delegation d join pool_hash p on p.id = d.pool_hash_id
                     where d.addr_id = (select id from s) order by d.tx_id desc, d.cert_index desc limit 1) as pool`,
            a.view,
          );
          assert.equal(String(summary.rewards.ada.lovelace), expected!.rewards, a.view);
          assert.equal(summary.stakePool?.id ?? null, expected!.pool, a.view);
          assert.equal(summary.deposit.ada.lovelace, 2_000_000);
          assert.equal(summary.from, "verificationKey");
        }
        assert.ok(
          r.body.result.some((s: { delegateRepresentative?: unknown }) =>
            s.delegateRepresentative !== undefined
          ),
          "some accounts delegate their votes",
        );
      });

      await t.step("stake addresses and stake_vkh bech32 name the same accounts", async () => {
        const a = accounts.find((x) => !x.deregistered)!;
        const { bech32, hex } = await import("@scure/base");
        const vkh = bech32.encode("stake_vkh", bech32.toWords(hex.decode(a.cred)));
        const byAddress = await f.rpc("queryLedgerState/rewardAccountSummaries", { keys: [a.view] });
        const byBech32 = await f.rpc("queryLedgerState/rewardAccountSummaries", { keys: [vkh] });
        assert.deepEqual(byAddress.body.result, byBech32.body.result);
        assert.equal(byAddress.body.result.length, 1);
      });

      await t.step("bad credentials: -32602", async () => {
        for (
          const params of [{}, { keys: "x" }, { keys: ["zz"] }, { keys: ["stake1notvalid"] }, { keys: [7] }]
        ) {
          const r = await f.rpc("queryLedgerState/rewardAccountSummaries", params);
          assert.equal(r.body.error?.code, -32602, JSON.stringify(params));
        }
      });
    } finally {
      await f.close();
    }
  },
});
