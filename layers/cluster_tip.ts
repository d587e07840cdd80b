/**
 * The tip several instances report together, through Redis (REDIS_URL): at each tip poll (once a second, never
 * per request) an instance publishes its own view of a network's tip (the lowest of its members in use) under
 * its instance id, with the Redis clock's time, and reads back the cluster tip: the lowest view published within
 * `liveMs`, never below the cluster tip reported before (kept in Redis too). One Lua script, one round trip.
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
/** Both keys go once no instance polls for this long. */
const keepMs = 3_600_000;
const answerWithin = "500 millis";

// KEYS: views (hash id -> "height|at|point"), tip ("height|point"); ARGV: id, height, point, rolled back, liveMs, keepMs
const script = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local id, height, point = ARGV[1], tonumber(ARGV[2]), ARGV[3]
local rolled, live, keep = ARGV[4] == '1', tonumber(ARGV[5]), tonumber(ARGV[6])
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
local tipHeight, tipPoint = nil, nil
local saved = redis.call('GET', KEYS[2])
if saved then
  local h, p = string.match(saved, '^(-?%d+)|(.*)$')
  tipHeight, tipPoint = tonumber(h), p
end
local reset = rolled or others == 0 or tipHeight == nil
if reset or height >= tipHeight then
  redis.call('HSET', KEYS[1], id, height .. '|' .. now .. '|' .. point)
  if low == nil or height < low then low, lowPoint = height, point end
else
  redis.call('HDEL', KEYS[1], id)
end
if reset or low > tipHeight then tipHeight, tipPoint = low, lowPoint end
redis.call('SET', KEYS[2], tipHeight .. '|' .. tipPoint, 'PX', keep)
redis.call('PEXPIRE', KEYS[1], keep)
return tipPoint
`;

export interface ClusterTip {
  /**
   * Publishes `own` (this instance's view) and answers the cluster tip; fails when Redis does not answer
   * (the caller then reports its own view).
   */
  readonly share: (
    network: Network,
    own: PointRow,
    rolledBack: boolean,
  ) => Effect.Effect<PointRow, Error>;
}

/** Keys under `<prefix>:tip:<network>`; `instance` names this process among those sharing the prefix. */
export const makeClusterTip = (redis: Redis, prefix: string, instance: string): ClusterTip => ({
  share: (network, own, rolledBack) =>
    Effect.tryPromise({
      try: () =>
        redis.eval(
          script,
          2,
          `${prefix}:tip:${network}:views`,
          `${prefix}:tip:${network}`,
          instance,
          String(own.height ?? -1),
          JSON.stringify(own),
          rolledBack ? "1" : "0",
          String(liveMs),
          String(keepMs),
        ),
      catch: (cause) => new Error(`Redis: ${cause instanceof Error ? cause.message : String(cause)}`),
    }).pipe(
      Effect.map((answer) => JSON.parse(String(answer)) as PointRow),
      Effect.timeoutFail({
        duration: answerWithin,
        onTimeout: () => new Error("Redis: no answer within 500 ms"),
      }),
    ),
});
