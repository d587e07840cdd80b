/**
 * Certificates and withdrawals against the stake state (Conway rules): registrations of known credentials
 * (3145), use of unknown ones (3146), deposits that differ from the parameter (3151), deregistration with rewards
 * left (3147), delegation to unknown pools (3140), withdrawals that are not the whole balance (3141). Gives the
 * stake and pool deposits paid and refunded and what the transaction changes in the stake state (DRep,
 * committee and proposal rules are governance/rules.ts').
 */
import * as CML from "@dcspark/cardano-multiplatform-lib-nodejs";
import type { SqlError } from "@effect/sql/SqlError";
import { Effect, Either } from "effect";
import { listOf } from "../decoding/cml_conversions.ts";
import * as E from "../errors.ts";
import type { LedgerView } from "./ledger_view.ts";
import { certificateCredential, certificateDeposit, delegatedPool } from "../decoding/tx_parts.ts";

export interface StakeEffects {
  readonly deposits: bigint;
  readonly refunds: bigint;
  /** Stake credentials (reward address hex) registered (true) or deregistered (false). */
  readonly stakeRegistration: ReadonlyMap<string, boolean>;
  readonly poolsRegistered: ReadonlyArray<string>;
  /** Reward accounts (hex) withdrawn from. */
  readonly withdrawn: ReadonlyArray<string>;
}

const rewardAddressHex = (c: CML.Credential, networkId: number) =>
  CML.RewardAddress.new(networkId, c).to_address().to_hex();
const credentialHash = (c: CML.Credential) => (c.as_pub_key() ?? c.as_script())!.to_hex();
const credentialOrigin = (c: CML.Credential): E.CredentialOrigin =>
  c.as_pub_key() ? "verificationKey" : "script";

const fail = (error: E.OgmiosError) => Either.left(error);

export const checkStakeRules = (
  body: CML.TransactionBody,
  view: LedgerView,
): Effect.Effect<Either.Either<StakeEffects, E.OgmiosError>, SqlError> =>
  Effect.gen(function* () {
    const p = view.params;
    const certs = listOf(body.certs());
    const withdrawals = body.withdrawals();
    const withdrawalAccounts = listOf(withdrawals?.keys());
    const stakeRegistration = new Map<string, boolean>();
    const poolsRegistered: Array<string> = [];
    let deposits = 0n;
    let refunds = 0n;
    for (const cert of certs) {
      const credential = certificateCredential(cert);
      const account = credential ? rewardAddressHex(credential, view.networkId) : undefined;
      const state = account
        ? stakeRegistration.has(account)
          ? { registered: stakeRegistration.get(account)!, rewards: 0n }
          : yield* view.stakeAccount(account)
        : undefined;
      const kind = cert.kind();
      const registers = [
        CML.CertificateKind.StakeRegistration,
        CML.CertificateKind.RegCert,
        CML.CertificateKind.StakeRegDelegCert,
        CML.CertificateKind.VoteRegDelegCert,
        CML.CertificateKind.StakeVoteRegDelegCert,
      ].includes(kind);
      const unregisters = kind === CML.CertificateKind.StakeDeregistration ||
        kind === CML.CertificateKind.UnregCert;
      if (credential && state && registers) {
        if (state.registered) {
          return fail(
            E.credentialAlreadyRegistered(credentialHash(credential), credentialOrigin(credential)),
          );
        }
        const declared = certificateDeposit(cert);
        if (declared !== undefined && declared !== p.keyDeposit) {
          return fail(E.credentialDepositMismatch(declared, p.keyDeposit));
        }
        deposits += p.keyDeposit;
        stakeRegistration.set(account!, true);
      } else if (credential && state && !state.registered) {
        return fail(E.unknownCredential(credentialHash(credential), credentialOrigin(credential)));
      } else if (credential && state && unregisters) {
        const declared = certificateDeposit(cert);
        if (declared !== undefined && declared !== p.keyDeposit) {
          return fail(E.credentialDepositMismatch(declared, p.keyDeposit));
        }
        const withdrawnNow = withdrawalAccounts.some((a) => a.to_address().to_hex() === account)
          ? state.rewards
          : 0n;
        if (state.rewards - withdrawnNow > 0n) return fail(E.nonEmptyRewardAccount(state.rewards));
        refunds += p.keyDeposit;
        stakeRegistration.set(account!, false);
      }
      const pool = delegatedPool(cert);
      if (pool && !(yield* view.poolKnown(pool)) && !poolsRegistered.includes(pool)) {
        return fail(E.unknownStakePool(CML.Ed25519KeyHash.from_hex(pool).to_bech32("pool")));
      }
      const registration = cert.as_pool_registration()?.pool_params();
      if (registration) {
        const operator = registration.operator().to_hex();
        if (!(yield* view.poolKnown(operator))) deposits += p.poolDeposit;
        poolsRegistered.push(operator);
      }
    }
    const withdrawn: Array<string> = [];
    const incomplete: Record<string, bigint> = {};
    for (const account of withdrawalAccounts) {
      const amount = withdrawals!.get(account)!;
      const key = account.to_address().to_hex();
      const state = yield* view.stakeAccount(key);
      if (!state.registered || state.rewards !== amount) {
        incomplete[account.to_address().to_bech32()] = amount;
      }
      withdrawn.push(key);
    }
    if (Object.keys(incomplete).length > 0) return fail(E.incompleteWithdrawals(incomplete));

    return Either.right({ deposits, refunds, stakeRegistration, poolsRegistered, withdrawn });
  });
