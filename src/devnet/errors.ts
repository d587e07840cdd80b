/**
 * Ogmios v6's submit/evaluate failures, `{code, message, data}` exactly as ogmios.json's
 * SubmitTransactionFailure*, EvaluateTransactionFailure* and DeserialisationFailure define them. Messages are
 * Ogmios' own, prefixed with the interface spec's rejection name where it has one (InputsExhausted, TxExpired,
 * FeeTooSmall, ValueNotConserved, InsufficientFunds).
 */
import { Data } from "effect";
import type { OgmiosError } from "@src/domain/errors.ts";

/** Ogmios' JSON-RPC error object, the one type the JSON-RPC edge sends too. */
export type { OgmiosError };

/** A transaction the devnet refused, carrying Ogmios' error object. */
export class LedgerRejection extends Data.TaggedError("LedgerRejection")<{ readonly error: OgmiosError }> {
  override get message(): string {
    return this.error.message;
  }
}

export interface OutputReference {
  readonly transaction: { readonly id: string };
  readonly index: number;
}

/** Ogmios' Value: lovelace under "ada", then policy id → asset name (hex) → quantity. */
export type OgmiosValue = Record<string, Record<string, bigint>>;

const lovelace = (n: bigint) => ({ ada: { lovelace: n } });

export const deserialisationFailure = (detail: string): OgmiosError => ({
  code: -32602,
  message:
    "Invalid transaction; It looks like the given transaction wasn't well-formed. Note that I try to " +
    "decode the transaction in every possible era and it was malformed in ALL eras. Yet, I can't pinpoint " +
    "the exact issue for I do not know in which era / format you intended the transaction to be. The 'data' " +
    "field, therefore, contains errors for each era.",
  data: Object.fromEntries(
    ["shelley", "allegra", "mary", "alonzo", "babbage", "conway"].map((era) => [era, detail]),
  ),
});

export const invalidSignatories = (keys: ReadonlyArray<string>): OgmiosError => ({
  code: 3100,
  message: "Some signatures are invalid. 'data.invalidSignatories' contains a list of keys for which the " +
    "signature didn't verify. As a reminder, you must only sign the serialised transaction *body*, without " +
    "metadata or witnesses.",
  data: { invalidSignatories: keys },
});

export const missingSignatories = (keyHashes: ReadonlyArray<string>): OgmiosError => ({
  code: 3101,
  message:
    "Some signatures are missing. A signed transaction must carry signatures for all inputs locked by " +
    "verification keys or a native script. Transaction may also need signatures for each required extra " +
    "signatories often required by Plutus Scripts. The field 'data.missingSignatories' contains the " +
    "verification key hashes of expected but missing signatories.",
  data: { missingSignatories: keyHashes },
});

export const missingScripts = (hashes: ReadonlyArray<string>): OgmiosError => ({
  code: 3102,
  message: "Some script witnesses are missing. Indeed, any script used in a transaction (when spending, " +
    "minting, etc...) must be provided in full with the transaction. Scripts must therefore be added either " +
    "to the witness set or provided as a reference input should you use plutus:v2 or higher and a format " +
    "from Babbage and beyond. The field 'data.missingScripts' contain hash digests of required but missing " +
    "script.",
  data: { missingScripts: hashes },
});

export const failingNativeScripts = (hashes: ReadonlyArray<string>): OgmiosError => ({
  code: 3103,
  message: "Failed to validate the transaction because some native scripts failed to evaluate. The field " +
    "'data.failingNativeScripts' contains the hashes of the failing scripts.",
  data: { failingNativeScripts: hashes },
});

export const extraneousScripts = (hashes: ReadonlyArray<string>): OgmiosError => ({
  code: 3104,
  message: "Extraneous (non-required) script witnesses were provided. The field 'data.extraneousScripts' " +
    "lists them.",
  data: { extraneousScripts: hashes },
});

export interface RedeemerPointer {
  readonly purpose: "spend" | "mint" | "publish" | "withdraw" | "vote" | "propose";
  readonly index: number;
}

export const missingMetadataHash = (computed: string): OgmiosError => ({
  code: 3105,
  message:
    "The transaction carries metadata but its body does not commit to them: the body's auxiliary data " +
    "hash is missing. The field 'data.metadata.hash' is the hash of the metadata found.",
  data: { metadata: { hash: computed } },
});

