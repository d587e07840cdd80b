/** `queryLedgerState/epoch`: the current epoch number (a bare integer, as Ogmios answers). */
import { currentEpoch } from "@src/programs/ledger/epoch.ts";
import type { MethodProgram } from "../method.ts";

export const epoch: MethodProgram = (network) => currentEpoch(network);
