import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { beforeAll, describe, expect, it } from "vitest";

interface AssertionResult {
  ancestorTitles: string[];
  title: string;
  status: "passed" | "failed" | "skipped" | "pending" | "todo";
}

/** Failed test titles per suite name, from a child vitest run over the broken chain adapters. */
let failed: Map<string, string[]>;
/** Passed test counts per suite name. */
let passed: Map<string, number>;

beforeAll(async () => {
  const dir = await mkdtemp(join(tmpdir(), "ecp-broken-chains-"));
  const output = join(dir, "results.json");
  try {
    const run = promisify(execFile)(
      process.execPath,
      ["node_modules/vitest/vitest.mjs", "run", "--config", "test/fixtures/broken-chains.vitest.config.ts", "--reporter=json", `--outputFile=${output}`],
      { env: { ...process.env, CI: "true" }, maxBuffer: 64 * 1024 * 1024 },
    );
    // The run is expected to fail (exit code 1): the results file is what matters.
    await run.catch((error: { code?: number }) => {
      if (error.code !== 1) throw error;
    });
    const report = JSON.parse(await readFile(output, "utf8")) as { testResults: Array<{ assertionResults: AssertionResult[] }> };
    failed = new Map();
    passed = new Map();
    for (const result of report.testResults.flatMap((file) => file.assertionResults)) {
      const suite = result.ancestorTitles[0]?.split(" ")[0] ?? "?";
      if (result.status === "passed") passed.set(suite, (passed.get(suite) ?? 0) + 1);
      if (result.status === "failed") failed.set(suite, [...(failed.get(suite) ?? []), result.title]);
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}, 120_000);

const failures = (suite: string) => (failed.get(suite) ?? []).join("\n");

describe("the chain adapter conformance suite can fail", () => {
  it("still passes most of its tests on a broken adapter whose bug is narrow, so each failure points at its bug", () => {
    for (const suite of ["replayingPayouts", "frozenConfirmations", "roundedAmounts", "lenientAddresses", "forgottenDrops"]) {
      expect(passed.get(suite) ?? 0, suite).toBeGreaterThanOrEqual(16);
    }
  });

  it("catches an adapter that pays again when a payout is retried", () => {
    expect(failures("replayingPayouts")).toContain("sends a payout once: the same payoutId again returns the same txHash, and the destination receives the amount once");
    expect(failures("replayingPayouts")).toContain("sends a payout once when the same payoutId is sent by several calls at once");
    expect(failures("replayingPayouts")).not.toContain("sends 5 payouts with distinct ids in parallel");
  });

  it("catches a feed that never reports a transfer's later confirmations", () => {
    expect(failures("frozenConfirmations")).toContain("reports each new confirmation of a transfer until it is final (minConfirm)");
  });

  it("catches a feed that rounds amounts", () => {
    expect(failures("roundedAmounts")).toContain("reports a payment to an issued address with its exact amount, its txHash and dropped false");
    expect(failures("roundedAmounts")).toContain("reports two payments to one address as two transfers whose amounts sum exactly");
  });

  it("catches an adapter that issues one address to two invoices", () => {
    expect(failures("recycledAddresses")).toContain("issues distinct addresses to distinct invoices");
    expect(failures("recycledAddresses")).toContain("never returns one address for two invoices, even when many are issued at once");
  });

  it("catches address validation that trims its input and throws on long garbage", () => {
    expect(failures("lenientAddresses")).toContain("refuses garbage without throwing: empty, 10,000 characters, NUL, unicode, padding, other text");
    expect(failures("lenientAddresses")).not.toContain("accepts every well-formed destination listed for the network");
  });

  it("catches a feed that ignores its cursor and reports everything again on every poll", () => {
    expect(failures("endlessFeed")).toContain("returns a string cursor and, once nothing changes on the chain, polls that report nothing");
  });

  it("catches a feed that never reports transfers a reorg removed", () => {
    expect(failures("forgottenDrops")).toContain("reports a payment that a reorg took off the chain as dropped, once the chain moves on");
    expect(failures("forgottenDrops")).not.toContain("reports a payment to an issued address with its exact amount");
  });
});
