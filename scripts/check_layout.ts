/**
 * The layout check (run by `npm test`): dependencies point one way. Every import of the repository's own files
 * (`import`, `import type`, `export … from`, dynamic `import()`, `new Worker(new URL(…))`) is an edge; the check
 * fails on any import cycle, and on any edge from a layer to a layer that may not be below it in `layers` (the
 * table below, the only place the ranks are written; README.md's architecture section is generated from it).
 *
 *   deno run -A scripts/check_layout.ts            # exit 1 and one line per violation, or "layout: ok …"
 *   deno run -A scripts/check_layout.ts --readme   # rewrite README.md's architecture section from the table
 *
 * A file may import its own folder and the layers below its own; `scripts/` and `test/` may import anything. No
 * file may be in a cycle. Packages (npm:, node:, bare names) are not edges; `import type` is.
 */
import { dirname, join, normalize, relative } from "node:path";
import { fileURLToPath } from "node:url";

export interface LayoutLayer {
  /** Folders (ending in `/`) or files of the layer, relative to the repository root. */
  readonly paths: ReadonlyArray<string>;
  /** What the layer is called in messages ("layers may not import protocol adapters"). */
  readonly name: string;
  /** What it holds, one line of README.md. */
  readonly holds: string;
}

/**
 * The ranks, lowest first: a file may import the layers above its own in this list, and its own folder (not in a
 * cycle); the folders of one layer (the protocol adapters) may not import each other.
 */
export const layers: ReadonlyArray<LayoutLayer> = [
  {
    paths: ["schemas/"],
    name: "schemas",
    holds: "the contract: Schemas of answers and errors, db-sync's SQL, migrations",
  },
  {
    paths: ["src/domain/"],
    name: "the domain",
    holds: "domain errors and values: ids, ratios, eras, protocol parameters, rewards, endpoint families",
  },
  {
    paths: ["src/dbsync/"],
    name: "db-sync",
    holds: "what a db-sync database is: its schema, release and layout, our indexes",
  },
  {
    paths: ["src/queries/"],
    name: "queries",
    holds: "db-sync SQL, one module per resource; the model GraphQL is built from",
  },
  {
    paths: ["src/demo_chain/"],
    name: "the demo chain",
    holds: "the demo-chain generator that seeds a fresh embedded database",
  },
  {
    paths: ["src/devnet/"],
    name: "the devnet",
    holds: "the living devnet: submitted transactions validated, written as blocks",
  },
  {
    paths: ["layers/"],
    name: "layers",
    holds: "Tags and infrastructure (databases, access, limiter, caches, tips, …)",
  },
  {
    paths: ["src/programs/"],
    name: "programs",
    holds: "Effect programs: one per answer, cached per block where it pays",
  },
  {
    paths: ["src/http/"],
    name: "shared HTTP helpers",
    holds: "what the protocol adapters share of HTTP: the route type, bodies, compression, pages",
  },
  {
    paths: ["src/rest/", "src/graphql/", "src/jsonrpc/", "src/blockfrost/", "src/dashboard/"],
    name: "protocol adapters",
    holds:
      "REST and explorer, GraphQL, Ogmios JSON-RPC, Blockfrost-compatible, the key dashboard, each with its routes; never each other",
  },
  {
    paths: ["src/server/"],
    name: "the server",
    holds:
      "the handler: the route list (its own and the adapters'), access (key, limits, usage), the HTTP edge",
  },
  {
    paths: ["src/main.ts"],
    name: "main",
    holds: "the process: configuration, layers/app_layer.ts built once, Deno.serve",
  },
];

/** Folders whose files may import anything (not in a cycle). */
const free = ["scripts/", "test/"];
/** Where the repository's own source files are. */
const roots = ["schemas", "src", "layers", "scripts", "test"];
/** Not source: vendored references, installed packages. */
const skipped = (path: string) => path === "schemas/reference" || path.endsWith("node_modules");

/** file -> the repository files it imports, all relative to the repository root. */
export type ImportGraph = ReadonlyMap<string, ReadonlyArray<string>>;

