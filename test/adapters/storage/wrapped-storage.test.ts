/**
 * The advice of docs/storage.md ("Wrapping a built-in adapter"), proven on the very code it
 * shows: the wrapper is taken from the guide, compiled as a reader pastes it (test/docs checks
 * that it type-checks under --strict), and must pass the whole conformance suite and report
 * what it promises, over memoryStorage() and over postgresStorage().
 */
import { readFileSync } from "node:fs";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { memoryStorage } from "../../../src/adapters/storage/memory/index";
import type { PostLedgerResult, Storage } from "../../../src/core/ports/storage/index";
import { postgresStorage } from "../../../src/postgres";
import { runStorageAdapterTests, storageFixtures } from "../../../src/testing/index";

const { entry, merchant, TEST } = storageFixtures;

/** What the guide's wrapper reports. */
type LedgerMetric = (status: PostLedgerResult["status"], ms: number) => void;

/** The ```ts block of the guide that defines `withLedgerMetric`. */
function guideSnippet(): string {
  const guide = readFileSync(new URL("../../../docs/storage.md", import.meta.url), "utf8");
  const blocks = [...guide.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((match) => match[1]!);
  const found = blocks.filter((block) => block.includes("export function withLedgerMetric"));
  if (found.length !== 1) throw new Error(`docs/storage.md: expected one snippet defining withLedgerMetric, found ${found.length}`);
  return found[0]!;
}

/**
 * Runs a snippet whose imports are types only (they compile away) and returns its exports. A
 * snippet that needs a module at run time fails here, so that this test never runs anything but
 * the guide's own code.
 */
function load(source: string): Record<string, unknown> {
  const { outputText } = ts.transpileModule(source, { compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022 } });
  const exports: Record<string, unknown> = {};
  const require = (name: string): never => {
    throw new Error(`the guide's wrapper imports "${name}" at run time: only its types should be imported`);
  };
  new Function("exports", "require", outputText)(exports, require);
  return exports;
}

const { withLedgerMetric } = load(guideSnippet()) as { withLedgerMetric: <S extends Storage>(inner: S, report: LedgerMetric) => S };

runStorageAdapterTests({ name: "withLedgerMetric(memoryStorage())", createAdapter: () => withLedgerMetric(memoryStorage(), () => undefined) });

describe("withLedgerMetric, the wrapper the storage guide shows", () => {
  it("reports how each posting ended, and leaves the rest to the storage it wraps", async () => {
    const reports: Array<{ status: string; ms: number }> = [];
    const storage = withLedgerMetric(memoryStorage(), (status, ms) => reports.push({ status, ms }));
    await storage.transaction(async (tx) => {
      await tx.insertMerchant(merchant());
      await tx.postLedgerEntries([entry()]);
      await tx.postLedgerEntries([entry({ id: "le_again" })]);
      await tx.postLedgerEntries([entry({ id: "le_out", causeKey: "payout:po_1", amount: -101n, kind: "payout" })]);
    });
    expect(reports.map((report) => report.status)).toEqual(["posted", "duplicate", "insufficient"]);
    expect(reports.every((report) => report.ms >= 0)).toBe(true);
    expect(await storage.getBalance(TEST, "BTC")).toBe(100n);
    expect(await storage.getMerchant("m_1")).toEqual(merchant());
  });

  it("keeps what postgresStorage adds (ready), and measures its postings the same way", async () => {
    const statuses: string[] = [];
    const storage = withLedgerMetric(postgresStorage({ dataDir: "memory://" }), (status) => statuses.push(status));
    try {
      await storage.ready;
      expect(await storage.transaction((tx) => tx.postLedgerEntries([entry()]))).toEqual({ status: "posted" });
      expect(statuses).toEqual(["posted"]);
      expect(await storage.getBalance(TEST, "BTC")).toBe(100n);
    } finally {
      await storage.close();
    }
  }, 60_000);
});