export const missingMetadata = (provided: string): OgmiosError => ({
  code: 3106,
  message:
    "The transaction's body commits to metadata (an auxiliary data hash) the transaction does not carry. " +
    "The field 'data.metadata.hash' is the hash the body declares.",
  data: { metadata: { hash: provided } },
});

export const metadataHashMismatch = (provided: string, computed: string): OgmiosError => ({
  code: 3107,
  message: "The auxiliary data hash in the body does not match the metadata the transaction carries. The " +
    "fields 'data.provided.hash' and 'data.computed.hash' show both.",
  data: { provided: { hash: provided }, computed: { hash: computed } },
});

export const missingRedeemers = (purposes: ReadonlyArray<unknown>): OgmiosError => ({
  code: 3109,
  message: "Some redeemers are missing. Any Plutus script in the transaction needs a redeemer. The field " +
    "'data.missingRedeemers' lists the script purposes without one.",
  data: { missingRedeemers: purposes },
});

export const extraneousRedeemers = (pointers: ReadonlyArray<RedeemerPointer>): OgmiosError => ({
  code: 3110,
  message: "Extraneous (non-required) redeemers found in the transaction. The field " +
    "'data.extraneousRedeemers' lists the pointers of redeemers that point at nothing needing one.",
  data: { extraneousRedeemers: pointers },
});

export const missingDatums = (hashes: ReadonlyArray<string>): OgmiosError => ({
  code: 3111,
  message: "Transaction failed because some Plutus scripts are missing their associated datums. " +
    "'data.missingDatums' contains a set of data hashes for the missing datums. Ensure all Plutus scripts " +
    "have an associated datum in the transaction's witness set or, are provided through inline datums in " +
    "reference inputs.",
  data: { missingDatums: hashes },
});

export const scriptIntegrityHashMismatch = (
  provided: string | null,
  computed: string | null,
): OgmiosError => ({
  code: 3113,
  message: "The script integrity hash in the transaction body does not match the one computed from its " +
    "redeemers, datums and the cost models of the languages used. The fields " +
    "'data.providedScriptIntegrity' and 'data.computedScriptIntegrity' show both.",
  data: { providedScriptIntegrity: provided, computedScriptIntegrity: computed },
});

export const missingCostModels = (languages: ReadonlyArray<string>): OgmiosError => ({
  code: 3115,
  message: "Some cost models are missing for the Plutus languages the transaction uses. The field " +
    "'data.missingCostModels' lists them.",
  data: { missingCostModels: languages },
});

export const unknownOutputReferences = (refs: ReadonlyArray<OutputReference>): OgmiosError => ({
  code: 3117,
  message:
    "InputsExhausted: The transaction contains unknown UTxO references as inputs. This can happen if " +
    "the inputs you're trying to spend have already been spent, or if you've simply referred to non-existing " +
    "UTxO altogether. The field 'data.unknownOutputReferences' indicates all unknown inputs.",
  data: { unknownOutputReferences: refs },
});

export const outsideOfValidityInterval = (
  interval: { invalidBefore?: number; invalidAfter?: number },
  currentSlot: number,
): OgmiosError => ({
  code: 3118,
  message:
    (interval.invalidAfter !== undefined && currentSlot >= interval.invalidAfter ? "TxExpired: " : "") +
    "The transaction is outside of its validity interval. It was either submitted too early or too late. " +
    "The field 'data.currentSlot' contains the current slot as known of the ledger and the field " +
    "'data.validityInterval' is a reminder of the validity interval provided with the transaction.",
  data: { validityInterval: interval, currentSlot },
});

export const transactionTooLarge = (measured: number, maximum: number): OgmiosError => ({
  code: 3119,
  message: "The transaction exceeds the maximum size allowed by the protocol. The field " +
    "'data.measuredTransactionSize' is the size of the submitted transaction, and " +
    "'data.maximumTransactionSize' the current maximum.",
  data: { measuredTransactionSize: { bytes: measured }, maximumTransactionSize: { bytes: maximum } },
});

