/**
 * Governance transactions: DRep certificates with their CIP-119 metadata, governance action proposals, and DRep
 * votes on them.
 */
import * as enc from "./cardano_encoding.ts";
import type { Ledger } from "./ledger.ts";
import type { Proposal } from "./ledger_types.ts";
import { ada, givenNames, nouns, protocol } from "./network_params.ts";
import { b, hexText, j } from "./row_values.ts";
import { writeTx } from "./tx_writer.ts";

export const drepCertificate = (
  ledger: Ledger,
  d: number,
  kind: "register" | "update" | "deregister",
): boolean => {
  const drep = ledger.dreps[d]!;
  const deposit = kind === "register"
    ? protocol.drepDeposit
    : kind === "deregister"
    ? -protocol.drepDeposit
    : 0;
  const inputs = ledger.takeInputs(Math.max(0, deposit) + 5 * ada);
  if (inputs.length === 0) return false;
  return writeTx(ledger, {
    inputs,
    outputs: [],
    changeTo: ledger.wallets[drep.wallet]!.address,
    size: 500 + 110 * inputs.length,
    deposit,
    certs: (txId, c) => {
      let anchorId: number | null = null;
      if (kind !== "deregister" && ledger.r.chance(0.85)) anchorId = drepMetadata(ledger, d);
      ledger.row("drep_registration", [
        ledger.id("drep_registration"),
        txId,
        c.cert++,
        deposit === 0 ? null : deposit,
        drep.id,
        anchorId,
      ]);
      drep.registered = kind !== "deregister";
      drep.everRegistered = true;
      drep.lastActive = ledger.epoch;
      ledger.depositsDrep += BigInt(deposit);
      ledger.worldVersion++;
    },
  }) > 0;
};

/** CIP-119 metadata as db-sync's off-chain fetcher stores it: anchor, the document, and the extracted fields. */
const drepMetadata = (ledger: Ledger, d: number): number => {
  const givenName = `${ledger.r.pick(givenNames)} ${ledger.r.pick(nouns)}`;
  const body = {
    givenName,
    revision: `${ledger.epoch}.${ledger.blockId}`,
    objectives: `Keep ${ledger.net.network} governance ${
      ledger.r.pick(["transparent", "steady", "open", "frugal"])
    }.`,
    motivations: "Demo DRep on a generated chain.",
    qualifications: `${ledger.r.int(2, 15)} years in distributed systems.`,
    paymentAddress: ledger.addrText[ledger.wallets[ledger.dreps[d]!.wallet]!.address],
  };
  const doc = {
    "@context": {
      "@language": "en-us",
      CIP100: "https://github.com/cardano-foundation/CIPs/blob/master/CIP-0100/README.md#",
      CIP119: "https://github.com/cardano-foundation/CIPs/blob/master/CIP-0119/README.md#",
    },
    hashAlgorithm: "blake2b-256",
    body,
  };
  const text = JSON.stringify(doc);
  const hash = enc.blake2b256(new TextEncoder().encode(text));
  const anchorId = ledger.id("voting_anchor");
  ledger.row("voting_anchor", [
    anchorId,
    `https://dreps.demo.invalid/${ledger.dreps[d]!.hash.slice(0, 16)}.jsonld`,
    b(hash),
    "drep",
    ledger.blockId,
  ]);
  const dataId = ledger.id("off_chain_vote_data");
  ledger.row("off_chain_vote_data", [
    dataId,
    anchorId,
    b(hash),
    j(doc),
    b(hexText(text)),
    null,
    "en-us",
    null,
    true,
  ]);
  ledger.row("off_chain_vote_drep_data", [
    ledger.id("off_chain_vote_drep_data"),
    dataId,
    body.paymentAddress,
    givenName,
    body.objectives,
    body.motivations,
    body.qualifications,
    null,
    null,
  ]);
  return anchorId;
};

export const proposal = (ledger: Ledger, type: Proposal["type"]): boolean => {
  const w = ledger.wallets.findIndex((x, i) =>
    x.registered && i !== ledger.exchangeWallet && ledger.r.chance(0.05)
  );
  if (w < 0) return false;
  const inputs = ledger.takeInputs(protocol.govActionDeposit + 10 * ada);
  if (inputs.length === 0) return false;
  const beneficiary = ledger.wallets.findIndex((x) => x.registered);
  return writeTx(ledger, {
    inputs,
    outputs: [],
    changeTo: ledger.wallets[w]!.address,
    size: 900 + 110 * inputs.length,
    deposit: protocol.govActionDeposit,
    extra: (txId) => {
      const anchorId = ledger.id("voting_anchor");
      const text = JSON.stringify({
        body: { title: `${type} ${ledger.proposals.length + 1}`, abstract: "A demo governance action." },
      });
      ledger.row("voting_anchor", [
        anchorId,
        `https://gov.demo.invalid/${txId}.jsonld`,
        b(enc.blake2b256(new TextEncoder().encode(text))),
        "gov_action",
        ledger.blockId,
      ]);
      const id = ledger.id("gov_action_proposal");
      const amount = 1_000_000 * ada;
      const enactAt = type === "TreasuryWithdrawals" ? ledger.epoch + 3 : null;
      const description = type === "TreasuryWithdrawals"
        ? {
          tag: "TreasuryWithdrawals",
          contents: [[{
            credential: { keyHash: ledger.wallets[beneficiary]!.stake },
            network: ledger.net.networkId === 1 ? "Mainnet" : "Testnet",
          }, amount], null],
        }
        : { tag: "InfoAction" };
      ledger.row("gov_action_proposal", [
        id,
        txId,
        0,
        null,
        protocol.govActionDeposit,
        ledger.stakeAddressId(w),
        ledger.epoch + protocol.govActionLifetime,
        anchorId,
        type,
        j(description),
        null,
        enactAt === null ? null : enactAt - 1,
        enactAt,
        null,
        null,
      ]);
      ledger.proposals.push({
        id,
        type,
        epoch: ledger.epoch,
        returnWallet: w,
        deposit: protocol.govActionDeposit,
        enactAt,
        amount,
        beneficiary,
      });
      ledger.depositsProposal += BigInt(protocol.govActionDeposit);
    },
  }) > 0;
};

export const vote = (ledger: Ledger): boolean => {
  const open = ledger.proposals.filter((p) => p.enactAt === null || p.enactAt > ledger.epoch);
  const voters = ledger.dreps.filter((d, i) => i >= 2 && d.registered);
  if (open.length === 0 || voters.length === 0) return false;
  const inputs = ledger.takeInputs(3 * ada);
  if (inputs.length === 0) return false;
  const drep = ledger.r.pick(voters);
  const chosen = open.filter(() => ledger.r.chance(0.7));
  if (chosen.length === 0) chosen.push(open[0]!);
  return writeTx(ledger, {
    inputs,
    outputs: [],
    changeTo: ledger.wallets[drep.wallet]!.address,
    size: 300 + 110 * inputs.length + 60 * chosen.length,
    extra: (txId) => {
      chosen.forEach((p, index) => {
        const vote = p.type === "TreasuryWithdrawals"
          ? (ledger.r.chance(0.85) ? "Yes" : "Abstain")
          : ledger.r.pick(["Yes", "No", "Abstain"]);
        ledger.row("voting_procedure", [
          ledger.id("voting_procedure"),
          txId,
          index,
          p.id,
          "DRep",
          drep.id,
          null,
          vote,
          null,
          null,
          null,
        ]);
      });
      drep.lastActive = ledger.epoch;
    },
  }) > 0;
};
