/**
 * db-sync's `epoch_param` in Ogmios v6's ProtocolParameters shape (schemas/reference/ogmios/cardano.json):
 * lovelace as `{ada: {lovelace}}`, sizes as `{bytes}`, ratios as "n/d" strings, cost models keyed `plutus:vN`.
 * Integers that can pass 2^53 are bigints, written as exact JSON numbers by the JSON-RPC encoder.
 */
import { toRatio } from "./ratio.ts";

/** db-sync's `epoch_param` row with its cost models, as src/queries/protocol_parameters.ts reads it. */
export interface EpochParamRow {
  readonly epochNo: number;
  readonly minFeeA: number;
  readonly minFeeB: number;
  readonly maxBlockSize: number;
  readonly maxTxSize: number;
  readonly maxBhSize: number;
  readonly keyDeposit: string;
  readonly poolDeposit: string;
  readonly maxEpoch: number;
  readonly optimalPoolCount: number;
  readonly influence: number;
  readonly monetaryExpandRate: number;
  readonly treasuryGrowthRate: number;
  readonly protocolMajor: number;
  readonly protocolMinor: number;
  readonly minPoolCost: string;
  readonly coinsPerUtxoSize: string | null;
  readonly priceMem: number | null;
  readonly priceStep: number | null;
  readonly maxTxExMem: string | null;
  readonly maxTxExSteps: string | null;
  readonly maxBlockExMem: string | null;
  readonly maxBlockExSteps: string | null;
  readonly maxValSize: string | null;
  readonly collateralPercent: number | null;
  readonly maxCollateralInputs: number | null;
  readonly pvtMotionNoConfidence: number | null;
  readonly pvtCommitteeNormal: number | null;
  readonly pvtCommitteeNoConfidence: number | null;
  readonly pvtHardForkInitiation: number | null;
  readonly pvtppSecurityGroup: number | null;
  readonly dvtMotionNoConfidence: number | null;
  readonly dvtCommitteeNormal: number | null;
  readonly dvtCommitteeNoConfidence: number | null;
  readonly dvtUpdateToConstitution: number | null;
  readonly dvtHardForkInitiation: number | null;
  readonly dvtPPNetworkGroup: number | null;
  readonly dvtPPEconomicGroup: number | null;
  readonly dvtPPTechnicalGroup: number | null;
  readonly dvtPPGovGroup: number | null;
  readonly dvtTreasuryWithdrawal: number | null;
  readonly committeeMinSize: string | null;
  readonly committeeMaxTermLength: string | null;
  readonly govActionLifetime: string | null;
  readonly govActionDeposit: string | null;
  readonly drepDeposit: string | null;
  readonly drepActivity: string | null;
  readonly minFeeRefScriptCostPerByte: number | null;
  readonly costs: Readonly<Record<string, unknown>> | null;
  readonly decentralisation: number;
  /** Hex, null when none was set (the neutral nonce). */
  readonly extraEntropy: string | null;
  /** Shelley-era minimum UTxO value (deprecated since Alonzo: coinsPerUtxoSize). */
  readonly minUtxoValue: string;
  /** The epoch nonce, hex; null when db-sync did not record it. */
  readonly nonce: string | null;
}

const lovelace = (text: string | null) => ({ ada: { lovelace: BigInt(text ?? "0") } });
const int = (text: string | null) => (text === null ? 0 : Number(text));
const big = (text: string | null) => BigInt(text ?? "0");
const ratio = (value: number | null) => toRatio(value ?? 0);

/** Conway's reference-script fee: the per-byte base from the parameters, and the ledger's fixed tiering. */
const referenceScriptTier = { range: 25_600, multiplier: 1.2 };
/** Conway's fixed limit on reference scripts per transaction (a ledger constant, not an epoch parameter). */
const maxReferenceScriptsSize = 204_800;

/** db-sync stores cost models as arrays in ledger order; older versions as name → value maps (sorted by name). */
export const costModelValues = (model: unknown): Array<number> =>
  Array.isArray(model) ? model.map(Number) : Object.entries((model ?? {}) as Record<string, unknown>).sort((
    [a],
    [b],
  ) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([, v]) => Number(v));