const statement = /^[ \t]*(?:import|export)\b[^;=()"'`]*?\bfrom\s*(["'])([^"'\n]+)\1/gm;
const bare = /^[ \t]*import\s*(["'])([^"'\n]+)\1/gm;
const dynamic = /\bimport\(\s*(["'])([^"'\n]+)\1\s*\)/g;
const worker = /\bnew\s+Worker\(\s*new\s+URL\(\s*(["'])([^"'\n]+)\1/g;

/** The specifiers a module's text imports (its own files and packages alike). */
export const specifiers = (text: string): Array<string> =>
  [statement, bare, dynamic, worker].flatMap((re) => [...text.matchAll(re)].map((m) => m[2]!));

/** A specifier as a path relative to the root, or undefined for a package (npm:, node:, a bare name). */
export const resolve = (
  from: string,
  specifier: string,
  aliases: Readonly<Record<string, string>>,
): string | undefined => {
  if (specifier.startsWith("./") || specifier.startsWith("../")) {
    return normalize(join(dirname(from), specifier));
  }
  for (const [alias, target] of Object.entries(aliases)) {
    if (alias.endsWith("/") ? specifier.startsWith(alias) : specifier === alias) {
      if (!target.startsWith("./") && !target.startsWith("../")) return undefined;
      return normalize(join(target, specifier.slice(alias.length)));
    }
  }
  return undefined;
};

const sources = (root: string, dir: string): Array<string> => {
  let entries: Array<Deno.DirEntry>;
  try {
    entries = [...Deno.readDirSync(join(root, dir))];
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return [];
    throw e;
  }
  return entries.flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory) return skipped(path) ? [] : sources(root, path);
    return /\.(ts|tsx)$/.test(e.name) && !e.name.endsWith(".d.ts") ? [path] : [];
  });
};

/** The import graph of the repository at `root`, with the aliases of its deno.json. */
export const readImportGraph = async (root: string): Promise<ImportGraph> => {
  const deno = JSON.parse(await Deno.readTextFile(join(root, "deno.json")));
  const aliases: Record<string, string> = deno.imports ?? {};
  const files = roots.flatMap((dir) => sources(root, dir)).sort();
  const graph = new Map<string, Array<string>>();
  for (const file of files) {
    const text = await Deno.readTextFile(join(root, file));
    const targets = specifiers(text).flatMap((s) => resolve(file, s, aliases) ?? []);
    graph.set(file, [...new Set(targets)].filter((t) => t !== file && !t.startsWith("..")).sort());
  }
  return graph;
};

/** The layer a file belongs to: undefined for scripts/ and test/, "none" for a source file of no layer. */
export const layerOf = (file: string): LayoutLayer | "none" | undefined => {
  if (free.some((f) => file.startsWith(f))) return undefined;
  return layers.find((l) => l.paths.some((p) => within(file, p))) ?? "none";
};

const within = (file: string, path: string) => path.endsWith("/") ? file.startsWith(path) : file === path;

/** Edges against the direction, one message each: `from -> to: <layer> may not import <layer>`. */
export const directionViolations = (graph: ImportGraph): Array<string> => {
  const out: Array<string> = [];
  const homeless = new Set<string>();
  for (const [from, targets] of graph) {
    const source = layerOf(from);
    if (source === undefined) continue;
    if (source === "none") {
      homeless.add(from);
      continue;
    }
    for (const to of targets) {
      const target = layerOf(to);
      if (target === undefined) out.push(`${from} -> ${to}: ${source.name} may not import scripts or tests`);
      else if (target === "none") homeless.add(to);
      else if (target === source) {
        const folder = (f: string) => source.paths.find((p) => within(f, p));
        if (folder(from) !== folder(to)) {
          out.push(`${from} -> ${to}: ${source.name} may not import each other`);
        }
      } else if (layers.indexOf(target) > layers.indexOf(source)) {
        out.push(`${from} -> ${to}: ${source.name} may not import ${target.name}`);
      }
    }
  }
  for (const file of homeless) {
    out.push(`${file}: in no layer of scripts/check_layout.ts (add its folder to the table)`);
  }
  return out;
};

/** Strongly connected components of more than one file (Tarjan's algorithm, iterative). */
export const cycles = (graph: ImportGraph): Array<Array<string>> => {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: Array<string> = [];
  const components: Array<Array<string>> = [];
  let next = 0;
  for (const start of graph.keys()) {
    if (index.has(start)) continue;
    const work: Array<[string, number]> = [[start, 0]];
    index.set(start, next);
    low.set(start, next++);
    stack.push(start);
    onStack.add(start);
    while (work.length > 0) {
      const frame = work[work.length - 1]!;
      const [node, i] = frame;
      const targets = graph.get(node) ?? [];
      if (i < targets.length) {
        frame[1]++;
        const to = targets[i]!;
        if (!index.has(to)) {
          index.set(to, next);
          low.set(to, next++);
          stack.push(to);
          onStack.add(to);
          work.push([to, 0]);
        } else if (onStack.has(to)) low.set(node, Math.min(low.get(node)!, index.get(to)!));
        continue;
      }
      work.pop();
      if (work.length > 0) {
        const parent = work[work.length - 1]![0];
        low.set(parent, Math.min(low.get(parent)!, low.get(node)!));
      }
      if (low.get(node) === index.get(node)) {
        const component: Array<string> = [];
        let member: string;
        do {
          member = stack.pop()!;
          onStack.delete(member);
          component.push(member);
        } while (member !== node);
        if (component.length > 1) components.push(component.sort());
      }
    }
  }
  return components;
};

/** The shortest loop from the component's first file back to it (breadth first, inside the component). */
export const loopOf = (graph: ImportGraph, component: ReadonlyArray<string>): Array<string> => {
  const inside = new Set(component);
  const start = component[0]!;
  const cameFrom = new Map<string, string>();
  const queue = [start];
  for (let at = 0; at < queue.length; at++) {
    const node = queue[at]!;
    for (const to of graph.get(node) ?? []) {
      if (!inside.has(to)) continue;
      if (to === start) {
        const loop = [start];
        for (let n: string | undefined = node; n !== undefined && n !== start; n = cameFrom.get(n)) {
          loop.splice(1, 0, n);
        }
        return [...loop, start];
      }
      if (!cameFrom.has(to)) {
        cameFrom.set(to, node);
        queue.push(to);
      }
    }
  }
  return [start, start];
};

/** Every violation: each cycle as its file loop, then each edge against the direction. */
export const violations = (graph: ImportGraph): Array<string> => [
  ...cycles(graph).map((c) =>
    `import cycle (${c.length} files in one strongly connected component): ${loopOf(graph, c).join(" -> ")}`
  ),
  ...directionViolations(graph),
];

const begin = "<!-- generated by `deno run -A scripts/check_layout.ts --readme` from its layer table -->";
const end = "<!-- end of the generated layer table -->";

/** README.md's architecture sketch: the layers present under `root`, lowest last, as the table says. */
export const readmeSection = (root: string): string => {
  const exists = (p: string) => {
    try {
      Deno.statSync(join(root, p));
      return true;
    } catch {
      return false;
    }
  };
  const present = layers
    .map((l) => ({ ...l, paths: l.paths.filter(exists) }))
    .filter((l) => l.paths.length > 0)
    .reverse();
  const names = present.map((l) => l.paths.join(" "));
  const width = Math.max(...names.map((n) => n.length)) + 2;
  const lines = present.map((l, i) => `${names[i]!.padEnd(width)}${l.holds}`);
  const rule = [
    "Each line may import only the lines below it and its own folder, and no file may be in an import cycle",
    "(`import type` counts). `npm test` checks it with `scripts/check_layout.ts`, where this table is kept.",
  ];
  return [begin, "", "```", ...lines, "```", "", ...rule, "", end].join("\n");
};

/** README.md with its generated section replaced by the current one (or unchanged when it has none). */
export const withReadmeSection = (readme: string, section: string): string => {
  const from = readme.indexOf(begin);
  const to = readme.indexOf(end);
  if (from < 0 || to < from) return readme;
  return readme.slice(0, from) + section + readme.slice(to + end.length);
};

if (import.meta.main) {
  const root = relative(Deno.cwd(), fileURLToPath(new URL("..", import.meta.url))) || ".";
  const readmePath = join(root, "README.md");
  const readme = await Deno.readTextFile(readmePath);
  const current = withReadmeSection(readme, readmeSection(root));
  if (Deno.args.includes("--readme")) {
    if (!readme.includes(begin)) throw new Error("README.md has no generated layer table to replace");
    await Deno.writeTextFile(readmePath, current);
    console.log("README.md: architecture section written");
    Deno.exit(0);
  }
  const started = performance.now();
  const graph = await readImportGraph(root);
  const found = violations(graph);
  if (current !== readme || !readme.includes(begin)) {
    found.push(
      "README.md: the architecture section is not the layer table; run deno run -A scripts/check_layout.ts --readme",
    );
  }
  const ms = Math.round(performance.now() - started);
  for (const v of found) console.error(v);
  const edges = [...graph.values()].reduce((n, t) => n + t.length, 0);
  if (found.length > 0) {
    console.error(`layout: ${found.length} violations (${graph.size} files, ${edges} imports, ${ms} ms)`);
    Deno.exit(1);
  }
  console.log(`layout: ok (${graph.size} files, ${edges} imports, ${ms} ms)`);
}
