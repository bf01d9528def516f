import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { EXPORT_COLUMNS } from "../../src/operator";

/**
 * docs/exports.md documents every column of every kind of export, in the order of the file:
 * each "### <kind>" section's table lists exactly the header row `export()` writes.
 */
describe("docs/exports.md", () => {
  const guide = readFileSync(new URL("../../docs/exports.md", import.meta.url), "utf8");
  const section = (kind: string) => {
    const start = guide.indexOf(`\n### ${kind}\n`);
    if (start === -1) return null;
    const end = guide.indexOf("\n#", start + 1);
    return guide.slice(start, end === -1 ? undefined : end);
  };

  for (const [kind, columns] of Object.entries(EXPORT_COLUMNS)) {
    it(`lists the columns of ${kind} in order`, () => {
      const text = section(kind);
      expect(text, `no "### ${kind}" section`).not.toBeNull();
      const documented = [...text!.matchAll(/^\| `([a-z_]+)` \|/gm)].map((match) => match[1]);
      expect(documented).toEqual([...columns]);
    });
  }
});
