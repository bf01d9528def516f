import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { beforeAll, describe, expect, it } from "vitest";

/**
 * Every TypeScript snippet of the README and the guides compiles: each ```ts (or ```typescript)
 * block of README.md and docs/**.md is a whole module (its imports written out) and must pass
 * `tsc --strict` as a reader pastes it. "express-crypto-pay" and its subpaths resolve to the
 * sources (src/), so no build is needed. All snippets are compiled in one program (one type
 * check of the library, not one per snippet) and each is reported on its own, by file and line.
 *
 * Names a snippet takes from the reader's own application (an order system, a storage of their
 * own) are imported from `./orders`, `./my-storage`...: test/docs/snippet-app/ holds those
 * modules, and the snippets are compiled as if they were files of that folder.
 */

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const appDir = join(root, "test/docs/snippet-app");

interface Snippet {
  /** Where it is written, `docs/chains.md:67` (the line of its opening fence). */
  name: string;
  /** The virtual file it is compiled as, in test/docs/snippet-app/. */
  fileName: string;
  code: string;
}

/**
 * The Markdown files whose snippets are checked: README.md and every .md under docs/, but the
 * public API reports of docs/api/ (written by API Extractor: declarations, not modules to run).
 */
function markdownFiles(): string[] {
  const found = ["README.md"];
  const walk = (dir: string) => {
    for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
      const path = `${dir}/${entry.name}`;
      if (path === "docs/api") continue;
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith(".md")) found.push(path);
    }
  };
  walk("docs");
  return found;
}

/** The ```ts and ```typescript blocks of one file (fences may be indented, as in a list). */
function snippetsOf(file: string): Snippet[] {
  const lines = readFileSync(join(root, file), "utf8").split("\n");
  const snippets: Snippet[] = [];
  for (let index = 0; index < lines.length; index++) {
    const open = /^(\s*)```(ts|typescript)\s*$/.exec(lines[index]!);
    if (!open) continue;
    const indent = open[1]!.length;
    const start = index + 1;
    const body: string[] = [];
    for (index++; index < lines.length && !/^\s*```\s*$/.test(lines[index]!); index++) {
      body.push(lines[index]!.slice(Math.min(indent, lines[index]!.search(/\S|$/))));
    }
    const fileName = join(appDir, `${file.replace(/[^A-Za-z0-9]+/g, "_")}_line_${start}.ts`);
    // `export {}` keeps a snippet without imports a module, so snippets never share names.
    snippets.push({ name: `${file}:${start}`, fileName, code: `${body.join("\n")}\nexport {};\n` });
  }
  return snippets;
}

const snippets = markdownFiles().flatMap(snippetsOf);

/** The package's entry points, as a host app imports them, mapped to the sources. */
const entryPoints: Record<string, string[]> = {
  "express-crypto-pay": ["src/index.ts"],
  "express-crypto-pay/postgres": ["src/postgres.ts"],
  "express-crypto-pay/evm": ["src/evm.ts"],
  "express-crypto-pay/bitcoin": ["src/bitcoin.ts"],
  "express-crypto-pay/monero": ["src/monero.ts"],
  "express-crypto-pay/rates": ["src/rates.ts"],
  "express-crypto-pay/testing": ["src/testing/index.ts"],
  "express-crypto-pay/client": ["src/client/index.ts"],
  "express-crypto-pay/webhooks": ["src/webhooks/index.ts"],
  "express-crypto-pay/operator": ["src/operator.ts"],
  "express-crypto-pay/storage": ["src/storage.ts"],
  "express-crypto-pay/chains": ["src/chains.ts"],
};

/** A reader's strict settings: `tsc --strict`, ES modules, Node's types. */
const options: ts.CompilerOptions = {
  noEmit: true,
  strict: true,
  target: ts.ScriptTarget.ES2022,
  lib: ["lib.es2022.d.ts"],
  module: ts.ModuleKind.ESNext,
  moduleResolution: ts.ModuleResolutionKind.Bundler,
  esModuleInterop: true,
  skipLibCheck: true,
  resolveJsonModule: true,
  types: ["node"],
  paths: Object.fromEntries(Object.entries(entryPoints).map(([name, [path]]) => [name, [join(root, path!)]])),
};

/** Each snippet's diagnostics, as the compiler prints them, by snippet name. */
let diagnostics: Map<string, string>;

beforeAll(() => {
  const virtual = new Map(snippets.map((snippet) => [snippet.fileName, snippet.code]));
  const host = ts.createCompilerHost(options, true);
  const { fileExists, readFile, getSourceFile } = host;
  host.fileExists = (fileName) => virtual.has(fileName) || fileExists.call(host, fileName);
  host.readFile = (fileName) => virtual.get(fileName) ?? readFile.call(host, fileName);
  host.getSourceFile = (fileName, language, onError, shouldCreate) => {
    const code = virtual.get(fileName);
    return code === undefined ? getSourceFile.call(host, fileName, language, onError, shouldCreate) : ts.createSourceFile(fileName, code, language, true);
  };
  const program = ts.createProgram({ rootNames: [...virtual.keys()], options, host });
  const format: ts.FormatDiagnosticsHost = { getCanonicalFileName: (name) => name, getCurrentDirectory: () => root, getNewLine: () => "\n" };
  const global = [...program.getOptionsDiagnostics(), ...program.getGlobalDiagnostics()];
  diagnostics = new Map(
    snippets.map((snippet) => {
      const file = program.getSourceFile(snippet.fileName)!;
      const found = [...global, ...program.getSyntacticDiagnostics(file), ...program.getSemanticDiagnostics(file)];
      // Lines as the Markdown numbers them: the snippet's first line is the one after its fence.
      const start = Number(snippet.name.split(":").at(-1));
      const text = ts
        .formatDiagnostics(found, format)
        .replaceAll(relative(root, snippet.fileName), snippet.name.split(":")[0]!)
        .replace(/\((\d+),(\d+)\)/g, (_, line: string, column: string) => `(line ${start + Number(line)}, column ${column})`);
      return [snippet.name, text];
    }),
  );
}, 120_000);

describe("TypeScript snippets of the README and docs/ compile under tsc --strict", () => {
  it("finds the snippets", () => {
    expect(snippets.length).toBeGreaterThan(10);
  });

  it.each(snippets.map((snippet) => [snippet.name]))("%s", (name) => {
    const found = diagnostics.get(name);
    if (found) expect.fail(`${name} does not compile:\n${found}`);
  });
});
