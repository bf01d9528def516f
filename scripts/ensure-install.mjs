#!/usr/bin/env node
/**
 * Runs before `npm start` and `npm test`: on a fresh clone nothing is installed yet, and the
 * README promises that those two commands work with nothing else typed. When the project's own
 * tools are missing, it installs exactly what package-lock.json pins (`npm ci`); otherwise it
 * does nothing and costs a few milliseconds.
 *
 * With `--system` (npm test), it also installs the system packages the tests run for real: a
 * Litecoin Core node (the Bitcoin-family adapter's tests) and Chromium (the browser tests), from
 * Debian's packages, when they are missing and apt-get can be run (as root, as on CI). Elsewhere
 * it says what to install.
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

if (process.argv.includes("--system")) {
  const packages = [
    { name: "litecoind", present: existsSync("/usr/lib/litecoin/litecoind") },
    { name: "chromium", present: existsSync("/usr/bin/chromium") },
    { name: "monero", present: existsSync("/usr/bin/monerod") && existsSync("/usr/bin/monero-wallet-rpc") },
  ]
    .filter((entry) => !entry.present)
    .map((entry) => entry.name);
  if (packages.length > 0) {
    if (process.getuid?.() === 0 && existsSync("/usr/bin/apt-get")) {
      console.error(`express-crypto-pay: installing ${packages.join(" and ")} for the tests (apt-get)...`);
      execSync(`apt-get update && apt-get install -y ${packages.join(" ")}`, { stdio: "inherit" });
    } else {
      console.error(`express-crypto-pay: the tests need ${packages.join(" and ")} (Debian: apt-get install -y ${packages.join(" ")}).`);
    }
  }
}
