import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import type { Page } from "playwright-core";

/**
 * axe-core for the browser tests: its source read once per test file, evaluated in the page
 * under test, and only what a person would hit hardest (serious and critical) reported.
 */

let axeSource: Promise<string> | undefined;

/** axe-core's serious and critical violations of the page as shown, one line each (rule: targets). */
export async function axeViolations(page: Page): Promise<string[]> {
  axeSource ??= readFile(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");
  // Evaluated through the devtools protocol, which the page's CSP does not govern.
  await page.evaluate(await axeSource);
  const result = await page.evaluate<{ violations: Array<{ id: string; impact: string; nodes: Array<{ target: string[] }> }> }>(
    "axe.run(document, { resultTypes: ['violations'] })",
  );
  return result.violations
    .filter((violation) => violation.impact === "serious" || violation.impact === "critical")
    .map((violation) => `${violation.id}: ${violation.nodes.map((node) => node.target.join(" ")).join(", ")}`);
}