export const toOgmiosProtocolParameters = (p: EpochParamRow) => {
  const costs = (p.costs ?? {}) as Record<string, unknown>;
  const plutusCostModels: Record<string, Array<number>> = {};
  for (
    const [name, key] of [["PlutusV1", "plutus:v1"], ["PlutusV2", "plutus:v2"], ["PlutusV3", "plutus:v3"]]
  ) {
    if (costs[name!] !== undefined) plutusCostModels[key!] = costModelValues(costs[name!]);
  }
  return {
    minFeeCoefficient: p.minFeeA,
    minFeeConstant: { ada: { lovelace: BigInt(p.minFeeB) } },
    minFeeReferenceScripts: { ...referenceScriptTier, base: p.minFeeRefScriptCostPerByte ?? 0 },
    maxBlockBodySize: { bytes: p.maxBlockSize },
    maxBlockHeaderSize: { bytes: p.maxBhSize },
    maxTransactionSize: { bytes: p.maxTxSize },
    maxReferenceScriptsSize: { bytes: maxReferenceScriptsSize },
    stakeCredentialDeposit: lovelace(p.keyDeposit),
    stakePoolDeposit: lovelace(p.poolDeposit),
    stakePoolRetirementEpochBound: p.maxEpoch,
    desiredNumberOfStakePools: p.optimalPoolCount,
    stakePoolPledgeInfluence: toRatio(p.influence),
    monetaryExpansion: toRatio(p.monetaryExpandRate),
    treasuryExpansion: toRatio(p.treasuryGrowthRate),
    minStakePoolCost: lovelace(p.minPoolCost),
    minUtxoDepositConstant: { ada: { lovelace: 0n } },
    minUtxoDepositCoefficient: int(p.coinsPerUtxoSize),
    plutusCostModels,
    scriptExecutionPrices: { memory: ratio(p.priceMem), cpu: ratio(p.priceStep) },
    maxExecutionUnitsPerTransaction: { memory: big(p.maxTxExMem), cpu: big(p.maxTxExSteps) },
    maxExecutionUnitsPerBlock: { memory: big(p.maxBlockExMem), cpu: big(p.maxBlockExSteps) },
    maxValueSize: { bytes: int(p.maxValSize) },
    collateralPercentage: p.collateralPercent ?? 0,
    maxCollateralInputs: p.maxCollateralInputs ?? 0,
    version: { major: p.protocolMajor, minor: p.protocolMinor },
    stakePoolVotingThresholds: {
      noConfidence: ratio(p.pvtMotionNoConfidence),
      constitutionalCommittee: {
        default: ratio(p.pvtCommitteeNormal),
        stateOfNoConfidence: ratio(p.pvtCommitteeNoConfidence),
      },
      hardForkInitiation: ratio(p.pvtHardForkInitiation),
      protocolParametersUpdate: { security: ratio(p.pvtppSecurityGroup) },
    },
    delegateRepresentativeVotingThresholds: {
      noConfidence: ratio(p.dvtMotionNoConfidence),
      constitutionalCommittee: {
        default: ratio(p.dvtCommitteeNormal),
        stateOfNoConfidence: ratio(p.dvtCommitteeNoConfidence),
      },
      constitution: ratio(p.dvtUpdateToConstitution),
      hardForkInitiation: ratio(p.dvtHardForkInitiation),
      protocolParametersUpdate: {
        network: ratio(p.dvtPPNetworkGroup),
        economic: ratio(p.dvtPPEconomicGroup),
        technical: ratio(p.dvtPPTechnicalGroup),
        governance: ratio(p.dvtPPGovGroup),
      },
      treasuryWithdrawals: ratio(p.dvtTreasuryWithdrawal),
    },
    constitutionalCommitteeMinSize: int(p.committeeMinSize),
    constitutionalCommitteeMaxTermLength: int(p.committeeMaxTermLength),
    governanceActionLifetime: int(p.govActionLifetime),
    governanceActionDeposit: lovelace(p.govActionDeposit),
    delegateRepresentativeDeposit: lovelace(p.drepDeposit),
    delegateRepresentativeMaxIdleTime: int(p.drepActivity),
  };
};

export type OgmiosProtocolParameters = ReturnType<typeof toOgmiosProtocolParameters>;