export const valueTooLarge = (outputs: ReadonlyArray<unknown>): OgmiosError => ({
  code: 3120,
  message: "Some outputs carry a value that is too large (too many assets for the maximum value size). The " +
    "field 'data.excessivelyLargeOutputs' lists them.",
  data: { excessivelyLargeOutputs: outputs },
});

export const emptyInputSet = (): OgmiosError => ({
  code: 3121,
  message: "Transaction must have at least one input, but this one has an empty input set. One input is " +
    "necessary to prevent replayability of transactions, as it piggybacks on the unique spendable property " +
    "of UTxO.",
});

export const transactionFeeTooSmall = (minimum: bigint, provided: bigint): OgmiosError => ({
  code: 3122,
  message: "FeeTooSmall: Insufficient fee! The transaction doesn't not contain enough fee to cover the " +
    "minimum required by the protocol. The field 'data.minimumRequiredFee' indicates the minimum required " +
    "fee whereas 'data.providedFee' refers to the fee currently supplied with the transaction.",
  data: { minimumRequiredFee: lovelace(minimum), providedFee: lovelace(provided) },
});

export const valueNotConserved = (
  consumed: OgmiosValue,
  produced: OgmiosValue,
  insufficientFunds: boolean,
): OgmiosError => ({
  code: 3123,
  message: `ValueNotConserved${insufficientFunds ? " (InsufficientFunds)" : ""}: In and out value not ` +
    "conserved. The transaction must *exactly* balance: every input must be accounted for. The field " +
    "'data.valueConsumed' contains the total value consumed by the transaction (inputs, withdrawals, " +
    "deposit refunds, minted assets), and 'data.valueProduced' the total value it produces (outputs, fee, " +
    "deposits, burnt assets).",
  data: { valueConsumed: consumed, valueProduced: produced },
});

export const networkMismatch = (
  expected: "mainnet" | "testnet",
  discriminatedType: "address" | "rewardAccount" | "stakePoolCertificate" | "transaction",
  invalidEntities: ReadonlyArray<string>,
): OgmiosError => ({
  code: 3124,
  message: "Some discriminated entities in the transaction are configured for another network. In fact, " +
    "payment addresses, stake addresses and stake pool registration certificates are bound to a specific " +
    "network identifier. This identifier must match the network you're trying to submit them to. The field " +
    "'data.expectedNetwork' indicates what is the currently expected network, 'data.discriminatedType' what " +
    "type of entity is causing an issue here, and 'data.invalidEntities' lists all the culprits.",
  data: discriminatedType === "transaction"
    ? { expectedNetwork: expected, discriminatedType }
    : { expectedNetwork: expected, discriminatedType, invalidEntities },
});

export const insufficientlyFundedOutputs = (
  outputs: ReadonlyArray<{ output: unknown; minimumRequiredValue: bigint }>,
): OgmiosError => ({
  code: 3125,
  message: "Some outputs have an insufficient amount of Ada attached to them. In fact, any new output " +
    "created in a system must pay for the resources it occupies. The field " +
    "'data.insufficientlyFundedOutputs.[].output' contains a list of all transaction outputs that are " +
    "insufficiently funded, and 'data.insufficientlyFundedOutputs.[].minimumRequiredValue' the required " +
    "amount of Lovelace for each.",
  data: {
    insufficientlyFundedOutputs: outputs.map((o) => ({
      output: o.output,
      minimumRequiredValue: lovelace(o.minimumRequiredValue),
    })),
  },
});

export const mintingOrBurningAda = (): OgmiosError => ({
  code: 3127,
  message: "The transaction tries to mint or burn Ada, which is forbidden.",
});

export const insufficientCollateral = (provided: bigint, minimum: bigint): OgmiosError => ({
  code: 3128,
  message: "Insufficient collateral value for Plutus scripts in the transaction. The field " +
    "'data.providedCollateral' indicates the amount currently provided as collateral in the transaction, " +
    "whereas 'data.minimumRequiredCollateral' indicates the minimum amount expected by the ledger.",
  data: { providedCollateral: lovelace(provided), minimumRequiredCollateral: lovelace(minimum) },
});

export const collateralLockedByScript = (refs: ReadonlyArray<OutputReference>): OgmiosError => ({
  code: 3129,
  message: "Invalid choice of collateral: an input provided for collateral is locked by script. The field " +
    "'data.unsuitableCollateralInputs' lists all the problematic output references.",
  data: { unsuitableCollateralInputs: refs },
});

