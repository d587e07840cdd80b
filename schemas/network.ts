/** The two networks the service serves (spec: "Networks `mainnet` and `preprod`"). */
import { Schema } from "effect";

export const Network = Schema.Literal("mainnet", "preprod");
export type Network = typeof Network.Type;
export const networks: ReadonlyArray<Network> = Network.literals;

/** A network as a request parameter: same values, with a message that lists them. */
export const NetworkParam = Schema.String.pipe(
  Schema.filter((s) => s === "mainnet" || s === "preprod", {
    message: () => "must be mainnet or preprod",
    jsonSchema: { enum: ["mainnet", "preprod"] },
  }),
  Schema.compose(Network),
);
