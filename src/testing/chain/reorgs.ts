import { describe, expect, it } from "vitest";
import type { ChainTestPair } from "./types";
import { label, type ChainSuiteContext, type ChainTestRun } from "./context";
import { describeReport } from "./deposits";

/** Blocks (one at a time, a poll after each) within which a transfer a reorg removed must be reported dropped. */
const DROP_WITHIN = 3;

/**
 * Reorgs: transfers that leave the chain are reported dropped, whether or not they were final
 * (a reorg deeper than the confirmations the service waited for), and the feed goes on.
 */
export function reorgTests(ctx: ChainSuiteContext): void {
  describe("reorgs", () => {
    it("reports a payment that a reorg took off the chain as dropped, once the chain moves on", async () => {
      const run = ctx.run();
      for (const pair of run.pairs) {
        const { address, txHash } = await paidThenDropped(run, pair);
        const state = run.feed.latestOf(address, txHash);
        expect(
          state?.dropped,
          `${label(pair)}: after the reorg and ${DROP_WITHIN} more blocks, the feed's last word on ${txHash} is ${state ? describeReport(state) : "nothing"}`,
        ).toBe(true);
      }
    });

    it("finds a payment to the same address made after the reorg", async () => {
      const run = ctx.run();
      for (const pair of run.pairs) {
        const dropped = await paidThenDropped(run, pair);
        const amount = run.amount(pair);
        const { txHash } = await run.subject.pay(pair, dropped.address, amount);
        const state = await run.sighting(dropped.address, txHash);
        expect(state, `${label(pair)}: the payment ${txHash} made after the reorg was never reported`).toBeDefined();
        expect(state, label(pair)).toMatchObject({ address: dropped.address, txHash, amount, dropped: false });
        if (txHash !== dropped.txHash)
          expect(run.feed.latestOf(dropped.address, dropped.txHash)?.dropped, `${label(pair)}: the dropped payment came back`).toBe(true);
      }
    });

    it("reports a payment as dropped when a reorg deeper than its confirmations takes it off the chain after it was final", async () => {
      const run = ctx.run();
      for (const pair of run.pairs) {
        const address = await run.issue(pair);
        const mark = await run.subject.mark();
        const { txHash } = await run.subject.pay(pair, address, run.amount(pair));
        expect(await run.sighting(address, txHash), `${label(pair)}: the payment ${txHash} to ${address} was never reported`).toBeDefined();
        const final = run.minConfirm(pair);
        await run.subject.confirm(final);
        await run.feed.poll();
        const reached = run.feed.latestOf(address, txHash);
        expect(
          reached?.confirmations ?? 0,
          `${label(pair)}: ${final} blocks after it was seen, the feed's last word on ${txHash} is ${reached ? describeReport(reached) : "nothing"}`,
        ).toBeGreaterThanOrEqual(final);
        // Final, and credited by the service: now the branch that holds it is abandoned.
        await run.subject.dropSince(mark);
        for (let block = 0; block < DROP_WITHIN; block++) {
          await run.subject.confirm(1);
          await run.feed.poll();
          if (run.feed.latestOf(address, txHash)?.dropped) break;
        }
        const state = run.feed.latestOf(address, txHash);
        expect(
          state?.dropped,
          `${label(pair)}: a reorg removed ${txHash} after it had ${final} confirmations (final); after ${DROP_WITHIN} more blocks the feed's last word on it is ${state ? describeReport(state) : "nothing"}. An adapter must keep watching final deposits for as long as it can see a reorg, so the service can take the credit back.`,
        ).toBe(true);
      }
    });

    it("keeps a payment mined before the reorg's fork as it was", async () => {
      const run = ctx.run();
      for (const pair of run.pairs) {
        const address = await run.issue(pair);
        const amount = run.amount(pair);
        const kept = await run.subject.pay(pair, address, amount);
        expect(await run.sighting(address, kept.txHash), `${label(pair)}: the payment ${kept.txHash} was never reported`).toBeDefined();
        await run.subject.confirm(1);
        await run.feed.poll();
        const dropped = await paidThenDropped(run, pair, address);
        expect(run.feed.latestOf(address, dropped.txHash)?.dropped, `${label(pair)}: the payment made after the mark`).toBe(true);
        const state = run.feed.latestOf(address, kept.txHash);
        expect(state, `${label(pair)}: the payment from before the mark`).toMatchObject({ txHash: kept.txHash, amount, dropped: false });
      }
    });
  });
}

/**
 * Marks the chain, pays (to `address`, or a new issued address), waits until the feed reports
 * the payment, then has the subject drop everything since the mark and adds blocks, polling
 * after each, until the feed reports the payment dropped (at most DROP_WITHIN blocks).
 */
async function paidThenDropped(run: ChainTestRun, pair: ChainTestPair, to?: string): Promise<{ address: string; txHash: string }> {
  const address = to ?? (await run.issue(pair));
  const mark = await run.subject.mark();
  const { txHash } = await run.subject.pay(pair, address, run.amount(pair));
  const seen = await run.sighting(address, txHash);
  expect(seen, `${label(pair)}: the payment ${txHash} to ${address} was never reported`).toBeDefined();
  expect(seen?.dropped, label(pair)).toBe(false);
  await run.subject.dropSince(mark);
  for (let block = 0; block < DROP_WITHIN; block++) {
    await run.subject.confirm(1);
    await run.feed.poll();
    if (run.feed.latestOf(address, txHash)?.dropped) break;
  }
  return { address, txHash };
}
