/**
 * The tip several instances report together, through Redis (REDIS_URL): at each tip poll (once a second, never
 * per request) an instance publishes its own view of a network's tip (the lowest of its members in use) under
 * its instance id, with the Redis clock's time, and reads back the cluster tip: the lowest view published within
 * `liveMs`, never below the cluster tip reported before (kept in Redis too). One Lua script, one round trip.
 * Instances poll on their own clocks, so a raised tip does not take effect at once (some would report it a
 * second before the others): it is scheduled `switchMs` ahead, longer than the gap between two polls, and every
 * instance, having learnt it by then, switches at that moment (Redis's clock, offset to each instance's).
 * An instance whose view is below the cluster tip (one joining, or whose members fell behind) does not count
 * until it has caught up: counting it would pull the tip back for every client (capping it at the cluster tip
 * instead would not keep its answers from going back: its database cannot serve up to that tip). Meanwhile it
 * reports the cluster tip and is out of rotation (chain_tips.ts posts it on the board: /ready 503), so no client
 * sees the tip go back. A rollback (an instance's own view going back) resets the cluster tip to that view.
 */
import { Effect } from "effect";
import type { Redis } from "ioredis";
import type { Network } from "@schemas/network.ts";
import type { PointRow } from "@src/queries/chain_blocks.ts";

/** A view older than this no longer counts (its instance stopped, or cannot reach Redis). */
const liveMs = 3_000;
/** A raised tip takes effect this long after it is decided: longer than any instance's gap between polls. */
const switchMs = 2_000;
/** Both keys go once no instance polls for this long. */
const keepMs = 3_600_000;
const answerWithin = "500 millis";

// KEYS: views (hash id -> "height|at|point"), tip (JSON {eh, ep, ph, pp, pat}: effective and pending height and
// point, when the pending one takes effect); ARGV: id, height, point, rolled back, liveMs, switchMs, keepMs
const script = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local id, height, point = ARGV[1], tonumber(ARGV[2]), ARGV[3]
local rolled, live, switch, keep = ARGV[4] == '1', tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[7])
local low, lowPoint, others = nil, nil, 0
local all = redis.call('HGETALL', KEYS[1])
for i = 1, #all, 2 do
  local h, at, p = string.match(all[i + 1], '^(-?%d+)|(%d+)|(.*)$')
  if all[i] ~= id then
    if tonumber(at) < now - live then
      redis.call('HDEL', KEYS[1], all[i])
    else
      others = others + 1
      if low == nil or tonumber(h) < low then low, lowPoint = tonumber(h), p end
    end
  end
end
local saved = redis.call('GET', KEYS[2])
local s = saved and cjson.decode(saved) or nil
if s and s.pat and now >= s.pat then s = { eh = s.ph, ep = s.pp } end
local reset = rolled or others == 0 or s == nil
if reset or height >= (s.ph or s.eh) then
  redis.call('HSET', KEYS[1], id, height .. '|' .. now .. '|' .. point)
  if low == nil or height < low then low, lowPoint = height, point end
else
  redis.call('HDEL', KEYS[1], id)
end
if reset then
  s = { eh = low, ep = lowPoint }
elseif s.pat == nil and low > s.eh then
  s.ph, s.pp, s.pat = low, lowPoint, now + switch
end
redis.call('SET', KEYS[2], cjson.encode(s), 'PX', keep)
redis.call('PEXPIRE', KEYS[1], keep)
return cjson.encode({ effective = s.ep, pending = s.pp, at = s.pat, now = now })
`;

/** The cluster tip now, and the next one with when it takes effect (this instance's clock, epoch ms). */
export interface SharedTip {
  readonly effective: PointRow;
  readonly pending?: { readonly tip: PointRow; readonly at: number };
}

export interface ClusterTip {
  /**
   * Publishes `own` (this instance's view) and answers the cluster tip; fails when Redis does not answer
   * (the caller then reports its own view).
   */
  readonly share: (network: Network, own: PointRow, rolledBack: boolean) => Effect.Effect<SharedTip, Error>;
}

/** Keys under `<prefix>:tip:<network>`; `instance` names this process among those sharing the prefix. */
export const makeClusterTip = (redis: Redis, prefix: string, instance: string): ClusterTip => ({
  share: (network, own, rolledBack) =>
    Effect.tryPromise({
      try: async () => {
        const sent = Date.now();
        const answer = await redis.eval(
          script,
          2,
          `${prefix}:tip:${network}:views`,
          `${prefix}:tip:${network}`,
          instance,
          String(own.height ?? -1),
          JSON.stringify(own),
          rolledBack ? "1" : "0",
          String(liveMs),
          String(switchMs),
          String(keepMs),
        );
        const got = JSON.parse(String(answer)) as {
          effective: string;
          pending?: string;
          at?: number;
          now: number;
        };
        // Redis's clock to ours: its `now` was read about halfway through the round trip
        const offset = (sent + Date.now()) / 2 - got.now;
        return {
          effective: JSON.parse(got.effective) as PointRow,
          ...(got.pending === undefined || got.at === undefined
            ? {}
            : { pending: { tip: JSON.parse(got.pending) as PointRow, at: got.at + offset } }),
        } satisfies SharedTip;
      },
      catch: (cause) => new Error(`Redis: ${cause instanceof Error ? cause.message : String(cause)}`),
    }).pipe(
      Effect.timeoutFail({
        duration: answerWithin,
        onTimeout: () => new Error("Redis: no answer within 500 ms"),
      }),
    ),
});