export const tooManyCollateralInputs = (maximum: number, counted: number): OgmiosError => ({
  code: 3131,
  message: "The transaction contains too many collateral inputs. The field 'data.maximumCollateralInputs' " +
    "contains the current value of that parameter, and 'data.countedCollateralInputs' indicates how many " +
    "inputs were actually found in your transaction.",
  data: { maximumCollateralInputs: maximum, countedCollateralInputs: counted },
});

export const missingCollateralInputs = (): OgmiosError => ({
  code: 3132,
  message: "The transaction doesn't provide any collateral inputs but it must. Indeed, when executing " +
    "scripts, you must provide a collateral amount which is collected by the ledger in case of script " +
    "execution failure.",
});

export const nonAdaCollateral = (value: OgmiosValue): OgmiosError => ({
  code: 3133,
  message:
    "One of the input provided as collateral carries something else than Ada tokens. Only Ada can be " +
    "used as collateral; set a collateral return to send the non-Ada tokens back. The field " +
    "'data.unsuitableCollateralValue' indicates the actual collateral value found by the ledger.",
  data: { unsuitableCollateralValue: value },
});

export const executionUnitsTooLarge = (
  provided: { memory: bigint; cpu: bigint },
  maximum: { memory: bigint; cpu: bigint },
): OgmiosError => ({
  code: 3134,
  message: "The transaction's execution units exceed the maximum allowed per transaction. The field " +
    "'data.providedExecutionUnits' is what the transaction declares, 'data.maximumExecutionUnits' the limit.",
  data: { providedExecutionUnits: provided, maximumExecutionUnits: maximum },
});

export const totalCollateralMismatch = (declared: bigint, computed: bigint): OgmiosError => ({
  code: 3135,
  message:
    "There's a mismatch between the declared total collateral amount, and the value computed from the " +
    "inputs and outputs. These must match exactly. The field 'data.declaredTotalCollateral' reports the " +
    "amount declared in the transaction whereas 'data.computedTotalCollateral' refers to the amount actually " +
    "computed.",
  data: { declaredTotalCollateral: lovelace(declared), computedTotalCollateral: lovelace(computed) },
});

export const spendsMismatch = (declared: "inputs" | "collaterals", reason: string): OgmiosError => ({
  code: 3136,
  message: "Invalid transaction submitted as valid, or vice-versa. Your transaction did not match what its " +
    "validity tag is stating. The field 'data.declaredSpending' indicates what the transaction is supposed " +
    "to consume (collaterals or inputs) and the field 'data.mismatchReason' provides more information.",
  data: { declaredSpending: declared, mismatchReason: reason },
});

export const unknownStakePool = (poolId: string): OgmiosError => ({
  code: 3140,
  message: "The transaction references an unknown stake pool as a target for delegation or update. " +
    "Double-check the pool id mentioned in 'data.unknownStakePool'.",
  data: { unknownStakePool: poolId },
});

export const incompleteWithdrawals = (withdrawals: Record<string, bigint>): OgmiosError => ({
  code: 3141,
  message: "The transaction contains incomplete or invalid rewards withdrawals. When present, rewards " +
    "withdrawals must consume rewards in full, there cannot be any leftover. You may also run into this " +
    "error if the associatd stake credential is not registered. The field 'data.incompleteWithdrawals' " +
    "contains a map of culprit withdrawals.",
  data: {
    incompleteWithdrawals: Object.fromEntries(Object.entries(withdrawals).map(([k, v]) => [k, lovelace(v)])),
  },
});

export type CredentialOrigin = "verificationKey" | "script";

export const credentialAlreadyRegistered = (credential: string, from: CredentialOrigin): OgmiosError => ({
  code: 3145,
  message: "The transaction tries to register a stake credential that is already registered. The field " +
    "'data.knownCredential' indicates which one.",
  data: { knownCredential: credential, from },
});

export const unknownCredential = (credential: string, from: CredentialOrigin): OgmiosError => ({
  code: 3146,
  message: "The transaction references an unknown stake credential. For example, to delegate to a stake " +
    "pool, you must first register the stake key or script used for delegation. The field " +
    "'data.unknownCredential' indicates what credential is used without being registered.",
  data: { unknownCredential: credential, from },
});

