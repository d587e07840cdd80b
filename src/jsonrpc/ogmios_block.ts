/**
 * Ogmios v6 block JSON (cardano.json Block, Transaction; shared/notes/ogmios.md §4) from db-sync rows.
 *
 * What db-sync does not keep, and what we write instead (each allowed by the schema):
 * - issuer.verificationKey: db-sync keeps only the pool id (the key's hash), not the key: 64 zeros. Derive block
 *   producers from db-sync (slot_leader) instead of hashing this field.
 * - issuer.operationalCertificate: `count` is op_cert_counter and `kes.verificationKey` is db-sync's op_cert (the
 *   hot KES key); the certificate's KES `period` is not kept: 0. `sigma` and `leaderValue` (VRF output and proof)
 *   are not kept and are omitted (the schema makes them optional). `nonce` (pre-Babbage only) is omitted.
 * - signatories (witnesses) are not kept: always `[]`. Witness `scripts` and `datums` are not listed (db-sync
 *   records a script or datum once, under the first transaction that showed it).
 * - metadata.hash: db-sync keeps each label's metadatum CBOR but not the auxiliary data's bytes; the hash is
 *   blake2b-256 of the Shelley-form auxiliary data rebuilt from them (a map of the labels in order), which is the
 *   on-chain hash for transactions that used that form. Labels carry both `cbor` (exact) and, where db-sync
 *   rendered it, `json` (cardano-node's no-schema JSON).
 * - A phase-2 failed transaction (`spends: "collaterals"`): db-sync keeps only what the ledger applied, so
 *   `inputs` and `outputs` are `[]`, `collaterals` are the consumed collateral inputs, `collateralReturn` the
 *   stored return output and `fee` the collateral taken.
 * - collateralReturn of a valid transaction: present when it holds only ada (db-sync keeps its tokens as text).
 * - network, scriptIntegrityHash, totalCollateral and the body's current treasury value are not kept: omitted.
 *   Votes are listed (db-sync keeps them, minus the ones it marks invalid), and proposals with their action
 *   rebuilt from the ledger JSON db-sync keeps (src/domain/ogmios_governance.ts).
 * - Byron blocks: db-sync keeps no Byron header keys; they are written as 128 zeros, protocol id 0.
 */
import { blake2b } from "@noble/hashes/blake2.js";
import { bech32, hex } from "@scure/base";
import { cborHead } from "@src/queries/transaction.ts";
import { decimalLess } from "@src/domain/decimal_ids.ts";
import type {
  CertificateRow,
  ChainBatch,
  ChainBlockRow,
  ChainTxRow,
  OutputRow,
  PoolRegistrationRow,
  ProposalRow,
  ReferenceRow,
  VoteRow,
} from "@src/queries/chain_blocks.ts";
import { ogmiosProposal } from "@src/domain/ogmios_governance.ts";
import { stringify as json } from "@src/domain/json.ts";
import { outputFields } from "./methods/utxo.ts";
import { toStakePoolView } from "./methods/stake_pools.ts";

const zeros = (n: number) => "0".repeat(n);

export const eraOf = (protocolMajor: number): string =>
  protocolMajor < 2
    ? "byron"
    : ["shelley", "allegra", "mary", "alonzo", "alonzo", "babbage", "babbage"][protocolMajor - 2] ?? "conway";

/** A bech32 VRF key (vrf_vk1…) as hex; undefined when it does not decode. */
const vrfKeyHex = (text: string | null): string | undefined => {
  if (!text) return undefined;
  try {
    const { words } = bech32.decode(text as `${string}1${string}`, 1023);
    return hex.encode(bech32.fromWords(words));
  } catch {
    return undefined;
  }
};

/** JSON.rawJSON (V8): written by JSON.stringify as the given text, unquoted. */
const rawJSON = (JSON as unknown as { rawJSON: (text: string) => unknown }).rawJSON;

