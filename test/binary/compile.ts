/**
 * What `npm run compile` puts into the single binary, read from its command: the entry module and the
 * `--include` paths; and what the service may then read at run time (test/binary/): its module graph, the
 * included paths, node_modules (a manual node_modules directory goes into the binary) and DATA_DIR.
 */
import { fileURLToPath } from "node:url";

export const root = fileURLToPath(new URL("../../", import.meta.url));

export interface CompileCommand {
  readonly entry: string;
  readonly includes: ReadonlyArray<string>;
  /** The arguments after `deno` (package.json's form, without the ./node_modules/.bin/ prefix). */
  readonly args: ReadonlyArray<string>;
}

export const compileCommand = (script: string): CompileCommand => {
  const args = script.replace(/^(\.\/node_modules\/\.bin\/)?deno /, "").split(/\s+/);
  const includes = args.flatMap((a, i) => (args[i - 1] === "--include" ? [a] : []));
  return { entry: args.at(-1)!, includes, args };
};

export const packageCompile = async (): Promise<CompileCommand> =>
  compileCommand(JSON.parse(await Deno.readTextFile(`${root}/package.json`)).scripts.compile);

/** The local files (outside node_modules) of the module graphs of `roots` (as `deno info` lists them). */
export const localModuleFiles = async (roots: ReadonlyArray<string>): Promise<Array<string>> => {
  const files = new Set<string>();
  for (const module of roots.filter((r) => /\.[cm]?[jt]sx?$/.test(r))) {
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["info", "--json", module],
      cwd: root,
      stdout: "piped",
      stderr: "piped",
    }).output();
    if (!out.success) throw new Error(`deno info ${module}: ${new TextDecoder().decode(out.stderr)}`);
    const info = JSON.parse(new TextDecoder().decode(out.stdout));
    for (const m of info.modules as Array<{ specifier: string }>) {
      if (m.specifier.startsWith("file:") && !m.specifier.includes("/node_modules/")) {
        files.add(fileURLToPath(m.specifier));
      }
    }
  }
  return [...files].sort();
};
