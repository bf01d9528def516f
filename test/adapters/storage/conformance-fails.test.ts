import { beforeAll, describe, expect, it } from "vitest";
import { runBrokenSuites, type BrokenSuiteResults } from "../../fixtures/broken-suite-run";

/** Failed test titles and passed counts per suite name, from a child vitest run over the broken adapters. */
let results: BrokenSuiteResults;
let passedTotal = 0;

beforeAll(async () => {
  results = await runBrokenSuites("test/fixtures/vitest.config.ts");
  passedTotal = [...results.passed.values()].reduce((sum, count) => sum + count, 0);
}, 120_000);

const failures = (suite: string) => results.failures(suite);

describe("the storage conformance suite can fail", () => {
  it("still passes most of its tests on each broken adapter, so each failure points at its bug", () => {
    expect(passedTotal).toBeGreaterThan(5 * 60);
  });

  it("catches an adapter that finds another merchant's invoice", () => {
    expect(failures("leakyScope")).toContain("answers another merchant's records as not found");
  });

  it("catches an adapter that credits the same cause twice", () => {
    expect(failures("doubleCredit")).toContain("writes nothing when any cause was posted before");
    expect(failures("doubleCredit")).toContain("posts a cause once when it is posted from many transactions at once");
  });

  it("catches an adapter without real transactions whose debits check a stale balance", () => {
    expect(failures("racy")).toContain("rolls back every write when the work throws");
    expect(failures("racy")).toContain("never overdraws: N parallel debits against a balance covering k of them post exactly k");
    expect(failures("racy")).toContain("lockInvoice holds the record");
  });

  it("catches an adapter that hands one delivery to two workers", () => {
    expect(failures("leaseless")).toContain("never hands one delivery to two workers claiming at once");
    expect(failures("leaseless")).toContain("leases at most perEndpoint of an endpoint at once, counting its live leases, the earliest due first");
  });

  it("catches an adapter whose lockCursor reads without holding the name, so concurrent nonce counters lose updates", () => {
    expect(failures("unheldCursor")).toContain("lockCursor holds a name nothing is stored under yet");
    expect(failures("unheldCursor")).toContain("N transactions counting on one new name hand out N numbers and lose no update");
    expect(failures("unheldCursor")).toContain("lockCursor's name is released by a rollback");
  });

  it("catches an adapter whose reads come from a cache that commits never refresh, for each read it caches", () => {
    for (const read of ["getMerchant", "getInvoice", "getPayout", "getPaymentLink", "getWebhookEndpoint"]) {
      expect(failures("staleCache")).toMatch(new RegExp(`^${read} after update\\w+, read before the commit, answers as committed$`, "m"));
    }
    expect(failures("staleCache")).toContain("getInvoice after insertInvoice of an id read as missing, read before the commit, answers as committed");
    expect(failures("staleCache")).toContain("a payment seen PENDING, then paid in a transaction, is PAID by id and in the list alike");
    // Only freshness gives it away: it answers copies, in scope, from committed data.
    expect(
      failures("staleCache")
        .split("\n")
        .filter((title) => !/answers as committed$|PAID by id/.test(title)),
    ).toEqual([]);
  });
});