/**
 * An integer PostgreSQL wrote as text (numeric, bigint: digits, maybe a sign), kept as that text and written as a
 * JSON number, exact at any size: no BigInt to parse and print again per value (the block's many lovelace
 * amounts and quantities cost the service more as BigInt, and more again through toJSON while stringified).
 */
const int = (digits: string): unknown => rawJSON(digits);

const ada = (lovelace: string) => ({ ada: { lovelace: int(lovelace) } });

/** A stake address' bytes (hex, header first) as a credential: its hash, and whether it is a script. */
const credentialOf = (stakeAddress: string) => ({
  credential: stakeAddress.slice(2),
  from: (parseInt(stakeAddress.slice(0, 2), 16) & 0x10) !== 0 ? "script" : "verificationKey",
});

const drepOf = (c: CertificateRow) =>
  c.drepRaw === null
    ? { type: c.drepView === "drep_always_no_confidence" ? "noConfidence" : "abstain" }
    : { type: "registered", id: c.drepRaw, from: c.drepScript ? "script" : "verificationKey" };

const anchorOf = (c: CertificateRow) =>
  c.anchorUrl !== null && c.anchorHash !== null ? { url: c.anchorUrl, hash: c.anchorHash } : undefined;

/** The certificates of one cert_index (Conway combined certificates are several db-sync rows) in Ogmios' form. */
const certificatesAt = (
  rows: ReadonlyArray<CertificateRow>,
  pools: ReadonlyMap<string, PoolRegistrationRow>,
) => {
  const out: Array<unknown> = [];
  const of = (kind: CertificateRow["kind"]) => rows.find((r) => r.kind === kind);
  const registration = of("registration");
  if (registration) {
    out.push({
      type: "stakeCredentialRegistration",
      ...credentialOf(registration.stakeAddress!),
      ...(registration.deposit === null ? {} : { deposit: ada(registration.deposit) }),
    });
  }
  const delegation = of("delegation");
  const vote = of("voteDelegation");
  if (delegation || vote) {
    out.push({
      type: "stakeDelegation",
      ...credentialOf((delegation ?? vote)!.stakeAddress!),
      ...(delegation ? { stakePool: { id: delegation.pool } } : {}),
      ...(vote ? { delegateRepresentative: drepOf(vote) } : {}),
    });
  }
  const deregistration = of("deregistration");
  if (deregistration) {
    out.push({ type: "stakeCredentialDeregistration", ...credentialOf(deregistration.stakeAddress!) });
  }
  for (const r of rows) {
    if (r.kind === "poolRegistration") {
      const pool = pools.get(r.pool!);
      if (pool) out.push({ type: "stakePoolRegistration", stakePool: toStakePoolView(pool) });
    } else if (r.kind === "poolRetirement") {
      out.push({ type: "stakePoolRetirement", stakePool: { id: r.pool, retirementEpoch: r.epoch } });
    } else if (r.kind === "committeeDelegation") {
      out.push({
        type: "constitutionalCommitteeDelegation",
        member: { id: r.drepRaw, from: r.drepScript ? "script" : "verificationKey" },
        delegate: { status: "authorized", id: r.hotRaw, from: r.hotScript ? "script" : "verificationKey" },
      });
    } else if (r.kind === "committeeRetirement") {
      const anchor = anchorOf(r);
      out.push({
        type: "constitutionalCommitteeRetirement",
        member: { id: r.drepRaw, from: r.drepScript ? "script" : "verificationKey" },
        ...(anchor ? { metadata: anchor } : {}),
      });
    } else if (r.kind === "drep") {
      const drep = drepOf(r);
      const anchor = anchorOf(r);
      if (r.deposit === null) {
        out.push({
          type: "delegateRepresentativeUpdate",
          delegateRepresentative: drep,
          metadata: anchor ?? null,
        });
      } else if (r.deposit.startsWith("-")) {
        out.push({
          type: "delegateRepresentativeRetirement",
          delegateRepresentative: drep,
          deposit: ada(r.deposit.slice(1)),
        });
      } else {
        out.push({
          type: "delegateRepresentativeRegistration",
          delegateRepresentative: drep,
          deposit: ada(r.deposit),
          ...(anchor ? { metadata: anchor } : {}),
        });
      }
    }
  }
  return out;
};

