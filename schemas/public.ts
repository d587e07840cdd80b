/** Responses of the `/api/public/*` endpoints (spec: Public REST endpoints). */
import { Schema } from "effect";
import { DateTime, Lovelace } from "./primitives.ts";

export const TxStatus = Schema.Struct({
  found: Schema.Boolean,
  blockNo: Schema.NullOr(Schema.Int),
  blockTime: Schema.NullOr(DateTime),
  confirmations: Schema.NullOr(Schema.Int),
  fee: Schema.optional(Lovelace),
}).annotations({ identifier: "TxStatus" });
export type TxStatus = typeof TxStatus.Type;
