/**
 * Blockfrost's amounts: `[{unit: "lovelace", quantity}, {unit: policy id + hex asset name, quantity}, …]`, from a
 * value as the programs give it (lovelace and tokens as decimal strings). Every group's encoders share it.
 */
import type { BfAmount } from "@schemas/blockfrost/wire.ts";

export interface TokenValue {
  readonly policyId: string;
  readonly assetNameHex: string;
  readonly quantity: string;
}

/** The unit Blockfrost names a token by: policy id and hex asset name, concatenated. */
export const unitOf = (token: Pick<TokenValue, "policyId" | "assetNameHex">): string =>
  `${token.policyId}${token.assetNameHex}`;

export const amountOf = (lovelace: string, tokens: ReadonlyArray<TokenValue> = []): typeof BfAmount.Type => [
  { unit: "lovelace", quantity: lovelace },
  ...tokens.map((t) => ({ unit: unitOf(t), quantity: t.quantity })),
];