const hexToBytes = (h: string) => hex.decode(h);

/** blake2b-256 of the Shelley-form auxiliary data: a CBOR map from label to metadatum, in the stored order. */
const metadataHash = (labels: ReadonlyArray<{ label: string; cbor: string }>): string => {
  const parts: Array<Uint8Array> = [Uint8Array.from(cborHead(5, labels.length))];
  for (const l of labels) parts.push(Uint8Array.from(cborHead(0, l.label)), hexToBytes(l.cbor));
  const bytes = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    bytes.set(p, at);
    at += p.length;
  }
  return hex.encode(blake2b(bytes, { dkLen: 32 }));
};

const purposes: Readonly<Record<string, string>> = {
  spend: "spend",
  mint: "mint",
  cert: "publish",
  reward: "withdraw",
  voting: "vote",
  proposing: "propose",
};

/** Rows grouped by `key` (by default the transaction id), each group in the order the rows came. */
const byTx = <A extends { readonly txId: string }>(rows: ReadonlyArray<A>) => byKey(rows, (r) => r.txId);

const noRows: ReadonlyArray<never> = [];

/**
 * Each id's rows, for ids asked in ascending order (a batch's transactions, each asked of every row kind once):
 * rows ordered by their key (as the statements write them) are handed out in one walk, with no map of groups
 * (a map per kind and a lookup per transaction and kind cost a tenth of chain sync's CPU). Rows out of order, or
 * an id asked out of order, are served from a map instead.
 */
const byKey = <A>(rows: ReadonlyArray<A>, key: (row: A) => string): (id: string) => ReadonlyArray<A> => {
  // most kinds (votes, proposals, references, …) have no row in a batch: asked for every transaction all the same
  if (rows.length === 0) return () => noRows;
  let ordered = true;
  for (let i = 1; i < rows.length && ordered; i++) ordered = !decimalLess(key(rows[i]!), key(rows[i - 1]!));
  let grouped: ((id: string) => ReadonlyArray<A>) | undefined = ordered ? undefined : groupedByKey(rows, key);
  let next = 0;
  let lastId: string | undefined = undefined;
  let lastRows: ReadonlyArray<A> = noRows;
  return (id: string): ReadonlyArray<A> => {
    if (grouped) return grouped(id);
    if (id === lastId) return lastRows;
    if (lastId !== undefined && decimalLess(id, lastId)) return (grouped = groupedByKey(rows, key))(id);
    lastId = id;
    while (next < rows.length && decimalLess(key(rows[next]!), id)) next++;
    const start = next;
    while (next < rows.length && key(rows[next]!) === id) next++;
    return lastRows = start === next ? noRows : rows.slice(start, next);
  };
};

/** Rows grouped by `key` in a map, each group in the order the rows came. */
const groupedByKey = <A>(rows: ReadonlyArray<A>, key: (row: A) => string) => {
  const groups = new Map<string, Array<A>>();
  for (const r of rows) {
    const k = key(r);
    const g = groups.get(k);
    if (g) g.push(r);
    else groups.set(k, [r]);
  }
  return (id: string): ReadonlyArray<A> => groups.get(id) ?? noRows;
};

/**
 * An output as methods/utxo.ts's toOgmiosOutput writes it (the same JSON), with its amounts kept as PostgreSQL's
 * text; a token listed twice in one output (db-sync does not, but the sum is what the ledger holds) is summed.
 */
const toOutput = (row: OutputRow) => {
  const value: Record<string, Record<string, unknown>> = { ada: { lovelace: int(row.value) } };
  const assets = row.assets;
  if (assets !== null) {
    for (const a of assets) {
      const policy = (value[a.policy] ??= {});
      const before = policy[a.name];
      policy[a.name] = before === undefined
        ? int(a.quantity)
        : int((BigInt((before as { rawJSON: string }).rawJSON) + BigInt(a.quantity)).toString());
    }
  }
  return outputFields(row, value);
};

