/**
 * How much a custom storage adapter must write: the members of `Storage` and of
 * `StorageTransaction` that are not optional, counted once each, read from the port's own types
 * with the TypeScript compiler. The optional parts (docs/storage.md, "Optional parts") are what
 * keeps it small; a member added to the required part shows here.
 */
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { OPTIONAL_STORAGE_PARTS } from "../../../src/core/ports/storage/index";

const PORT = fileURLToPath(new URL("../../../src/core/ports/storage/index.ts", import.meta.url));

/** The members of the port's `Storage` and `StorageTransaction`, required or optional (a name in both counts once). */
function members(): { required: Set<string>; optional: Set<string> } {
  const program = ts.createProgram([PORT], {
    strict: true,
    noEmit: true,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    target: ts.ScriptTarget.ES2022,
    skipLibCheck: true,
  });
  const checker = program.getTypeChecker();
  const exported = checker.getExportsOfModule(checker.getSymbolAtLocation(program.getSourceFile(PORT)!)!);
  const required = new Set<string>();
  const optional = new Set<string>();
  for (const name of ["Storage", "StorageTransaction"]) {
    const symbol = exported.find((entry) => entry.name === name);
    if (!symbol) throw new Error(`the storage port exports no ${name}`);
    for (const member of checker.getPropertiesOfType(checker.getDeclaredTypeOfSymbol(symbol))) {
      (member.flags & ts.SymbolFlags.Optional ? optional : required).add(member.name);
    }
  }
  return { required, optional };
}

describe("the Storage port's required part", () => {
  const { required, optional } = members();

  it("asks a custom adapter for at most 80 members (111 before the optional parts)", () => {
    expect(required.size).toBe(79);
    expect(required.size).toBeLessThanOrEqual(80);
  });

  it("leaves optional exactly the optional parts' members, and migrate", () => {
    const parts = Object.values(OPTIONAL_STORAGE_PARTS).flatMap((part) => [...part.reads, ...part.writes]);
    expect([...optional].sort()).toEqual([...parts, "migrate"].sort());
    for (const name of parts) expect(required.has(name), name).toBe(false);
  });

  it("keeps every write the service's money actions need, the audit entry included", () => {
    for (const name of [
      "transaction",
      "close",
      "postLedgerEntries",
      "insertPayout",
      "lockPayout",
      "insertAuditEntry",
      "recordWebhookAttempt",
      "claimIdempotencyKey",
    ]) {
      expect(required.has(name), name).toBe(true);
    }
  });
});
