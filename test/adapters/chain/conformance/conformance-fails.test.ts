import { beforeAll, describe, expect, it } from "vitest";
import { runBrokenSuites } from "../../../fixtures/broken-suite-run";

/** Failed test titles and passed counts per suite name, from a child vitest run over the broken chain adapters. */
let passed: Map<string, number>;
let failures: (suite: string) => string;

beforeAll(async () => {
  ({ passed, failures } = await runBrokenSuites("test/fixtures/broken-chains.vitest.config.ts"));
}, 120_000);

describe("the chain adapter conformance suite can fail", () => {
  it("still passes most of its tests on a broken adapter whose bug is narrow, so each failure points at its bug", () => {
    for (const suite of [
      "replayingPayouts",
      "frozenConfirmations",
      "roundedAmounts",
      "lenientAddresses",
      "forgottenDrops",
      "finalForgotten",
      "droppedStrays",
    ]) {
      expect(passed.get(suite) ?? 0, suite).toBeGreaterThanOrEqual(16);
    }
  });

  it("catches an adapter that pays again when a payout is retried", () => {
    expect(failures("replayingPayouts")).toContain(
      "sends a payout once: the same payoutId again returns the same txHash, and the destination receives the amount once",
    );
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

  it("catches a feed that stops watching a transfer once final, so a deeper reorg goes unreported", () => {
    expect(failures("finalForgotten")).toContain(
      "reports a payment as dropped when a reorg deeper than its confirmations takes it off the chain after it was final",
    );
    expect(failures("finalForgotten")).not.toContain("reports a payment that a reorg took off the chain as dropped, once the chain moves on");
  });

  it("catches a feed that drops a coin sent to an address issued for another coin of the network", () => {
    expect(failures("droppedStrays")).toContain(
      "reports another coin of the network sent to an address issued for one coin, as the coin sent, with its exact amount",
    );
    expect(failures("droppedStrays")).toContain("follows a stray coin's confirmations until it is final (the sent coin's minConfirm)");
    expect(failures("droppedStrays")).not.toContain("reports a payment to an issued address with its exact amount, its txHash and dropped false");
  });

  it("refuses, in every test, a subject whose pairs are not the ones the suite registered its tests for", () => {
    expect(passed.get("mismatchedPairs") ?? 0).toBe(0);
    expect(failures("mismatchedPairs").split("\n")).toHaveLength(26);
  });

  it("catches a feed that never reports transfers a reorg removed", () => {
    expect(failures("forgottenDrops")).toContain("reports a payment that a reorg took off the chain as dropped, once the chain moves on");
    expect(failures("forgottenDrops")).not.toContain("reports a payment to an issued address with its exact amount");
  });
});
