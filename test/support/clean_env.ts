/**
 * The environment tests run in: the caller's, without any variable the service reads (layers/config.ts, listed
 * by layers/config_variables.ts) or the scripts the tests run read, so a PORT or PUBLIC_URL left in the shell
 * that runs `npm test` changes no test. TEST_DATABASE_URL and REDIS_URL stay: they choose the backends the suite
 * runs on (REDIS_URL is also the service's own; test/support/environment.ts hands it to the services it starts).
 */
import { configVariables } from "@layers/config_variables.ts";

/** Service variables the runner passes on on purpose. */
export const backendVariables: ReadonlyArray<string> = ["REDIS_URL"];

/** Where the scripts find a service and what they use (scripts/service_url.ts, scripts/devnet_example.ts). */
export const scriptVariables: ReadonlyArray<string> = ["SERVICE_URL", "APIKEY", "NETWORK"];

export const removedVariables: ReadonlyArray<string> = [
  ...configVariables().filter((name) => !backendVariables.includes(name)),
  ...scriptVariables,
];

/** `env` (this process's by default) without the removed variables. */
export const cleanEnv = (env: Record<string, string> = Deno.env.toObject()): Record<string, string> =>
  Object.fromEntries(Object.entries(env).filter(([name]) => !removedVariables.includes(name)));