export const nonEmptyRewardAccount = (balance: bigint): OgmiosError => ({
  code: 3147,
  message:
    "Trying to unregister stake credentials associated to a non empty reward account. You must empty " +
    "the reward account first (or do it as part of the same transaction) to proceed. The field " +
    "'data.nonEmptyRewardAccountBalance' indicates how much Lovelace is left in the account.",
  data: { nonEmptyRewardAccountBalance: lovelace(balance) },
});

export const credentialDepositMismatch = (provided: bigint, expected: bigint): OgmiosError => ({
  code: 3151,
  message: "The deposit specified in a stake credential registration or de-registration does not match the " +
    "current value of the protocol parameter. The field 'data.providedDeposit' is the deposit given and " +
    "'data.expectedDeposit' the expected one.",
  data: { providedDeposit: lovelace(provided), expectedDeposit: lovelace(expected) },
});

export const unexpectedMempoolError = (error: string): OgmiosError => ({
  code: 3997,
  message: "A transaction was rejected due to custom rules that prevented it from entering the mempool. A " +
    "justification is given as 'data.error'.",
  data: { error },
});

export const unrecognizedCertificateType = (): OgmiosError => ({
  code: 3998,
  message: "Unrecognized certificate type. The devnet does not process this kind of certificate.",
});

// ---------------------------------------------------------------------------------------------- evaluation

export const overlappingAdditionalUtxo = (refs: ReadonlyArray<OutputReference>): OgmiosError => ({
  code: 3002,
  message:
    "Some user-provided additional UTxO entries overlap with those that exist in the ledger. The field " +
    "'data.overlappingOutputReferences' lists them.",
  data: { overlappingOutputReferences: refs },
});

export const cannotCreateEvaluationContext = (reason: string): OgmiosError => ({
  code: 3004,
  message: "Unable to create the evaluation context from the given transaction.",
  data: { reason },
});

/** One failing validator of evaluateTransaction's 3010 ScriptExecutionFailure list. */
export interface ValidatorFailure {
  readonly validator: RedeemerPointer;
  readonly error: OgmiosError;
}

export const scriptExecutionFailure = (failures: ReadonlyArray<ValidatorFailure>): OgmiosError => ({
  code: 3010,
  message: "Some scripts of the transactions terminated with error(s).",
  data: failures,
});

export const validationFailure = (validationError: string, traces: ReadonlyArray<string>): OgmiosError => ({
  code: 3012,
  message: "Some of the scripts failed to evaluate to a positive outcome. The field 'data.validationError' " +
    "informs about the nature of the error, and 'data.traces' lists all the execution traces collected " +
    "during the script execution.",
  data: { validationError, traces },
});

// ------------------------------------------------------------------------------------- more phase-1 rules

export const referenceScriptsTooLarge = (measured: number, maximum: number): OgmiosError => ({
  code: 3166,
  message: "The compound size of all reference scripts exceeds the maximum size allowed by the protocol. " +
    "Use fewer or smaller scripts to reduce the total size below acceptable limits. The field " +
    "'data.measuredReferenceScriptsSize' indicates the actual total measured size of your reference scripts, " +
    "whereas 'data.maximumReferenceScriptsSize' indicates the current maximum size enforced by the ledger.",
  data: {
    measuredReferenceScriptsSize: { bytes: measured },
    maximumReferenceScriptsSize: { bytes: maximum },
  },
});

export const invalidMetadata = (): OgmiosError => ({
  code: 3108,
  message: "Invalid metadatum found in transaction metadata. Metadata byte strings must be no longer than " +
    "64-bytes and text strings must be no longer than 64 bytes once UTF-8-encoded. Some metadatum in the " +
    "transaction infringe this rule.",
});

export const poolMetadataHashTooLarge = (poolId: string, size: number): OgmiosError => ({
  code: 3144,
  message:
    "Some hash digest of (optional) stake pool metadata is too long. When registering, stake pools can " +
    "supply an external metadata file and a hash digest of the content. The hashing algorithm is left open but " +
    "the output digest must be smaller than 32 bytes. The field 'data.infringingStakePool' indicates which " +
    "stake pool has an invalid metadata hash and 'data.computedMetadataHashSize' documents the computed hash size.",
  data: { infringingStakePool: { id: poolId }, computedMetadataHashSize: { bytes: size } },
});

