/** `queryLedgerState/protocolParameters`: the parameters in force, in Ogmios' shape (cached an hour). */
import { protocolParameters } from "@src/programs/protocol_parameters.ts";
import type { MethodProgram } from "../method.ts";

export const protocolParametersMethod: MethodProgram = (network) => protocolParameters(network);
