/**
 * The layout check (scripts/check_layout.ts, run by `npm test`): it names each edge against the direction and
 * prints each cycle as its file loop, over a synthetic import graph and over a copy of this repository with a
 * back-edge and a cycle added; the repository itself passes, and README.md's architecture section is the
 * script's layer table.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  type ImportGraph,
  layerOf,
  layers,
  readImportGraph,
  readmeSection,
  specifiers,
  violations,
} from "../scripts/check_layout.ts";

const root = fileURLToPath(new URL("..", import.meta.url));

const graph = (edges: Record<string, ReadonlyArray<string>>): ImportGraph => new Map(Object.entries(edges));

Deno.test("an edge against the direction is named with the layers it joins", () => {
  const found = violations(graph({
    "layers/node_client_chain_db.ts": ["src/jsonrpc/ledger_queries.ts", "src/queries/utxo.ts"],
    "src/jsonrpc/ledger_queries.ts": ["src/programs/at_tip.ts", "layers/cache.ts"],
    "src/programs/at_tip.ts": ["src/server/routes.ts"],
    "src/domain/errors.ts": ["layers/dependencies.ts"],
    "schemas/api.ts": ["src/domain/json.ts"],
    "src/rest/endpoint.ts": ["src/graphql/http.ts", "src/rest/failures.ts"],
    "src/server/routes.ts": ["src/rest/endpoint.ts", "test/support/service.ts"],
    "src/main.ts": ["src/server/router.ts", "layers/app_layer.ts"],
    "test/support/service.ts": ["src/main.ts", "layers/app_layer.ts", "scripts/test.ts"],
  }));
  assert.deepEqual(found, [
    "layers/node_client_chain_db.ts -> src/jsonrpc/ledger_queries.ts: layers may not import protocol adapters",
    "src/programs/at_tip.ts -> src/server/routes.ts: programs may not import the server",
    "src/domain/errors.ts -> layers/dependencies.ts: the domain may not import layers",
    "schemas/api.ts -> src/domain/json.ts: schemas may not import the domain",
    "src/rest/endpoint.ts -> src/graphql/http.ts: protocol adapters may not import each other",
    "src/server/routes.ts -> test/support/service.ts: the server may not import scripts or tests",
  ]);
});

Deno.test("a cycle is printed as its file loop, type imports and same-folder imports included", () => {
  const found = violations(graph({
    "layers/node_client.ts": ["layers/node_client_chain_db.ts", "src/queries/tip.ts"],
    "layers/node_client_chain_db.ts": ["layers/node_client_devnet.ts"],
    "layers/node_client_devnet.ts": ["layers/node_client.ts"],
    "src/queries/tip.ts": [],
    "test/a_test.ts": ["test/support/b.ts"],
    "test/support/b.ts": ["test/a_test.ts"],
  }));
  assert.deepEqual(found, [
    "import cycle (3 files in one strongly connected component): layers/node_client.ts -> " +
    "layers/node_client_chain_db.ts -> layers/node_client_devnet.ts -> layers/node_client.ts",
    "import cycle (2 files in one strongly connected component): test/a_test.ts -> test/support/b.ts -> " +
    "test/a_test.ts",
  ]);
});

Deno.test("every kind of import is an edge; packages are not", () => {
  const text = [
    `import { Effect } from "effect";`,
    `import type { ChainClock } from "@layers/chain_clock.ts";`,
    `import {\n  a,\n  type B,\n} from "./multi_line.ts";`,
    `export { openPglite, type PgliteOpenOptions } from "./pglite_open.ts";`,
    `export * from "../schemas/api.ts";`,
    `import "./side_effect.ts";`,
    `const { seed } = await import("@src/demo_chain/seed.ts");`,
    `new Worker(new URL("./pglite_worker.ts", import.meta.url), { type: "module" });`,
    ` * import { Nothing } from "./in_a_comment.ts";`,
    `const x = { from: "./not_an_import.ts" };`,
  ].join("\n");
  assert.deepEqual(specifiers(text).sort(), [
    "../schemas/api.ts",
    "./multi_line.ts",
    "./pglite_open.ts",
    "./pglite_worker.ts",
    "./side_effect.ts",
    "@layers/chain_clock.ts",
    "@src/demo_chain/seed.ts",
    "effect",
  ]);
});

Deno.test("every source file of the repository is in a layer of the table", async () => {
  const files = [...(await readImportGraph(root)).keys()];
  assert.ok(files.includes("src/main.ts") && files.includes("layers/app_layer.ts"), "the graph is read");
  assert.deepEqual(files.filter((f) => layerOf(f) === "none"), []);
});

const copyTree = async (from: string, to: string) => {
  for await (const e of Deno.readDir(from)) {
    if (e.name === "node_modules" || e.name === ".git" || e.name === "reference") continue;
    const source = join(from, e.name);
    const target = join(to, e.name);
    if (e.isDirectory) {
      await Deno.mkdir(target, { recursive: true });
      await copyTree(source, target);
    } else if (e.isFile) await Deno.copyFile(source, target);
  }
};

Deno.test("a back-edge and a cycle added to a copy of the repository fail the check, named", async () => {
  const copy = await Deno.makeTempDir({ prefix: "cds-layout-" });
  try {
    for (const dir of ["schemas", "src", "layers", "scripts", "test"]) {
      await Deno.mkdir(join(copy, dir));
      await copyTree(join(root, dir), join(copy, dir));
    }
    for (const file of ["deno.json", "README.md"]) await Deno.copyFile(join(root, file), join(copy, file));
    await Deno.writeTextFile(
      join(copy, "layers/back_edge.ts"),
      `import type { Routes } from "@src/server/routes.ts";\nexport type R = Routes;\n`,
    );
    await Deno.writeTextFile(join(copy, "src/domain/loop_a.ts"), `export * from "./loop_b.ts";\n`);
    await Deno.writeTextFile(join(copy, "src/domain/loop_b.ts"), `import "@src/domain/loop_a.ts";\n`);
    const run = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", "scripts/check_layout.ts"],
      cwd: copy,
      stdout: "piped",
      stderr: "piped",
    }).output();
    const lines = new TextDecoder().decode(run.stderr).split("\n");
    assert.equal(run.code, 1);
    assert.ok(
      lines.includes("layers/back_edge.ts -> src/server/routes.ts: layers may not import the server"),
    );
    assert.ok(lines.includes(
      "import cycle (2 files in one strongly connected component): src/domain/loop_a.ts -> " +
        "src/domain/loop_b.ts -> src/domain/loop_a.ts",
    ));
  } finally {
    await Deno.remove(copy, { recursive: true });
  }
});

Deno.test("README.md's architecture section is the layer table (deno run -A scripts/check_layout.ts --readme)", async () => {
  const readme = await Deno.readTextFile(join(root, "README.md"));
  const section = readmeSection(root);
  assert.ok(readme.includes(section), "README.md's architecture section is stale");
  for (const layer of layers.filter((l) => l.paths.some((p) => section.includes(p)))) {
    assert.ok(section.includes(layer.holds), `${layer.name} is described`);
  }
});

Deno.test("this repository has no import cycle and no edge against the direction", async () => {
  assert.deepEqual(violations(await readImportGraph(root)), []);
});