export const bootstrapAttributesTooLarge = (outputs: ReadonlyArray<unknown>): OgmiosError => ({
  code: 3126,
  message:
    "Some output associated with legacy / bootstrap (a.k.a. Byron) addresses have attributes that are " +
    "too large. The field 'data.bootstrapOutputs' lists all affected outputs.",
  data: { bootstrapOutputs: outputs },
});

export const extraneousDatums = (hashes: ReadonlyArray<string>): OgmiosError => ({
  code: 3112,
  message:
    "The transaction failed because it contains datums not associated with any script or output. This " +
    "could be because you've left some orphan datum behind, because you've listed the wrong inputs in the " +
    "transaction or because you've just forgotten to include a datum associated with an input. Either way, the " +
    "field 'data.extraneousDatums' contains a set of data hashes for these extraneous datums.",
  data: { extraneousDatums: hashes },
});

export const orphanScriptInputs = (refs: ReadonlyArray<OutputReference>): OgmiosError => ({
  code: 3114,
  message: "This is bad, you're trying to spend inputs that are locked by Plutus scripts, but have no " +
    "associated datums. Those inputs are so-to-speak unspendable (at least with the current ledger rules). " +
    "There's nothing you can do apart from re-creating these UTxOs but with a corresponding datum this time. " +
    "The field 'data.orphanScriptInputs' lists all such inputs found in the transaction.",
  data: { orphanScriptInputs: refs },
});

export const malformedScripts = (hashes: ReadonlyArray<string>): OgmiosError => ({
  code: 3116,
  message:
    "Some Plutus scripts in the witness set or in an output are invalid. Scripts must be well-formed " +
    "flat-encoded Plutus scripts, CBOR-encoded. Yes, there's a double binary encoding. The outer-most encoding " +
    "is therefore just a plain CBOR bytestring. Note that some tools such as the cardano-cli triple encode " +
    "scripts for some reasons, resulting in a double outer-most CBOR encoding. Make sure that your script are " +
    "correctly encoded. The field 'data.malformedScripts' lists the hash digests of all the problematic scripts.",
  data: { malformedScripts: hashes },
});

/**
 * `firstInvalidEpoch` is what Ogmios 6.14 sends there: the ledger's limit, current epoch + eMax (the last valid
 * one). Ogmios also swaps the other two (it binds the ledger's Mismatch positionally); these are as named.
 */
export const retirementTooLate = (current: number, declared: number, limit: number): OgmiosError => ({
  code: 3142,
  message:
    "A stake pool retirement certificate is trying to retire too late in the future. Indeed, there's a " +
    "maximum delay for stake pool retirement, controlled by a protocol parameter. The field 'data.currentEpoch' " +
    "indicates the current epoch known of the ledger, 'data.declaredEpoch' refers to the epoch declared in the " +
    "retirement certificate and 'data.firstInvalidEpoch' is the first epoch considered invalid (too far) for " +
    "retirement",
  data: { currentEpoch: current, declaredEpoch: declared, firstInvalidEpoch: limit },
});

export const stakePoolCostTooLow = (minimum: bigint, declared: bigint): OgmiosError => ({
  code: 3143,
  message:
    "Stake pool cost declared in a registration or update certificate are below the allowed minimum. " +
    "The minimum cost of a stake pool is fixed by a protocol parameter. The 'data.minimumStakePoolCost' field " +
    "holds the current value of that parameter whereas 'data.declaredStakePoolCost' indicates which amount was " +
    "declared.",
  data: { minimumStakePoolCost: lovelace(minimum), declaredStakePoolCost: lovelace(declared) },
});

// ---------------------------------------------------------------------------------------------- governance
// Conway governance failures (GOV, GOVCERT, DELEG and LEDGER rules) as Ogmios v6.14 encodes them.

/** Ogmios' GovernanceVoter. */
export type GovernanceVoter =
  | {
    readonly role: "constitutionalCommittee" | "delegateRepresentative";
    readonly id: string;
    readonly from: CredentialOrigin;
  }
  | { readonly role: "stakePoolOperator"; readonly id: string };

