/**
 * Protocol parameters in Ogmios v6's `ProtocolParameters` shape (Ogmios' cardano.json, definitions
 * ProtocolParameters and the types it names), as `/api/public/protocol-parameters` serves them from db-sync or
 * relays them from an Ogmios upstream. Required are the members Ogmios requires; the rest are era-dependent.
 */
import { Schema } from "effect";

/**
 * An integer that may pass 2^53 (execution units, cost-model entries): a number or a bigint here, an exact JSON
 * number on the wire (src/domain/json.ts writes bigints unquoted).
 */
const integer = (minimum?: number) =>
  Schema.Union(Schema.Number, Schema.BigIntFromSelf).annotations({
    jsonSchema: minimum === undefined ? { type: "integer" } : { type: "integer", minimum },
  });
const UInt = integer(0);

const Ratio = Schema.String.pipe(Schema.pattern(/^-?[0-9]+\/[0-9]+$/)).annotations({
  description: 'An exact fraction "numerator/denominator", e.g. "3/10"',
});
const Lovelace = Schema.Struct({ ada: Schema.Struct({ lovelace: integer(0) }) }).annotations({
  description: "An amount of ada, in lovelace",
});
const Bytes = Schema.Struct({ bytes: UInt });
const ExecutionUnits = Schema.Struct({ memory: UInt, cpu: UInt });
const committee = Schema.Struct({ default: Ratio, stateOfNoConfidence: Ratio });

export const ProtocolParameters = Schema.Struct({
  minFeeCoefficient: UInt,
  minFeeConstant: Lovelace,
  minFeeReferenceScripts: Schema.optional(
    Schema.Struct({ range: UInt, base: Schema.Number, multiplier: Schema.Number }),
  ),
  minUtxoDepositCoefficient: UInt,
  minUtxoDepositConstant: Lovelace,
  maxBlockBodySize: Bytes,
  maxBlockHeaderSize: Bytes,
  maxTransactionSize: Schema.optional(Bytes),
  maxValueSize: Schema.optional(Bytes),
  extraEntropy: Schema.optional(Schema.String),
  stakeCredentialDeposit: Lovelace,
  stakePoolDeposit: Lovelace,
  stakePoolRetirementEpochBound: UInt,
  stakePoolPledgeInfluence: Ratio,
  minStakePoolCost: Lovelace,
  desiredNumberOfStakePools: UInt,
  federatedBlockProductionRatio: Schema.optional(Ratio),
  monetaryExpansion: Ratio,
  treasuryExpansion: Ratio,
  collateralPercentage: Schema.optional(UInt),
  maxCollateralInputs: Schema.optional(UInt),
  plutusCostModels: Schema.optional(
    Schema.Record({
      key: Schema.Literal("plutus:v1", "plutus:v2", "plutus:v3"),
      value: Schema.Array(integer()),
    })
      .annotations({ description: "Cost models by language, each in the ledger's parameter order" }),
  ),
  scriptExecutionPrices: Schema.optional(Schema.Struct({ memory: Ratio, cpu: Ratio })),
  maxExecutionUnitsPerTransaction: Schema.optional(ExecutionUnits),
  maxExecutionUnitsPerBlock: Schema.optional(ExecutionUnits),
  maxReferenceScriptsSize: Schema.optional(Bytes),
  stakePoolVotingThresholds: Schema.optional(Schema.Struct({
    noConfidence: Ratio,
    constitutionalCommittee: committee,
    hardForkInitiation: Ratio,
    protocolParametersUpdate: Schema.Struct({ security: Ratio }),
  })),
  constitutionalCommitteeMinSize: Schema.optional(UInt),
  constitutionalCommitteeMaxTermLength: Schema.optional(UInt),
  governanceActionLifetime: Schema.optional(UInt),
  governanceActionDeposit: Schema.optional(Lovelace),
  delegateRepresentativeVotingThresholds: Schema.optional(Schema.Struct({
    noConfidence: Ratio,
    constitutionalCommittee: committee,
    constitution: Ratio,
    hardForkInitiation: Ratio,
    protocolParametersUpdate: Schema.Struct({
      network: Ratio,
      economic: Ratio,
      technical: Ratio,
      governance: Ratio,
    }),
    treasuryWithdrawals: Ratio,
  })),
  delegateRepresentativeDeposit: Schema.optional(Lovelace),
  delegateRepresentativeMaxIdleTime: Schema.optional(UInt),
  version: Schema.Struct({ major: UInt, minor: UInt, patch: Schema.optional(UInt) }),
}).annotations({
  identifier: "OgmiosProtocolParameters",
  description:
    "Ogmios v6 ProtocolParameters (https://ogmios.dev/api/, cardano.json#/definitions/ProtocolParameters)",
});

/**
 * What `GET /api/public/protocol-parameters` answers: Ogmios v6's object plus the two members the interface
 * spec names that Ogmios v6 calls otherwise (Ogmios v5's names), equal to their v6 twins. JSON-RPC answers
 * Ogmios v6's object alone.
 */
export const RestProtocolParameters = Schema.Struct({
  ...ProtocolParameters.fields,
  stakeKeyDeposit: Lovelace.annotations({
    description:
      "the spec's name for stakeCredentialDeposit (Ogmios v5's): the same value, in the same shape",
  }),
  poolDeposit: Lovelace.annotations({
    description: "the spec's name for stakePoolDeposit (Ogmios v5's): the same value, in the same shape",
  }),
}).annotations({
  identifier: "ProtocolParameters",
  description: "Ogmios v6 ProtocolParameters (https://ogmios.dev/api/, cardano.json#/definitions/" +
    "ProtocolParameters), plus stakeKeyDeposit and poolDeposit: the interface spec's names for " +
    "stakeCredentialDeposit and stakePoolDeposit, with equal values",
});