const roles = {
  ConstitutionalCommittee: "constitutionalCommittee",
  DRep: "delegateRepresentative",
  SPO: "stakePoolOperator",
} as const;

const toVote = (v: VoteRow) => ({
  issuer: v.role === "SPO"
    ? { role: roles.SPO, id: v.voter }
    : { role: roles[v.role], id: v.voter, from: v.voterScript ? "script" : "verificationKey" },
  ...(v.anchorUrl !== null && v.anchorHash !== null
    ? { metadata: { url: v.anchorUrl, hash: v.anchorHash } }
    : {}),
  vote: v.vote.toLowerCase(),
  proposal: { transaction: { id: v.proposalTx }, index: v.proposalIndex },
});

/** A proposal in Ogmios' shape; one whose stored JSON cannot be read is left out rather than stop the sync. */
const toProposal = (p: ProposalRow): Array<unknown> => {
  try {
    return [ogmiosProposal({
      deposit: p.deposit,
      returnAccount: p.returnAccount,
      anchor: p.anchorUrl !== null && p.anchorHash !== null ? { url: p.anchorUrl, hash: p.anchorHash } : null,
      description: JSON.parse(p.description),
    })];
  } catch {
    return [];
  }
};

/** A JSON string of text that may need escaping (addresses come from db-sync as text). */
const quoted = (text: string) => JSON.stringify(text);

/** A hash or other hex column as JSON: hex needs no escaping; a missing one (a dangling reference) is null. */
const hexText = (h: string | null) => (h === null ? "null" : `"${h}"`);

/**
 * A ledger set of output references as JSON: ordered by transaction id, then index (sorts `rows`, a group of
 * byTx's), written directly (the busiest list of a block after the outputs).
 */
const referenceSetText = (rows: ReadonlyArray<ReferenceRow>) => {
  const sorted = (rows as Array<ReferenceRow>).sort((a, b) =>
    a.ref < b.ref ? -1 : a.ref > b.ref ? 1 : a.index - b.index
  );
  let text = "[";
  for (let i = 0; i < sorted.length; i++) {
    const r = sorted[i]!;
    text += `${i === 0 ? "" : ","}{"transaction":{"id":${hexText(r.ref)}},"index":${r.index}}`;
  }
  return text + "]";
};

/**
 * An output's JSON: an ada-only output without a script (most of them) written directly, as toOutput's object
 * would be written; one with tokens or a script through toOutput (token sums and the script's clause form).
 */
const outputText = (row: OutputRow) => {
  if (row.scriptType !== null) return json(toOutput(row));
  const datum = row.inlineDatum
    ? `,"datum":"${row.inlineDatum}"`
    : row.dataHash
    ? `,"datumHash":"${row.dataHash}"`
    : "";
  return `{"address":${quoted(row.address)},"value":{"ada":{"lovelace":${row.value}}${
    row.assets === null ? "" : tokensText(row.assets)
  }}${datum}}`;
};

/**
 * An output's tokens as the keys after `ada` in its value, as toOutput's object writes them: grouped in an
 * object per policy (so in the same key order: JSON.stringify's), a token listed twice summed.
 */
const tokensText = (assets: NonNullable<OutputRow["assets"]>) => {
  const value: Record<string, Record<string, string>> = {};
  for (const a of assets) {
    const policy = (value[a.policy] ??= {});
    const before = policy[a.name];
    policy[a.name] = before === undefined ? a.quantity : (BigInt(before) + BigInt(a.quantity)).toString();
  }
  let text = "";
  for (const policy in value) {
    const names = value[policy]!;
    let first = true;
    text += `,"${policy}":{`;
    for (const name in names) {
      text += `${first ? "" : ","}"${name}":${names[name]}`;
      first = false;
    }
    text += "}";
  }
  return text;
};