/** Ogmios' GovernanceProposalReference. */
export interface ProposalReference {
  readonly transaction: { readonly id: string };
  readonly index: number;
}

export interface MemberReference {
  readonly id: string;
  readonly from: CredentialOrigin;
}

export const unauthorizedVotes = (
  votes: ReadonlyArray<{ proposal: ProposalReference; voter: GovernanceVoter }>,
): OgmiosError => ({
  code: 3137,
  message: "The transaction contains votes from unauthorized voters. The field 'data.unauthorizedVotes' " +
    "indicates the faulty voters and the proposal they attempted to incorrectly vote for.",
  data: { unauthorizedVotes: votes },
});

export const unknownGovernanceProposals = (proposals: ReadonlyArray<ProposalReference>): OgmiosError => ({
  code: 3138,
  message: "Reference(s) to unknown governance proposals found in transaction. This may be because you've " +
    "indicated a wrong identifier or because the proposal hasn't yet been submitted on-chain. Note that the " +
    "order in which transactions are submitted matters. The field 'data.unknownProposals' tells you about the " +
    "unknown references.",
  data: { unknownProposals: proposals },
});

export const invalidProtocolParametersUpdate = (): OgmiosError => ({
  code: 3139,
  message:
    "The transaction contains an invalid or unauthorized protocol parameters update. This operation is " +
    "reserved to genesis key holders.",
});

export const forbiddenWithdrawal = (credentials: ReadonlyArray<string>): OgmiosError => ({
  code: 3150,
  message: "The transaction is attempting to withdraw rewards from stake credentials that do not engage in " +
    "on-chain governance. Credentials must be associated with a delegate representative (registered, abstain " +
    "or noConfidence) before associated rewards can be withdrawn. The field 'data.marginalizedCredentials' " +
    "lists all the affected credentials.",
  data: { marginalizedCredentials: credentials },
});

export const drepAlreadyRegistered = (credential: MemberReference): OgmiosError => ({
  code: 3152,
  message: "Trying to re-register some already known delegate representative. Delegate representatives can " +
    "only be registered once. The field 'data.knownDelegateRepresentatives' points to an already known " +
    "credential that's being re-registered by this transaction.",
  data: { knownDelegateRepresentative: { type: "registered", ...credential } },
});

export const drepNotRegistered = (credential: MemberReference): OgmiosError => ({
  code: 3153,
  message:
    "The transaction references an unknown delegate representative. To delegate to a representative, " +
    "it must first register as such. This may be done in the same transaction or in an earlier transaction " +
    "but cannot happen retro-actively. The field 'data.unknownDelegateRepresentative' indicates what " +
    "credential is used without being registered.",
  data: { unknownDelegateRepresentative: { type: "registered", ...credential } },
});

export const unknownCommitteeMember = (member: MemberReference): OgmiosError => ({
  code: 3154,
  message:
    "The transaction references an unknown constitutional committee member. This can be either because " +
    "that member does not actually exist or because it was registered but has resigned. The field " +
    "'data.unknownConstitutionalCommitteeMember' indicates what credential is unknown.",
  data: { unknownConstitutionalCommitteeMember: member },
});

export const proposalDepositMismatch = (provided: bigint, expected: bigint): OgmiosError => ({
  code: 3155,
  message: "There's a mismatch between the proposal deposit amount declared in the transaction and the one " +
    "expected by the ledger. The deposit is actually configured by a protocol parameter. The field " +
    "'data.expectedDeposit' indicates the current configuration and amount expected by the ledger. The field " +
    "'data.providedDeposit' is a reminder of the what was set in the submitted transaction.",
  data: { expectedDeposit: lovelace(expected), providedDeposit: lovelace(provided) },
});

export const conflictingCommitteeUpdate = (members: ReadonlyArray<MemberReference>): OgmiosError => ({
  code: 3156,
  message: "The transaction contains an invalid governance action: it tries to both add members to the " +
    "committee and remove some of those same members. The field 'data.conflictingMembers' indicates which " +
    "members are found on both sides.",
  data: { conflictingMembers: members },
});

