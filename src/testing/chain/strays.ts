import { describe, expect, it } from "vitest";
import type { ChainTestPair } from "./types";
import { label, type ChainSuiteContext, type ChainTestRun } from "./context";
import { describeReport } from "./deposits";

/** A coin sent to an address issued for another coin of the same network. */
interface StrayCase {
  issuedFor: ChainTestPair;
  sent: ChainTestPair;
}

/**
 * Stray coins: a payer sends a coin the adapter serves to an address issued for another coin of
 * the same network (ETH to a USDT invoice's address). The feed reports it under the coin that
 * was sent, like any transfer: what becomes of it is core's business, and the coins are really
 * at the address. A subject with one coin per network cannot make such a transfer: these tests
 * are then skipped, saying so in the output.
 */
export function strayTests(ctx: ChainSuiteContext): void {
  describe("stray coins", () => {
    it("reports another coin of the network sent to an address issued for one coin, as the coin sent, with its exact amount", async ({ skip }) => {
      const run = ctx.run();
      const cases = strayCases(run);
      if (cases.length === 0) skipWithReason(skip, oneCoinPerNetwork(run));
      for (const { issuedFor, sent } of cases) {
        const address = await run.issue(issuedFor);
        const amount = run.amount(sent);
        const { txHash } = await run.subject.pay(sent, address, amount);
        const state = await run.sighting(address, txHash);
        const what = `${label(sent)} sent to an address issued for ${label(issuedFor)}`;
        expect(state, `${what}: the transfer ${txHash} to ${address} was never reported`).toBeDefined();
        expect(state, `${what}: reported as ${describeReport(state!)}`).toMatchObject({
          coin: sent.coin,
          network: sent.network,
          address,
          txHash,
          amount,
          dropped: false,
        });
      }
    });

    it("follows a stray coin's confirmations until it is final (the sent coin's minConfirm)", async ({ skip }) => {
      const run = ctx.run();
      const cases = strayCases(run);
      if (cases.length === 0) skipWithReason(skip, oneCoinPerNetwork(run));
      for (const { issuedFor, sent } of cases) {
        const address = await run.issue(issuedFor);
        const { txHash } = await run.subject.pay(sent, address, run.amount(sent));
        const first = await run.sighting(address, txHash);
        const what = `${label(sent)} sent to an address issued for ${label(issuedFor)}`;
        expect(first, `${what}: the transfer ${txHash} was never reported`).toBeDefined();
        const final = run.minConfirm(sent);
        if (first!.confirmations < final) await run.subject.confirm(final - first!.confirmations);
        await run.feed.poll();
        const last = run.feed.latestOf(address, txHash);
        expect(
          last?.confirmations,
          `${what}: ${final - first!.confirmations} block(s) after it was first seen, the feed's last word is ${last ? describeReport(last) : "nothing"}`,
        ).toBeGreaterThanOrEqual(final);
        expect(last, what).toMatchObject({ coin: sent.coin, dropped: false });
      }
    });
  });
}

/** Every ordered pair of distinct coins of one network among the subject's pairs. */
function strayCases(run: ChainTestRun): StrayCase[] {
  const cases: StrayCase[] = [];
  for (const issuedFor of run.pairs) {
    for (const sent of run.pairs) {
      if (sent.network === issuedFor.network && sent.coin !== issuedFor.coin) cases.push({ issuedFor, sent });
    }
  }
  return cases;
}

/**
 * Skips the test with `reason` as its note (shown beside the skipped test by vitest's reporters),
 * and says it on stderr too, which the default reporter prints even for a file that passed: a
 * skip is never silent.
 */
function skipWithReason(skip: (note?: string) => never, reason: string): never {
  console.warn(`runChainAdapterTests: stray-coin test skipped: ${reason}`);
  return skip(reason);
}

/** Why the stray-coin tests cannot run on this subject, for the skip note. */
function oneCoinPerNetwork(run: ChainTestRun): string {
  return `not applicable: the subject serves one coin per network (${run.pairs.map(label).join(", ")}), and a stray coin needs two coins on one network`;
}
