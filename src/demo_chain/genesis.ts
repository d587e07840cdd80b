/** The genesis block: slot leaders, the genesis outputs that fund the chain, the reserves, and the cost model. */
import costModels from "./cost_models.json" with { type: "json" };
import * as enc from "./cardano_encoding.ts";
import type { Ledger } from "./ledger.ts";
import { ada } from "./network_params.ts";
import { maxSupply } from "@src/domain/network_constants.ts";
import { b, j, utc } from "./row_values.ts";

export const writeGenesis = (ledger: Ledger) => {
  const genesisLeader = ledger.id("slot_leader");
  const genesisHash = ledger.r.hex(32);
  ledger.row("slot_leader", [genesisLeader, b(genesisHash.slice(0, 56)), null, "Genesis slot leader"]);
  for (let g = 0; g < 7; g++) {
    const id = ledger.id("slot_leader");
    const hash = ledger.r.hex(28);
    ledger.row("slot_leader", [id, b(hash), null, `ShelleyGenesis-${hash.slice(0, 16)}`]);
    ledger.genesisLeaders.push(id);
  }
  ledger.blockId = ledger.id("block");
  const genesisOutputs = 40;
  const each = 850_000_000 * ada;
  for (let g = 0; g < genesisOutputs; g++) {
    const payment = ledger.r.hex(28);
    ledger.genesisAddresses.push(
      ledger.addAddress(enc.enterpriseAddress(ledger.net.networkId, payment, false), payment, false, -1, -1),
    );
  }
  for (let g = 0; g < genesisOutputs; g++) {
    const txId = ledger.id("tx");
    ledger.txHash[txId] = ledger.r.hex(32);
    ledger.writeOutput(txId, 0, { address: ledger.genesisAddresses[g]!, value: each });
    ledger.row("tx", [
      txId,
      b(ledger.txHash[txId]!),
      ledger.blockId,
      g,
      each,
      0,
      0,
      0,
      null,
      null,
      true,
      0,
      0,
    ]);
  }
  ledger.row("block", [
    ledger.blockId,
    b(genesisHash),
    null,
    null,
    null,
    null,
    null,
    genesisLeader,
    0,
    utc(ledger.net.systemStart),
    genesisOutputs,
    0,
    0,
    null,
    null,
    null,
  ]);
  ledger.reserves = maxSupply - BigInt(genesisOutputs) * BigInt(each);
  ledger.costModelId = ledger.id("cost_model");
  const costsText = JSON.stringify(costModels);
  ledger.row("cost_model", [
    ledger.costModelId,
    j(costModels),
    b(enc.blake2b256(new TextEncoder().encode(costsText))),
  ]);
  ledger.row("epoch_sync_enabled", [true, true]);
};
