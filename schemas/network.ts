/** The two networks the service serves (spec: "Networks `mainnet` and `preprod`"). */
import { Schema } from "effect";

export const Network = Schema.Literal("mainnet", "preprod");
export type Network = typeof Network.Type;
export const networks: ReadonlyArray<Network> = Network.literals;
