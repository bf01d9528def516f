import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cli, json } from "./cli";

/**
 * The CLI's arguments and config module: help, usage errors (exit 2 with a short usage on
 * stderr), and the forms a config module may take.
 */

let dir: string;
const file = (name: string) => join(dir, name);

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "ecp-cli-usage-"));
  await writeFile(file("nothing.mjs"), "export const unrelated = 1;\n");
  await writeFile(file("number.mjs"), "export default 42;\n");
  await writeFile(file("refused.mjs"), 'export default { bodyLimit: "lots" };\n');
  await writeFile(file("throws.mjs"), 'export default () => { throw new Error("DATABASE_URL is not set"); };\n');
  // CommonJS, the options object as module.exports: the embedded database in a directory of its own.
  await writeFile(file("plain.cjs"), `module.exports = { dataDir: ${JSON.stringify(file("data"))} };\n`);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("help", () => {
  it("lists every command and the exit codes with --help, and a command's own help with <command> --help, exit 0 without a config", async () => {
    const all = await cli(["--help"]);
    expect(all.code).toBe(0);
    for (const name of [
      "health",
      "reconcile",
      "merchants create",
      "merchants list",
      "keys issue",
      "keys list",
      "keys revoke",
      "rescan",
      "deliveries list",
      "deliveries redeliver",
      "migrate",
    ]) {
      expect(all.stdout).toContain(`  ${name} `);
    }
    expect(all.stdout).toContain("Exit codes: 0");
    const keys = await cli(["keys", "issue", "-h"]);
    expect(keys.code).toBe(0);
    expect(keys.stdout).toContain("Usage: express-crypto-pay keys issue --merchant ID [--mode test|live]");
    expect(keys.stdout).toContain("the only time it is shown");
  });
});

describe("usage errors exit 2 with the usage on stderr", () => {
  it.each([
    ["no command", [], "error: no command given"],
    ["an unknown command", ["frobnicate"], 'error: unknown command "frobnicate"'],
    ["a group without its subcommand", ["keys"], "error: keys needs a subcommand (issue, list, revoke)"],
    ["an unknown subcommand", ["merchants", "delete"], 'error: merchants has no subcommand "delete"'],
    ["an unknown flag", ["health", "--verbose"], "Unknown option '--verbose'"],
    ["a flag of another command", ["health", "--merchant", "m_1"], "Unknown option '--merchant'"],
    ["a missing argument", ["keys", "revoke"], "error: missing KEY_ID"],
    ["an extra argument", ["health", "now"], 'error: unexpected argument "now"'],
    ["no --config and no EXPRESS_CRYPTO_PAY_CONFIG", ["health"], "error: no configuration: pass --config <module> or set EXPRESS_CRYPTO_PAY_CONFIG"],
  ])("%s", async (_title, args, message) => {
    const run = await cli(args);
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toContain(message);
    expect(run.stderr).toContain("Usage: express-crypto-pay");
    expect(run.stdout).toBe("");
  });

  it.each([
    ["keys issue", ["--merchant", "m_1", "--mode", "prod"], '--mode must be "test" or "live"'],
    ["keys list", [], "--merchant is required"],
    ["merchants create", ["--name", " "], "--name is required"],
    ["merchants list", ["--limit", "0"], "--limit must be a whole number from 1 to 1000"],
    ["rescan", ["--chain", "ETH", "--from", "1.5"], "--from must be a block height"],
    ["deliveries list", ["--mode", "staging"], '--mode must be "test" or "live"'],
  ])("%s with a bad flag value exits 2 before the config is loaded", async (command, flags, message) => {
    // The config named does not exist: the flags are refused before it is looked for.
    const run = await cli([...command.split(" "), ...flags, "--config", file("missing.mjs")]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`error: ${message}`);
    expect(run.stderr).toContain(`Usage: express-crypto-pay ${command}`);
  });

  it.each([
    ["a module that does not exist", "missing.mjs", "was not found"],
    ["a module exporting neither default nor options", "nothing.mjs", 'exports neither a default export nor "options"'],
    ["a module exporting something else than options", "number.mjs", "must export the createPaymentRouter options"],
    ["options the router refuses", "refused.mjs", "the configuration was refused: createPaymentService: bodyLimit"],
    ["an options function that throws", "throws.mjs", "failed: DATABASE_URL is not set"],
  ])("%s", async (_title, name, message) => {
    const run = await cli(["health", "--config", file(name)]);
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toContain(message);
  });
});

describe("config modules", { timeout: 120_000 }, () => {
  it("loads a CommonJS module's options object, from --config or EXPRESS_CRYPTO_PAY_CONFIG, and prints the health report as text or JSON", async () => {
    const text = await cli(["health", "--config", file("plain.cjs")]);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/^status: ok\nstorage: reachable \([\d.]+ ms\)\nchains: none configured\n/);
    expect(text.stdout).toContain("webhooks: 0 retrying, 0 due");
    const fromEnv = await cli(["health", "--json"], { EXPRESS_CRYPTO_PAY_CONFIG: file("plain.cjs") });
    expect(fromEnv.code, fromEnv.stderr).toBe(0);
    const report = json(fromEnv);
    expect(report.status).toBe("ok");
    expect(report.background).toEqual({ running: false, schedules: [] });
    expect(report.storage.reachable).toBe(true);
  });

  it("a failing command exits 1 with its error on stderr, and with --json an error object on stdout", async () => {
    const run = await cli(["keys", "issue", "--merchant", "m_nobody", "--json", "--config", file("plain.cjs")]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("error: No merchant with id");
    expect(json(run).error).toEqual({ message: expect.stringContaining("m_nobody"), type: "not_found" });
  });
});
