/** `queryLedgerState/protocolParameters`: the parameters in force, in Ogmios' shape (cached an hour). */
import { Effect } from "effect";
import { protocolParameters } from "@src/programs/protocol_parameters.ts";
import type { MethodProgram } from "../method.ts";
import { errors } from "../frame.ts";

export const protocolParametersMethod: MethodProgram = (network) =>
  protocolParameters(network).pipe(
    Effect.catchTags({
      NotFoundError: (e) => Effect.fail({ code: 2002, message: e.message }),
      DatabaseUnavailable: (e) => Effect.fail(errors.internal(`chain database: ${e.message}`)),
    }),
  );
