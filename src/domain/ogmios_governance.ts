/**
 * Governance proposals in Ogmios v6's JSON (cardano.json GovernanceProposal, GovernanceAction), from the ledger's
 * JSON of the action that db-sync keeps in gov_action_proposal.description: ancestors as {transaction, index},
 * ratios as "n/d", reward accounts in bech32, parameter updates under Ogmios' names (ProposedProtocolParameters).
 */
import { bech32, hex } from "@scure/base";

type LedgerJson = Record<string, unknown>;

const gcd = (a: bigint, b: bigint): bigint => (b === 0n ? a : gcd(b, a % b));

/** A ledger ratio (a decimal number, or {numerator, denominator}) as Ogmios' "n/d". */
export const ogmiosRatio = (value: unknown): string => {
  let [n, d] = [0n, 1n];
  if (typeof value === "number") {
    const [whole, fraction = ""] = String(value).split(".");
    if (/e/i.test(String(value))) [n, d] = [BigInt(Math.round(value * 1e12)), 10n ** 12n];
    else [n, d] = [BigInt(whole! + fraction), 10n ** BigInt(fraction.length)];
  } else if (value && typeof value === "object") {
    const r = value as { numerator: number; denominator: number };
    [n, d] = [BigInt(r.numerator), BigInt(r.denominator)];
  }
  const g = gcd(n < 0n ? -n : n, d) || 1n;
  return `${n / g}/${d / g}`;
};

const ada = (lovelace: unknown) => ({ ada: { lovelace: BigInt(lovelace as number) } });
const bytes = (n: unknown) => ({ bytes: Number(n) });

/** A reward account of the ledger's JSON ({network, credential}) in bech32. */
export const rewardAccountBech32 = (account: unknown): string => {
  const a = account as { network: string; credential: { keyHash?: string; scriptHash?: string } };
  const mainnet = a.network === "Mainnet";
  const header = (a.credential.scriptHash ? 0xf0 : 0xe0) | (mainnet ? 1 : 0);
  const raw = Uint8Array.from([header, ...hex.decode(a.credential.scriptHash ?? a.credential.keyHash!)]);
  return bech32.encode(mainnet ? "stake" : "stake_test", bech32.toWords(raw), 1023);
};

const credential = (c: { keyHash?: string; scriptHash?: string }) => ({
  id: (c.scriptHash ?? c.keyHash)!,
  from: c.scriptHash ? "script" : "verificationKey",
});

const ancestor = (a: unknown) => {
  const id = a as { txId: string; govActionIx: number } | null;
  return id ? { ancestor: { transaction: { id: id.txId }, index: id.govActionIx } } : {};
};

const guardrails = (hash: unknown) => (typeof hash === "string" ? { hash } : null);

const poolThresholds = (t: LedgerJson) => ({
  noConfidence: ogmiosRatio(t.motionNoConfidence),
  constitutionalCommittee: {
    default: ogmiosRatio(t.committeeNormal),
    stateOfNoConfidence: ogmiosRatio(t.committeeNoConfidence),
  },
  hardForkInitiation: ogmiosRatio(t.hardForkInitiation),
  protocolParametersUpdate: { security: ogmiosRatio(t.ppSecurityGroup) },
});

const drepThresholds = (t: LedgerJson) => ({
  noConfidence: ogmiosRatio(t.motionNoConfidence),
  constitutionalCommittee: {
    default: ogmiosRatio(t.committeeNormal),
    stateOfNoConfidence: ogmiosRatio(t.committeeNoConfidence),
  },
  constitution: ogmiosRatio(t.updateToConstitution),
  hardForkInitiation: ogmiosRatio(t.hardForkInitiation),
  protocolParametersUpdate: {
    network: ogmiosRatio(t.ppNetworkGroup),
    economic: ogmiosRatio(t.ppEconomicGroup),
    technical: ogmiosRatio(t.ppTechnicalGroup),
    governance: ogmiosRatio(t.ppGovGroup),
  },
  treasuryWithdrawals: ogmiosRatio(t.treasuryWithdrawal),
});

const units = (u: unknown) => {
  const x = u as { memory: number; steps: number };
  return { memory: BigInt(x.memory), cpu: BigInt(x.steps) };
};

