/**
 * Compiles Solidity sources with the npm `solc` (pinned in package.json, no download) and writes,
 * next to them, an `artifacts.ts` module holding each deployable contract's ABI and creation code.
 *
 *   npx tsx scripts/compile-contracts.ts                 # the project's contracts
 *   npx tsx scripts/compile-contracts.ts path/to/X.sol   # only these (one module per directory)
 *
 * The artifacts are committed: deposit addresses are derived from the forwarder's creation code,
 * so the bytes in use must be reviewable in git, not whatever a compiler produces on the day.
 * test/adapters/chain/evm/contracts.test.ts recompiles and compares, byte for byte.
 */
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { Abi, Hex } from "viem";

/** The repository root (this file lives in <root>/scripts). */
export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/** What `npx tsx scripts/compile-contracts.ts` compiles when given no paths (relative to the root). */
export const DEFAULT_SOURCES = ["src/adapters/chain/evm/contracts/ForwarderFactory.sol", "test/fixtures/contracts/TestContracts.sol"];

/** The command written into every generated header. */
export const GENERATE_COMMAND = "npx tsx scripts/compile-contracts.ts";

/**
 * Compiler settings. Cancun is the newest hardfork Ethereum and BSC both run that the sweep needs
 * (EIP-6780 selfdestruct). No metadata is appended to the bytecode: otherwise editing a comment
 * would change the metadata hash, hence the forwarder's creation code, hence every deposit address.
 */
export const SOLC_SETTINGS = {
  optimizer: { enabled: true, runs: 200 },
  evmVersion: "cancun",
  metadata: { appendCBOR: false, bytecodeHash: "none" },
  outputSelection: { "*": { "*": ["abi", "evm.bytecode.object", "userdoc"] } },
} as const;

/** One deployable contract out of the compiler. */
export interface CompiledContract {
  /** The contract's Solidity name. */
  name: string;
  /** The source it came from, relative to the repository root. */
  source: string;
  abi: Abi;
  /** Creation code (constructor arguments, if any, are appended by the deployer). */
  bytecode: Hex;
  /** The contract's `/// ...` notice, if it has one. */
  notice?: string;
}

/** A compiler diagnostic. */
export interface CompilerMessage {
  severity: "error" | "warning" | "info";
  message: string;
}

/** The output of {@link compileContracts}. */
export interface Compilation {
  /** solc's full version string, e.g. 0.8.37+commit.f401782d.Emscripten.clang. */
  compilerVersion: string;
  /** Deployable contracts (interfaces and abstract contracts have no code and are left out). */
  contracts: CompiledContract[];
  warnings: CompilerMessage[];
}

interface SolcOutput {
  errors?: { severity: CompilerMessage["severity"]; formattedMessage: string }[];
  contracts?: Record<string, Record<string, { abi: Abi; evm: { bytecode: { object: string } }; userdoc?: { notice?: string } }>>;
}

/**
 * Compiles the given sources (paths relative to the repository root) together, in process.
 * Throws with every compiler error if there is any. Takes a few seconds: solc is emscripten.
 */
export async function compileContracts(sources: readonly string[]): Promise<Compilation> {
  const { default: solc } = await import("solc");
  const input = {
    language: "Solidity",
    sources: Object.fromEntries(sources.map((source) => [source, { content: readSource(source) }])),
    settings: SOLC_SETTINGS,
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input))) as SolcOutput;
  const messages = (output.errors ?? []).map((e) => ({ severity: e.severity, message: e.formattedMessage }));
  const errors = messages.filter((m) => m.severity === "error");
  if (errors.length > 0) {
    throw new Error(`solc ${solc.version()} failed on ${sources.join(", ")}:\n${errors.map((e) => e.message).join("\n")}`);
  }
  const contracts: CompiledContract[] = [];
  for (const source of sources) {
    for (const [name, out] of Object.entries(output.contracts?.[source] ?? {})) {
      if (out.evm.bytecode.object === "") continue;
      const notice = out.userdoc?.notice?.trim();
      contracts.push({ name, source, abi: out.abi, bytecode: `0x${out.evm.bytecode.object}`, ...(notice ? { notice } : {}) });
    }
  }
  return { compilerVersion: String(solc.version()), contracts, warnings: messages.filter((m) => m.severity !== "error") };
}

