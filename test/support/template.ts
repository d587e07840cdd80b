/**
 * The seeded demo-chain template of a test run: both networks' PGlite data directories, seeded once. Under
 * `scripts/test.ts` it is CDS_TEST_TEMPLATE (seeded before any test file starts); a test file run on its own
 * seeds one for its process. Never opened in place: several test processes copy it at once.
 */
import { join } from "node:path";
import type { Network } from "@schemas/network.ts";
import type { SeedResult } from "@src/demo_chain/seed.ts";

let template: Promise<string> | undefined;

/** The template's folder (`<dir>/mainnet`, `<dir>/preprod`, `<dir>/<network>.json`). */
export const seededTemplate = (): Promise<string> =>
  template ??= (async () => {
    const given = Deno.env.get("CDS_TEST_TEMPLATE");
    if (given) return given;
    const dir = await Deno.makeTempDir({ prefix: "cds-template-" });
    globalThis.addEventListener("unload", () => Deno.removeSync(dir, { recursive: true }));
    const seed = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", new URL("./seed_template.ts", import.meta.url).pathname, dir],
      stdout: "null",
      stderr: "inherit",
    }).output();
    if (!seed.success) throw new Error("seeding the test template failed");
    return dir;
  })();

/** Copies the template's data directories of `networks` into `target` (`target/<network>`). */
export const copyTemplate = async (target: string, networks: ReadonlyArray<Network>): Promise<void> => {
  const source = await seededTemplate();
  const copy = await new Deno.Command("cp", {
    args: ["-r", ...networks.map((n) => join(source, n)), target],
  }).output();
  if (!copy.success) throw new Error(new TextDecoder().decode(copy.stderr));
};

/** What seeding the template's `network` reported. */
export const templateSeedResult = async (network: Network): Promise<SeedResult> =>
  JSON.parse(await Deno.readTextFile(join(await seededTemplate(), `${network}.json`)));
