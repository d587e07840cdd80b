/** `CORS_ORIGINS`: none by default, `*`, or a comma list of bare origins; anything else names the variable. */
import assert from "node:assert/strict";
import { ConfigProvider, Effect } from "effect";
import { appConfig, describeConfigError } from "@layers/config.ts";

const load = (env: Record<string, string>) =>
  Effect.runPromise(
    Effect.either(Effect.withConfigProvider(appConfig, ConfigProvider.fromMap(new Map(Object.entries(env))))),
  );

Deno.test("CORS_ORIGINS: none by default, * or a list of origins", async () => {
  for (
    const [text, expected] of [
      [undefined, []],
      ["", []],
      ["*", "*"],
      [" https://app.example ", ["https://app.example"]],
      ["https://app.example/, http://localhost:8080", ["https://app.example", "http://localhost:8080"]],
    ] as const
  ) {
    const result = await load(text === undefined ? {} : { CORS_ORIGINS: text });
    assert.equal(result._tag, "Right", String(text));
    if (result._tag === "Right") assert.deepEqual(result.right.corsOrigins, expected);
  }
});

for (
  const bad of [
    "app.example",
    "https://app.example/path",
    "ftp://app.example",
    "https://a.example, *",
    "null",
  ]
) {
  Deno.test(`CORS_ORIGINS=${JSON.stringify(bad)} is refused with one line`, async () => {
    const result = await load({ CORS_ORIGINS: bad });
    assert.equal(result._tag, "Left");
    if (result._tag === "Left") {
      assert.match(describeConfigError(result.left), /^CORS_ORIGINS: expected \* or a comma list/);
    }
  });
}
