/**
 * `npm run cluster -- --check`, the replica part: the instances read the chains through the replica and the
 * primary (two URLs each). While blocks are added to the primary (a copy of the newest row every 500 ms, as
 * db-sync would; streamed to the replica) and requests come through HAProxy (~30 per second: explorer stats and
 * /health), the replica is stopped (pg_ctl stop -m fast), then started again. Checked: no request fails beyond
 * those in flight on the replica when it stopped, every instance's /ready stays 200 (the primary is left), each
 * instance's tip never goes backwards, and the replica is taken back once caught up (the time that takes is
 * printed). Tips through HAProxy never go backwards either: instances poll on their own clocks, but the tip
 * they report is the cluster's, shared through Redis (layers/cluster_tip.ts).
 */
import pg from "pg";
import type { Server } from "./postgres.ts";

/** What this part needs of the running cluster (check.ts's `Cluster` has it). */
export interface ReplicaCluster {
  readonly base: string;
  readonly key: string;
  readonly instances: ReadonlyArray<{ readonly port: number }>;
  readonly primary: Server;
  readonly replica: Server;
}

/** A block after the newest, as db-sync would insert it (no transactions); the cluster bench uses it too. */
export const appendBlock = `
  insert into block (id, hash, epoch_no, slot_no, epoch_slot_no, block_no, previous_id, slot_leader_id, size, time,
                     tx_count, proto_major, proto_minor)
  select id + 1, sha256(hash || '\\x01'::bytea), epoch_no, slot_no + 1, epoch_slot_no + 1, block_no + 1, id,
         slot_leader_id, size, time + interval '1 second', 0, proto_major, proto_minor
  from block where block_no is not null order by id desc limit 1`;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Member {
  readonly location: string;
  readonly state: string;
}

/** The replica's state as `instance` sees it (its mainnet member on the replica's port). */
const replicaState = async (port: number, replicaPort: number): Promise<string> => {
  const response = await fetch(`http://127.0.0.1:${port}/health`);
  const body = await response.json();
  const members: ReadonlyArray<Member> = body.networks?.mainnet?.members ?? [];
  return members.find((m) => m.location.includes(`:${replicaPort}/`))?.state ?? "absent";
};

export const runReplicaChecks = async (
  cluster: ReplicaCluster,
  expect: (ok: boolean, what: string) => void,
): Promise<void> => {
  const { base, key, instances, primary, replica } = cluster;
  const headers = { apikey: key };
  const writer = new pg.Client({ connectionString: primary.url("mainnet") });
  await writer.connect();
  let running = true;
  let written = 0;
  const writing = (async () => {
    while (running) {
      await writer.query(appendBlock);
      written++;
      await sleep(500);
    }
  })();

  /** Each answer's tip, per instance and in the order answered through HAProxy. */
  const byInstance = new Map<string, Array<number>>();
  const throughProxy: Array<number> = [];
  const failed: Array<string> = [];
  let sent = 0;
  let sentWhileOut = 0;
  let replicaOut = false;
  const load = (async () => {
    let i = 0;
    while (running) {
      const stats = i++ % 2 === 0;
      const response = await fetch(`${base}${stats ? "/v2/explorer/mainnet/stats" : "/health"}`, { headers })
        .catch((e) => e);
      sent++;
      if (replicaOut) sentWhileOut++;
      if (!(response instanceof Response)) failed.push(String(response));
      else if (response.status !== 200) {
        failed.push(
          `${response.status} from ${response.headers.get("x-served-by")}: ${await response.text()}`,
        );
      } else {
        const body = await response.json();
        const tip: number | undefined = stats ? body.blockHeight : body.networks?.mainnet?.tip?.blockNo;
        const by = response.headers.get("x-served-by") ?? "?";
        if (tip !== undefined) {
          throughProxy.push(tip);
          byInstance.set(by, [...(byInstance.get(by) ?? []), tip]);
        }
      }
      await sleep(30); // under the FREE key's 100 per second
    }
  })();
  let notReady = 0;
  let readyProbes = 0;
  const probing = (async () => {
    while (running) {
      for (const instance of instances) {
        const response = await fetch(`http://127.0.0.1:${instance.port}/ready`).catch(() => undefined);
        readyProbes++;
        if (response?.status !== 200) notReady++;
        await response?.body?.cancel();
      }
      await sleep(200);
    }
  })();

  const everyInstance = async (state: string, timeoutMs: number) => {
    const until = performance.now() + timeoutMs;
    while (performance.now() < until) {
      const states = await Promise.all(
        instances.map((i) => replicaState(i.port, replica.port).catch(() => "?")),
      );
      if (states.every((s) => s === state)) return true;
      await sleep(100);
    }
    return false;
  };

  await sleep(2_000);
  expect(await everyInstance("in use", 10_000), "every instance reads through the replica before it stops");
  const stoppedAt = performance.now();
  replicaOut = true;
  await replica.stop();
  const seenDown = await everyInstance("down", 10_000);
  const downAfter = (performance.now() - stoppedAt) / 1000;
  expect(seenDown, `every instance took the stopped replica out within ${downAfter.toFixed(1)} s`);
  await sleep(5_000);
  const startedAt = performance.now();
  await replica.start();
  const back = await everyInstance("in use", 60_000);
  const recovery = (performance.now() - startedAt) / 1000;
  replicaOut = false;
  expect(back, `the replica, started again, was taken back by every instance ${recovery.toFixed(1)} s later`);
  await sleep(2_000);
  running = false;
  await Promise.all([writing, load, probing]);
  await writer.end();

  const backwards = (tips: ReadonlyArray<number>) => tips.filter((t, i) => i > 0 && t < tips[i - 1]!).length;
  expect(
    failed.length === 0,
    `${sent} requests (${sentWhileOut} while the replica was out), ${written} blocks added: ${failed.length} failed ${
      JSON.stringify(failed.slice(0, 3))
    }`,
  );
  expect(notReady === 0, `each instance's /ready: ${readyProbes} probes, ${notReady} not 200`);
  const perInstance = [...byInstance].map(([name, tips]) =>
    `${name} ${tips.length} answers, ${backwards(tips)} back`
  );
  expect(
    [...byInstance.values()].every((tips) => backwards(tips) === 0),
    `no instance's tip went backwards (${perInstance.join("; ")})`,
  );
  expect(
    backwards(throughProxy) === 0,
    `through HAProxy: ${throughProxy.length} tips from ${throughProxy[0]} to ${throughProxy.at(-1)}, ${
      backwards(throughProxy)
    } lower than the answer before (the tip is shared through Redis)`,
  );
};