/** The ledger's parameter names and how Ogmios shows each. */
const parameters: Readonly<Record<string, (v: unknown) => [string, unknown]>> = {
  txFeePerByte: (v) => ["minFeeCoefficient", BigInt(v as number)],
  txFeeFixed: (v) => ["minFeeConstant", ada(v)],
  maxBlockBodySize: (v) => ["maxBlockBodySize", bytes(v)],
  maxTxSize: (v) => ["maxTransactionSize", bytes(v)],
  maxBlockHeaderSize: (v) => ["maxBlockHeaderSize", bytes(v)],
  stakeAddressDeposit: (v) => ["stakeCredentialDeposit", ada(v)],
  stakePoolDeposit: (v) => ["stakePoolDeposit", ada(v)],
  poolRetireMaxEpoch: (v) => ["stakePoolRetirementEpochBound", BigInt(v as number)],
  stakePoolTargetNum: (v) => ["desiredNumberOfStakePools", Number(v)],
  poolPledgeInfluence: (v) => ["stakePoolPledgeInfluence", ogmiosRatio(v)],
  monetaryExpansion: (v) => ["monetaryExpansion", ogmiosRatio(v)],
  treasuryCut: (v) => ["treasuryExpansion", ogmiosRatio(v)],
  minPoolCost: (v) => ["minStakePoolCost", ada(v)],
  utxoCostPerByte: (v) => ["minUtxoDepositCoefficient", BigInt(v as number)],
  costModels: (v) => [
    "plutusCostModels",
    Object.fromEntries(
      Object.entries(v as Record<string, Array<number>>).map(([k, c]) => [
        `plutus:${k.replace("PlutusV", "v")}`,
        c.map(BigInt),
      ]),
    ),
  ],
  executionUnitPrices: (v) => {
    const p = v as { priceMemory: unknown; priceSteps: unknown };
    return ["scriptExecutionPrices", { memory: ogmiosRatio(p.priceMemory), cpu: ogmiosRatio(p.priceSteps) }];
  },
  maxTxExecutionUnits: (v) => ["maxExecutionUnitsPerTransaction", units(v)],
  maxBlockExecutionUnits: (v) => ["maxExecutionUnitsPerBlock", units(v)],
  maxValueSize: (v) => ["maxValueSize", bytes(v)],
  collateralPercentage: (v) => ["collateralPercentage", Number(v)],
  maxCollateralInputs: (v) => ["maxCollateralInputs", Number(v)],
  poolVotingThresholds: (v) => ["stakePoolVotingThresholds", poolThresholds(v as LedgerJson)],
  dRepVotingThresholds: (v) => ["delegateRepresentativeVotingThresholds", drepThresholds(v as LedgerJson)],
  committeeMinSize: (v) => ["constitutionalCommitteeMinSize", Number(v)],
  committeeMaxTermLength: (v) => ["constitutionalCommitteeMaxTermLength", BigInt(v as number)],
  govActionLifetime: (v) => ["governanceActionLifetime", Number(v)],
  govActionDeposit: (v) => ["governanceActionDeposit", ada(v)],
  dRepDeposit: (v) => ["delegateRepresentativeDeposit", ada(v)],
  dRepActivity: (v) => ["delegateRepresentativeMaxIdleTime", Number(v)],
};

/** The [account, lovelace] pairs of a withdrawals map; the demo chain writes a single pair unwrapped. */
const withdrawalPairs = (map: unknown): Array<[unknown, number]> => {
  const list = Array.isArray(map) ? map : [];
  return (list.length > 0 && !Array.isArray(list[0]) ? [list] : list) as Array<[unknown, number]>;
};

/** A governance action from the ledger's JSON of it (gov_action_proposal.description). */
export const ogmiosGovernanceAction = (description: unknown): unknown => {
  const d = description as { tag: string; contents?: unknown };
  const c = (Array.isArray(d.contents) ? d.contents : [d.contents]) as Array<unknown>;
  switch (d.tag) {
    case "ParameterChange":
      return {
        type: "protocolParametersUpdate",
        ...ancestor(c[0]),
        parameters: Object.fromEntries(
          Object.entries((c[1] ?? {}) as LedgerJson).flatMap((
            [k, v],
          ) => (parameters[k] ? [parameters[k]!(v)] : [])),
        ),
        guardrails: guardrails(c[2]),
      };
    case "HardForkInitiation": {
      const v = c[1] as { major: number; minor: number };
      return { type: "hardForkInitiation", ...ancestor(c[0]), version: { major: v.major, minor: v.minor } };
    }
    case "TreasuryWithdrawals":
      return {
        type: "treasuryWithdrawals",
        withdrawals: Object.fromEntries(
          withdrawalPairs(c[0]).map(([account, amount]) => [rewardAccountBech32(account), ada(amount)]),
        ),
        guardrails: guardrails(c[1]),
      };
    case "NoConfidence":
      return { type: "noConfidence", ...ancestor(c[0]) };
    case "UpdateCommittee":
      return {
        type: "constitutionalCommittee",
        ...ancestor(c[0]),
        members: {
          added: Object.entries((c[2] ?? {}) as Record<string, number>).map(([k, epoch]) => {
            const [kind, hash] = k.split("-") as [string, string];
            return {
              id: hash,
              from: kind === "scriptHash" ? "script" : "verificationKey",
              mandate: { epoch },
            };
          }),
          removed: ((c[1] ?? []) as Array<{ keyHash?: string; scriptHash?: string }>).map(credential),
        },
        quorum: ogmiosRatio(c[3]),
      };
    case "NewConstitution": {
      const constitution = c[1] as { anchor: { url: string; dataHash: string }; script?: string };
      return {
        type: "constitution",
        ...ancestor(c[0]),
        metadata: { url: constitution.anchor.url, hash: constitution.anchor.dataHash },
        guardrails: guardrails(constitution.script),
      };
    }
    default:
      return { type: "information" };
  }
};

/** A proposal (cardano.json GovernanceProposal). */
export const ogmiosProposal = (p: {
  readonly deposit: bigint | string;
  readonly returnAccount: string;
  readonly anchor: { readonly url: string; readonly hash: string } | null;
  readonly description: unknown;
}) => ({
  deposit: ada(p.deposit),
  returnAccount: p.returnAccount,
  ...(p.anchor ? { metadata: { url: p.anchor.url, hash: p.anchor.hash } } : {}),
  action: ogmiosGovernanceAction(p.description),
});
