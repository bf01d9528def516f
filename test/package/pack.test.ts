import { execFile } from "node:child_process";
import { cp, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startService } from "../cli/service";

/**
 * The package as users get it: `npm pack` (which builds first, through the prepack script),
 * then the tarball installed into fresh apps with their own package.json, from the registry
 * like any dependency (`--prefer-offline`: what this repository installed is in npm's cache).
 * Consumers in test/package/consumer/ use it from ESM, CommonJS and TypeScript (tsc --strict),
 * and one app installs it beside Express 4, without --legacy-peer-deps.
 */

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const CONSUMER = fileURLToPath(new URL("./consumer/", import.meta.url));
const OUTPUT = { maxBuffer: 64 * 1024 * 1024 };
const INSTALL = ["install", "--prefer-offline", "--no-audit", "--no-fund", "--ignore-scripts"];

/** The version this repository installed (package-lock.json), so that npm finds it in its cache. */
async function installed(name: string): Promise<string> {
  return (JSON.parse(await readFile(join(ROOT, "node_modules", name, "package.json"), "utf8")) as { version: string }).version;
}

/** A fresh app: its own package.json, the given files of test/package/consumer, and `npm install` of `packages`. */
async function freshApp(dir: string, files: string[], packages: string[]): Promise<void> {
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, "package.json"), JSON.stringify({ name: "consumer-app", version: "1.0.0", private: true }, null, 2));
  for (const file of files) await cp(join(CONSUMER, file), join(dir, file));
  await run("npm", [...INSTALL, ...packages], { cwd: dir, ...OUTPUT });
}

/** Runs a consumer with node and returns the JSON line it printed last. */
async function consumer(dir: string, file: string): Promise<Record<string, any>> {
  const { stdout } = await run(process.execPath, [file], { cwd: dir, ...OUTPUT, timeout: 120_000 });
  return JSON.parse(stdout.trim().split("\n").at(-1)!) as Record<string, any>;
}

let work: string;
let tarball: string;
let app: string;
let app4: string;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), "express-crypto-pay-pack-"));
  await run("npm", ["pack", "--pack-destination", work], { cwd: ROOT, ...OUTPUT });
  const packed = (await readdir(work)).filter((file) => file.endsWith(".tgz"));
  expect(packed).toHaveLength(1);
  tarball = join(work, packed[0]!);
  const express = `express@${await installed("express")}`;
  app = join(work, "app");
  await freshApp(
    app,
    ["esm.mjs", "cjs.cjs", "client-errors.mjs", "client-errors.cjs", "typed.mts", "typed.cts", "last-readme.mts", "tsconfig.json", "cli-config.mjs"],
    [
      tarball,
      express,
      `typescript@${await installed("typescript")}`,
      `@types/express@${await installed("@types/express")}`,
      `@types/node@${await installed("@types/node")}`,
    ],
  );
  app4 = join(work, "app-express4");
  await freshApp(app4, ["cjs.cjs"], [tarball, `express@${await installed("express4")}`]);
}, 600_000);

afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

