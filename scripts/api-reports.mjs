// The public API report of every entry point, with API Extractor (api-extractor.json), from the
// build's declarations (run `npm run build` first):
//
//   node scripts/api-reports.mjs           checks: fails when an entry point's API differs from
//                                          its committed report, docs/api/<entry>.api.md
//   node scripts/api-reports.mjs --update  writes the reports (`npm run api` builds, then this)
//
// The entry points are read from package.json "exports", so a new one cannot be left without a
// report. API Extractor takes one entry point per run: this runs it once per entry.
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Extractor, ExtractorConfig } from "@microsoft/api-extractor";

const update = process.argv.includes("--update");
const root = fileURLToPath(new URL("..", import.meta.url));
const configPath = join(root, "api-extractor.json");
const packageJsonPath = join(root, "package.json");
const packageJson = JSON.parse(readFileSync(packageJsonPath, "utf8"));
// The standard library declarations (lib.*.d.ts) of the project's TypeScript, the ones the
// build compiled against, rather than those of the compiler bundled with API Extractor.
const typescriptCompilerFolder = dirname(createRequire(import.meta.url).resolve("typescript/package.json"));

/** Each entry point: its ESM declarations (the CommonJS ones are the same API) and its report. */
const entries = Object.entries(packageJson.exports)
  .filter(([subpath]) => subpath !== "./package.json")
  .map(([subpath, target]) => {
    const name = basename(target.import.types, ".d.ts");
    return { declarations: join(root, target.import.types), name, label: `docs/api/${name}.api.md (${packageJson.name}${subpath.slice(1)})` };
  });

const missing = entries.filter(({ declarations }) => !existsSync(declarations));
if (missing.length > 0) {
  console.error(`${missing.map(({ declarations }) => declarations).join(", ")} missing: run \`npm run build\` first.`);
  process.exit(1);
}

/**
 * One run of API Extractor on one entry point: writes its report (--update) or compares it with
 * the committed one. True when it succeeded (on a check: no difference, no warning).
 */
function run({ declarations, name }, temp) {
  const configObject = ExtractorConfig.loadFile(configPath);
  configObject.mainEntryPointFilePath = declarations;
  // The main entry's report names the types it uses and leaves writing them out to the other
  // entries' reports (checked by writtenOutElsewhere): a merchant reads a page, not the whole kit.
  const includeForgottenExports = name === "index" ? false : configObject.apiReport.includeForgottenExports;
  configObject.apiReport = { ...configObject.apiReport, reportFileName: name, reportTempFolder: temp, includeForgottenExports };
  const config = ExtractorConfig.prepare({ configObject, configObjectFullPath: configPath, packageJsonFullPath: packageJsonPath });
  try {
    return Extractor.invoke(config, {
      localBuild: update,
      typescriptCompilerFolder,
      // On a check, the difference itself: the report it would write is in a temporary folder.
      printApiReportDiff: !update,
      // Its notices of the compiler version it bundles, printed on every run, say nothing here.
      messageCallback: (message) => {
        if (message.messageId === "console-preamble" || message.messageId === "console-compiler-version-notice") message.handled = true;
      },
    }).succeeded;
  } catch (error) {
    // API Extractor throws, rather than reports, on a name it cannot follow: a declaration the
    // API uses is missing from the .d.ts, most often a type marked @internal (stripped by the
    // build) that a public one still uses.
    console.error(`${declarations}: ${error.unformattedMessage ?? error.message}. Is it marked @internal while the public API uses it?`);
    return false;
  }
}

const temp = mkdtempSync(join(tmpdir(), "ecp-api-"));
let failed;
try {
  failed = entries.filter((entry) => !run(entry, temp)).map(({ label }) => label);
} finally {
  rmSync(temp, { recursive: true, force: true });
}

/**
 * The types the main entry's report only names (API Extractor's forgotten exports) that no other
 * entry's report writes out: a change to them would show in no report. Empty when all is well.
 */
function writtenOutNowhere() {
  const read = (name) => readFileSync(join(root, "docs", "api", `${name}.api.md`), "utf8");
  const named = [...read("index").matchAll(/The symbol "(\w+)" needs to be exported/g)].map((match) => match[1]);
  const others = entries.filter(({ name }) => name !== "index").map(({ name }) => read(name));
  const declared = (symbol) =>
    others.some((report) => new RegExp(`^(export )?(declare )?(function|class|const|interface|type|enum|namespace) ${symbol}\\b`, "m").test(report));
  return [...new Set(named)].filter((symbol) => !declared(symbol));
}

if (failed.length === 0) {
  const nowhere = writtenOutNowhere();
  if (nowhere.length > 0) {
    console.error(`The main entry uses ${nowhere.join(", ")}, which no other entry point's report writes out: export each from the entry of its reader.`);
    process.exit(1);
  }
}

if (failed.length > 0) {
  console.error(
    update
      ? `\nAPI Extractor failed on ${failed.join(", ")}: see its messages above.`
      : `\nThe public API differs from ${failed.join(", ")}, or API Extractor reported a problem (above).\n` +
          "If the change is deliberate, run `npm run api` and commit the reports with it.",
  );
  process.exit(1);
}
console.log(
  `${update ? "Wrote" : "Checked"} the public API reports of ${entries.length} entry points: docs/api/{${entries.map(({ name }) => name).join(",")}}.api.md`,
);
