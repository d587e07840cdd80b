/**
 * The names of every environment variable the service reads, taken from `layers/config.ts` itself: the
 * configuration is read once through a provider that notes each name asked for and answers none (so every
 * setting takes its default). The test runner removes these names from the environment it hands the tests, so
 * a variable added to config.ts is covered without a list to keep in step.
 */
import { ConfigError, ConfigProvider, ConfigProviderPathPatch as PathPatch, Effect, HashSet } from "effect";
import { appConfig } from "./config.ts";

export const configVariables = (): ReadonlyArray<string> => {
  const names = new Set<string>();
  const recorder = ConfigProvider.fromFlat(ConfigProvider.makeFlat({
    load: (path) => {
      names.add(path.join("_"));
      return Effect.fail(ConfigError.MissingData([...path], "not set"));
    },
    enumerateChildren: () => Effect.succeed(HashSet.empty()),
    patch: PathPatch.empty,
  }));
  Effect.runSync(Effect.either(Effect.withConfigProvider(appConfig, recorder)));
  return [...names].sort();
};