describe("the packed package", () => {
  it("holds the build, its types and the reference page's assets, and no sources or tests", async () => {
    const { stdout } = await run("tar", ["-tzf", tarball], OUTPUT);
    const files = stdout
      .trim()
      .split("\n")
      .map((file) => file.replace(/^package\//, ""));
    for (const entry of ["index", "postgres", "evm", "rates", "bitcoin"]) {
      expect(files).toEqual(expect.arrayContaining([`dist/${entry}.js`, `dist/${entry}.cjs`, `dist/${entry}.d.ts`, `dist/${entry}.d.cts`]));
    }
    expect(files).toEqual(expect.arrayContaining(["dist/testing.js", "dist/testing.d.ts", "dist/cli.js", "package.json", "README.md"]));
    expect(files).toEqual(
      expect.arrayContaining(
        ["swagger-ui-bundle.js", "swagger-ui.css", "favicon-32x32.png", "favicon-16x16.png", "LICENSE", "NOTICE"].map((file) => `dist/swagger-ui/${file}`),
      ),
    );
    expect(files.filter((file) => /^(src|test|examples|bench|scripts|\.ci)\//.test(file))).toEqual([]);
  });

  it("installs without swagger-ui-dist, @scarf/scarf or any other package with an install script", async () => {
    const { stdout } = await run("npm", ["query", ":attr(scripts, [preinstall]), :attr(scripts, [install]), :attr(scripts, [postinstall])"], {
      cwd: app,
      ...OUTPUT,
    });
    const withScripts = (JSON.parse(stdout) as Array<{ name: string; scripts: Record<string, string> }>).map(
      (found) => `${found.name}: ${JSON.stringify(found.scripts)}`,
    );
    expect(withScripts).toEqual([]);
    for (const name of ["swagger-ui-dist", "@scarf/scarf"]) {
      await expect(stat(join(app, "node_modules", name))).rejects.toThrow(/ENOENT/);
    }
  });

  it("runs an ESM app on the embedded defaults: API, hosted page (branded, in German, with a wallet link), API reference and a webhook to itself", async () => {
    const seen = await consumer(app, "esm.mjs");
    expect(seen.payment).toEqual({ status: 200, state: "PENDING" });
    expect(seen.unknownInvoice).toEqual({ status: 404, error: 40401 });
    expect(seen.webhooksSent).toBe(1);
    expect(seen.received).toEqual(["order-1"]);
    expect(seen.page).toMatchObject({ status: 200, type: expect.stringMatching(/^text\/html/) });
    expect(seen.hostedPage).toEqual({
      lang: "de",
      walletLink: "ethereum:0xdAC17F958D2ee523a2206206994597C13D831ec7@1/transfer?address=…&amp;uint256=25000000",
      brand: true,
      heading: "Mit Tether (USDT) bezahlen",
    });
    expect(seen.reference).toMatchObject({ status: 200, type: expect.stringMatching(/^text\/html/) });
    expect(seen.openapi).toMatchObject({ status: 200, type: expect.stringMatching(/^application\/json/) });
    expect(seen.bundle).toMatchObject({ status: 200, type: expect.stringMatching(/javascript/) });
    expect(seen.bundle.size).toBeGreaterThan(500_000);
    expect(seen.stylesheet).toMatchObject({ status: 200, type: expect.stringMatching(/^text\/css/) });
  }, 120_000);

  it("runs a CommonJS app that requires every entry point but ./testing", async () => {
    const seen = await consumer(app, "cjs.cjs");
    expect(seen.entries).toEqual(Array(9).fill("function"));
    expect(seen.autoPagingMax).toBe(10_000);
    expect(seen.invoice).toEqual({ status: 200, state: "PENDING" });
    expect(seen.unknownInvoice).toEqual({ status: 404, error: 40401 });
    expect(seen.verified).toBe("custom.event");
  }, 120_000);

  it.each(["client-errors.mjs", "client-errors.cjs"])(
    "%s: the client's and forMerchant's errors are the exported classes, lists paginate, typos are named",
    async (file) => {
      const seen = await consumer(app, file);
      expect(seen.listed).toEqual(["3", "2", "1"]);
      expect(seen.notFound).toEqual([true, true, 40401]);
      expect(seen.authentication).toEqual([true, true, 40101]);
      expect(seen.inProcess).toEqual([true, true, 40401]);
      expect(seen.typos).toEqual([
        expect.stringContaining("unknown option(s) publicURL (did you mean publicUrl?)"),
        expect.stringContaining("unknown option(s) dataDIR (did you mean dataDir?)"),
      ]);
    },
    120_000,
  );

  it("type-checks a TypeScript app, and the app of the last release's README, with tsc --strict (ESM and CommonJS types), and runs the first", async () => {
    await run(join(app, "node_modules", ".bin", "tsc"), ["-p", "tsconfig.json"], { cwd: app, ...OUTPUT }).catch((error: { stdout?: string }) => {
      throw new Error(`tsc failed:\n${error.stdout ?? String(error)}`);
    });
    expect((await consumer(app, "out/typed.mjs")).key).toBe("sk_test_");
    expect((await consumer(app, "out/typed.cjs")).code).toBe(40401);
  }, 120_000);

  it("installs the express-crypto-pay command: it creates a merchant and lists it, and answers --help", async () => {
    const bin = join(app, "node_modules", ".bin", "express-crypto-pay");
    const help = await run(bin, ["--help"], { cwd: app, ...OUTPUT });
    expect(help.stdout).toContain("Usage: express-crypto-pay <command>");
    const created = await run(bin, ["merchants", "create", "--name", "Packed shop", "--json", "--config", "cli-config.mjs"], { cwd: app, ...OUTPUT });
    const merchant = JSON.parse(created.stdout) as { id: string; name: string };
    expect(merchant.name).toBe("Packed shop");
    const listed = await run(bin, ["merchants", "list", "--json", "--config", "cli-config.mjs"], { cwd: app, ...OUTPUT });
    expect((JSON.parse(listed.stdout) as { data: Array<{ id: string }> }).data.map((entry) => entry.id)).toEqual([merchant.id]);
    const usage = await run(bin, ["merchants", "delete"], { cwd: app, ...OUTPUT }).catch((error: { code: number; stderr: string }) => error);
    expect(usage).toMatchObject({ code: 2, stderr: expect.stringContaining('merchants has no subcommand "delete"') });
  }, 120_000);

  it("its trigger drives the sandbox of a service running elsewhere until the event is recorded", async () => {
    const bin = join(app, "node_modules", ".bin", "express-crypto-pay");
    const service = await startService();
    try {
      const env = { ...process.env, EXPRESS_CRYPTO_PAY_URL: service.url, EXPRESS_CRYPTO_PAY_API_KEY: service.testKey };
      const triggered = await run(bin, ["trigger", "payment.expired", "--json"], { cwd: app, env, ...OUTPUT });
      const result = JSON.parse(triggered.stdout) as { produced: boolean; events: Array<{ type: string }> };
      expect(result.produced).toBe(true);
      expect(result.events.map((event) => event.type)).toEqual(["payment.created", "payment.expired"]);
    } finally {
      await service.close();
    }
  }, 120_000);

  it("installs beside Express 4 without --legacy-peer-deps, and answers an unknown invoice there with 404", async () => {
    const express = JSON.parse(await readFile(join(app4, "node_modules", "express", "package.json"), "utf8")) as { version: string };
    expect(express.version).toMatch(/^4\./);
    const seen = await consumer(app4, "cjs.cjs");
    expect(seen.invoice).toEqual({ status: 200, state: "PENDING" });
    expect(seen.unknownInvoice).toEqual({ status: 404, error: 40401 });
  }, 120_000);
});
