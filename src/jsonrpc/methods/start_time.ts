/** `queryNetwork/startTime`: the network's system start (genesis), as an ISO-8601 UTC date-time. */
import { Effect } from "effect";
import { networkStartTime } from "@src/programs/ledger/start_time.ts";
import type { MethodProgram } from "../method.ts";

export const startTime: MethodProgram = (network) =>
  Effect.map(networkStartTime(network), (start) => start.toISOString().replace(".000Z", "Z"));
