#!/usr/bin/env node
/**
 * Runs before `npm start` and `npm test`: on a fresh clone nothing is installed yet, and the
 * README promises that those two commands work with nothing else typed. When the project's own
 * tools are missing, it installs exactly what package-lock.json pins (`npm ci`); otherwise it
 * does nothing and costs a few milliseconds.
 */
import { execSync } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const needed = ["tsx", "vitest", "tsup"].map((tool) => join(root, "node_modules", ".bin", tool));
if (!needed.every((tool) => existsSync(tool))) {
  console.error("express-crypto-pay: installing dependencies (npm ci) on first run...");
  execSync("npm ci --no-audit --no-fund", { cwd: root, stdio: "inherit" });
}