const outputsText = (rows: ReadonlyArray<OutputRow>) => {
  let text = "[";
  for (let i = 0; i < rows.length; i++) text += (i === 0 ? "" : ",") + outputText(rows[i]!);
  return text + "]";
};

/**
 * Turns a batch of rows into Ogmios blocks, in chain order, each as its JSON text (integers exact): the busy
 * parts (transactions, their inputs and outputs) written directly, the rarer ones (certificates, governance,
 * metadata) through `stringify` of their objects (exact for a pool registration's bigints). A block is written once, when its batch is read, and a
 * nextBlock reply splices the text in (no object graph per block kept alive, nor walked again per reply).
 */
export const ogmiosBlockTexts = (batch: ChainBatch): Array<string> => {
  const txsOf = byKey(batch.transactions, (t) => t.blockId);
  const inputsOf = byTx(batch.inputs);
  const referencesOf = byTx(batch.references);
  const collateralsOf = byTx(batch.collaterals);
  const returnsOf = byTx(batch.collateralReturns);
  const outputsOf = byTx(batch.outputs);
  const certificatesOf = byTx(batch.certificates);
  const withdrawalsOf = byTx(batch.withdrawals);
  const mintsOf = byTx(batch.mints);
  const metadataOf = byTx(batch.metadata);
  const signersOf = byTx(batch.signers);
  const redeemersOf = byTx(batch.redeemers);
  const votesOf = byTx(batch.votes);
  const proposalsOf = byTx(batch.proposals);
  const pools = new Map(batch.pools.map((p) => [p.updateId, p]));

  /** One transaction's JSON, its keys in Ogmios' order, each only when present. */
  const transaction = (t: ChainTxRow) => {
    const valid = t.validContract;
    const outputs = outputsOf(t.id);
    let text = `{"id":"${t.hash}","spends":"${valid ? "inputs" : "collaterals"}","inputs":${
      valid ? referenceSetText(inputsOf(t.id)) : "[]"
    }`;
    const references = referencesOf(t.id);
    if (references.length > 0) text += `,"references":${referenceSetText(references)}`;
    const collaterals = valid ? collateralsOf(t.id) : inputsOf(t.id);
    if (collaterals.length > 0) text += `,"collaterals":${referenceSetText(collaterals)}`;
    if (valid) {
      const r = returnsOf(t.id).find((r) => r.assetsText === "fromList []");
      if (r) {
        text += `,"collateralReturn":${
          json({
            address: r.address,
            value: ada(r.value),
            ...(r.dataHash ? { datumHash: r.dataHash } : {}),
          })
        }`;
      }
    } else if (outputs.length > 0) text += `,"collateralReturn":${outputText(outputs[0]!)}`;
    text += `,"outputs":${valid ? outputsText(outputs) : "[]"}`;
    const certRows = certificatesOf(t.id);
    if (certRows.length > 0) {
      const certificates: Array<unknown> = [];
      for (let i = 0; i < certRows.length;) {
        let j = i;
        while (j < certRows.length && certRows[j]!.certIndex === certRows[i]!.certIndex) j++;
        certificates.push(...certificatesAt(certRows.slice(i, j), pools));
        i = j;
      }
      if (certificates.length > 0) text += `,"certificates":${json(certificates)}`;
    }
    const withdrawals = withdrawalsOf(t.id);
    if (withdrawals.length > 0) {
      text += `,"withdrawals":${
        json(Object.fromEntries(withdrawals.map((w) => [w.stakeAddress, ada(w.amount)])))
      }`;
    }
    text += `,"fee":{"ada":{"lovelace":${t.fee}}},"validityInterval":{`;
    if (t.invalidBefore !== null) {
      text += `"invalidBefore":${t.invalidBefore}${t.invalidHereafter !== null ? "," : ""}`;
    }
    if (t.invalidHereafter !== null) text += `"invalidAfter":${t.invalidHereafter}`;
    text += "}";
    const mints = mintsOf(t.id);
    if (mints.length > 0) {
      const mint: Record<string, Record<string, unknown>> = {};
      for (const m of mints) (mint[m.policy] ??= {})[m.name] = int(m.quantity);
      text += `,"mint":${json(mint)}`;
    }
    const signers = signersOf(t.id);
    if (signers.length > 0) {
      text += `,"requiredExtraSignatories":${json(signers.map((s) => s.hash))}`;
    }
    const proposalRows = proposalsOf(t.id);
    if (proposalRows.length > 0) {
      const proposals = proposalRows.flatMap(toProposal);
      if (proposals.length > 0) text += `,"proposals":${json(proposals)}`;
    }
    const votes = votesOf(t.id);
    if (votes.length > 0) text += `,"votes":${json(votes.map(toVote))}`;
    const donation = t.treasuryDonation;
    if (donation !== "0" && BigInt(donation) > 0n) {
      text += `,"treasury":{"donation":{"ada":{"lovelace":${donation}}}}`;
    }
    const labels = metadataOf(t.id);
    if (labels.length > 0) {
      text += `,"metadata":${
        json({
          hash: metadataHash(labels),
          labels: Object.fromEntries(
            labels.map((l) => [l.label, { cbor: l.cbor, ...(l.json === null ? {} : { json: l.json }) }]),
          ),
        })
      }`;
    }
    text += `,"signatories":[]`;
    const redeemers = redeemersOf(t.id);
    if (redeemers.length > 0) {
      text += `,"redeemers":${
        json(redeemers.map((r) => ({
          validator: { purpose: purposes[r.purpose] ?? r.purpose, index: r.index },
          redeemer: r.data,
          executionUnits: { memory: int(r.memory), cpu: int(r.cpu) },
        })))
      }`;
    }
    return text + "}";
  };

  /** The block's transactions as a JSON array: joined once, one flat string rather than a chain of pieces. */
  const transactionsText = (b: ChainBlockRow) => `[${txsOf(b.id).map(transaction).join(",")}]`;

  /** The header's JSON with the transactions as its last key (JSON.stringify writes keys in insertion order). */
  const withTransactions = (header: unknown, b: ChainBlockRow) =>
    `${json(header).slice(0, -1)},"transactions":${transactionsText(b)}}`;

  const block = (b: ChainBlockRow) => {
    if (b.protoMajor < 2) {
      if (b.height === null || b.slot === null) {
        return json({
          type: "ebb",
          era: "byron",
          id: b.hash,
          ancestor: b.ancestor ?? zeros(64),
          height: b.height ?? 0,
        });
      }
      return withTransactions({
        type: "bft",
        era: "byron",
        id: b.hash,
        ancestor: b.ancestor ?? zeros(64),
        height: b.height,
        slot: int(b.slot),
        size: { bytes: b.size },
        protocol: {
          id: 0,
          version: { major: b.protoMajor, minor: b.protoMinor },
          software: { appName: "cardano-sl", number: 0 },
        },
        issuer: { verificationKey: zeros(128) },
        delegate: { verificationKey: zeros(128) },
      }, b);
    }
    return withTransactions({
      type: "praos",
      era: eraOf(b.protoMajor),
      id: b.hash,
      ancestor: b.ancestor ?? "genesis",
      height: b.height ?? 0,
      slot: int(b.slot ?? "0"),
      size: { bytes: b.size },
      protocol: { version: { major: b.protoMajor, minor: b.protoMinor } },
      issuer: {
        verificationKey: zeros(64),
        vrfVerificationKey: vrfKeyHex(b.vrfKey) ?? zeros(64),
        operationalCertificate: {
          count: int(b.opCertCounter ?? "0"),
          kes: { period: 0, verificationKey: b.opCert ?? "" },
        },
        leaderValue: {},
      },
    }, b);
  };

  return batch.blocks.map(block);
};