export const invalidCommitteeUpdate = (members: ReadonlyArray<MemberReference>): OgmiosError => ({
  code: 3157,
  message: "The transaction contains an invalid governance action: it tries to add new members to the " +
    "constitutional committee with a retirement epoch in the past. The field 'data.alreadyRetiredMembers' " +
    "indicates the faulty members that would otherwise be already retired.",
  data: { alreadyRetiredMembers: members },
});

/** The body's current treasury value differs from the treasury (the ledger's ConwayTreasuryValueMismatch). */
export const treasuryValueMismatch = (provided: bigint, computed: bigint): OgmiosError => ({
  code: 3158,
  message:
    "The transaction is trying to withdraw more funds than specified in a governance action! The field " +
    "'data.providedWithdrawal' indicates the amount specified in the transaction, whereas " +
    "'data.computedWithdrawal' is the actual amount as computed by the ledger.",
  data: { computedWithdrawal: lovelace(computed), providedWithdrawal: lovelace(provided) },
});

export const invalidPreviousProposals = (
  proposals: ReadonlyArray<
    { metadata: { url: string; hash: string }; type: string; invalidPreviousProposal?: ProposalReference }
  >,
): OgmiosError => ({
  code: 3159,
  message: "The transaction contains invalid or missing reference to previous (ratified) governance " +
    "proposals. Indeed, some governance proposals such as protocol parameters update or consitutional " +
    "committee change must point to last action of the same purpose that was ratified. The field " +
    "'data.invalidOrMissingPreviousProposals' contains a list of submitted actions that are missing details. " +
    "For each item, we provide the anchor of the corresponding proposal, the type of previous proposal that is " +
    "expected and the invalid proposal reference if relevant.",
  data: { invalidOrMissingPreviousProposals: proposals },
});

export const votingOnExpiredActions = (
  votes: ReadonlyArray<{ proposal: ProposalReference; voter: GovernanceVoter }>,
): OgmiosError => ({
  code: 3160,
  message:
    "The transaction contains votes for an expired proposal. The field 'data.invalidVotes' indicates " +
    "the faulty voters and the proposal they attempted to vote for.",
  data: { invalidVotes: votes },
});

export const invalidHardForkVersionBump = (
  proposed: { major: number; minor: number },
  current: { major: number; minor: number },
): OgmiosError => ({
  code: 3162,
  message:
    "The new proposed version for a hard-fork isn't a valid version bump. The version (major, minor, " +
    "patch) follows strict rules which can be summarized as follow: (1) the new triplet must be greater than " +
    "the current one in the usual order of priorities (i.e. 'major' -> 'minor' -> 'patch'), (2) 'minor' must " +
    "be 0 if 'major' is bumped, (3) 'minor' can only be bumped in increments of 1 and only if 'major' isn't " +
    "bumped and (4) 'major' can only be bumped in increments of 1. The field 'data.proposedVersion' indicates " +
    "the (invalid) version in the submitted proposal whereas 'data.currentVersion' indicates the current " +
    "protocol version.",
  data: { proposedVersion: proposed, currentVersion: current },
});

export const guardrailsHashMismatch = (provided: string | null, expected: string | null): OgmiosError => ({
  code: 3163,
  message: "The provided constitution guardrails hash doesn't match the expected on defined in the " +
    "constitution. Some governance actions such as treasury withdrawals or protocol parameters updates must " +
    "correctly refer to the constitution guardrails hash digest. The latter can be 'null'. The field " +
    "'data.providedHash' indicates the hash provided in the proposal, and the field 'data.expectedHash' the " +
    "one specified in the constitution",
  data: { providedHash: provided, expectedHash: expected },
});

export const unknownVoters = (voters: ReadonlyArray<GovernanceVoter>): OgmiosError => ({
  code: 3167,
  message: "Some voters in the transaction are unknown. Voters must correspond to registered credentials " +
    "present in the ledger. They can possibly be registered in the same block, but it must imperatively " +
    "happens before they are used for voting. The field 'data.unknownVoters' indicates the credentials that " +
    "couldn't be mapped to any known voter.",
  data: { unknownVoters: voters },
});

export const emptyTreasuryWithdrawal = (): OgmiosError => ({
  code: 3168,
  message: "Some proposals contain empty treasury withdrawals, which is pointless and a waste of resources.",
});