/** Reads a source with LF line ends, so a Windows checkout hashes and compiles the same. */
export function readSource(source: string): string {
  return readFileSync(join(REPO_ROOT, source), "utf8").replace(/\r\n/g, "\n");
}

/** Where the artifacts of a source go: `artifacts.ts` in its directory. */
export function artifactsPathFor(source: string): string {
  return join(dirname(source), "artifacts.ts");
}

/**
 * The text of an artifacts module. For each contract it exports `<name>Abi` (as const, for viem's
 * types) and its creation code: `<name>InitCode` for a contract with no function, receive or
 * fallback (it only ever runs its constructor, e.g. under CREATE2), `<name>Bytecode` otherwise.
 * The header names the sources' sha256, so that even a comment edit demands regeneration.
 */
export function renderArtifacts(compilation: Compilation, sources: readonly string[]): string {
  const header = [
    `// GENERATED by \`${GENERATE_COMMAND}\`: do not edit by hand.`,
    `// Compiled with solc ${compilerSummary(compilation.compilerVersion)}, optimizer ${SOLC_SETTINGS.optimizer.runs} runs, evmVersion ${SOLC_SETTINGS.evmVersion}, no metadata appended.`,
    ...sources.map((source) => `// ${source} sha256 ${sha256(readSource(source))}`),
    "",
    `import type { Hex } from "viem";`,
  ];
  const blocks = compilation.contracts
    .filter((c) => sources.includes(c.source))
    .map((c) => {
      const base = c.name.charAt(0).toLowerCase() + c.name.slice(1);
      const runsOnlyConstructor = !c.abi.some((item) => item.type === "function" || item.type === "receive" || item.type === "fallback");
      const codeName = runsOnlyConstructor ? `${base}InitCode` : `${base}Bytecode`;
      const about = c.notice ? ` ${c.notice}` : "";
      return [
        `/** ABI of ${c.name}.${about} */`,
        `export const ${base}Abi = ${JSON.stringify(c.abi, null, 2)} as const;`,
        "",
        `/** Creation code of ${c.name}${runsOnlyConstructor ? " (it has no functions: only its constructor ever runs)" : ""}. */`,
        `export const ${codeName}: Hex = "${c.bytecode}";`,
      ].join("\n");
    });
  return `${[header.join("\n"), ...blocks].join("\n\n")}\n`;
}

function compilerSummary(version: string): string {
  return version.replace(/\.Emscripten.*$/, "");
}

function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

/**
 * The text of the artifacts module of `sources` (which must share a directory), compiled on their
 * own: a module's bytes must not depend on what else happened to be compiled in the same run.
 */
export async function buildArtifactsModule(sources: readonly string[]): Promise<{ text: string; compilation: Compilation }> {
  const compilation = await compileContracts(sources);
  return { text: renderArtifacts(compilation, sources), compilation };
}

/** Compiles `sources` and writes one artifacts module per directory. Returns the modules written. */
export async function generate(sources: readonly string[]): Promise<{ path: string; warnings: CompilerMessage[] }[]> {
  const byModule = new Map<string, string[]>();
  for (const source of sources) {
    const path = artifactsPathFor(source);
    byModule.set(path, [...(byModule.get(path) ?? []), source]);
  }
  const written = [];
  for (const [path, group] of byModule) {
    const { text, compilation } = await buildArtifactsModule(group);
    writeFileSync(join(REPO_ROOT, path), text);
    written.push({ path, warnings: compilation.warnings });
  }
  return written;
}

async function main(argv: string[]): Promise<void> {
  const sources = argv.length > 0 ? argv.map((p) => relative(REPO_ROOT, resolve(p)).split("\\").join("/")) : DEFAULT_SOURCES;
  const bad = sources.filter((s) => !s.endsWith(".sol") || s.startsWith(".."));
  if (bad.length > 0) throw new Error(`expected .sol files inside the repository, got: ${bad.join(", ")}`);
  for (const { path, warnings } of await generate(sources)) {
    for (const warning of warnings) console.warn(warning.message);
    console.log(`wrote ${path}`);
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  main(process.argv.slice(2)).catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 1;
  });
}
