import { describe, expect, it } from "vitest";
import type { ChainTestPair } from "./types";
import { label, type ChainSuiteContext } from "./context";
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
 * at the address.
 *
 * The contract needs two coins on one network: a subject with one coin per network (LTC alone
 * on LTC) cannot make such a transfer, so it does not apply. When the suite knows the pairs
 * before it registers its tests (`pairs`, from `runChainAdapterTests({ pairs })`) and no
 * network of them has two coins, no stray-coin test is registered, and one line of the run's
 * output says why. Without `pairs` the tests are registered, and skip at run time on such a
 * subject, with the reason as their note.
 */
export function strayTests(ctx: ChainSuiteContext, suite: { name: string; pairs?: readonly ChainTestPair[] | undefined }): void {
  if (suite.pairs && strayCases(suite.pairs).length === 0) {
    console.info(`${suite.name}: no stray-coin tests: ${oneCoinPerNetwork(suite.pairs)}.`);
    return;
  }
  describe("stray coins", () => {
    it("reports another coin of the network sent to an address issued for one coin, as the coin sent, with its exact amount", async ({ skip }) => {
      const run = ctx.run();
      const cases = strayCases(run.pairs);
      if (cases.length === 0) skipWithReason(skip, oneCoinPerNetwork(run.pairs));
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
      const cases = strayCases(run.pairs);
      if (cases.length === 0) skipWithReason(skip, oneCoinPerNetwork(run.pairs));
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

/** Every ordered pair of distinct coins of one network among `pairs`. */
function strayCases(pairs: readonly ChainTestPair[]): StrayCase[] {
  const cases: StrayCase[] = [];
  for (const issuedFor of pairs) {
    for (const sent of pairs) {
      if (sent.network === issuedFor.network && sent.coin !== issuedFor.coin) cases.push({ issuedFor, sent });
    }
  }
  return cases;
}

/**
 * Skips the test with `reason` as its note (shown beside the skipped test by vitest's reporters),
 * and says it on stderr too, which the default reporter prints even for a file that passed: a
 * skip is never silent. Only for a suite run without `pairs` (see strayTests).
 */
function skipWithReason(skip: (note?: string) => never, reason: string): never {
  const note = `${reason} (given runChainAdapterTests({ pairs }), the suite registers no such test)`;
  console.warn(`runChainAdapterTests: stray-coin test skipped: ${note}`);
  return skip(note);
}

/** Why the stray-coin tests do not apply to these pairs. */
function oneCoinPerNetwork(pairs: readonly ChainTestPair[]): string {
  return `not applicable: the subject serves one coin per network (${pairs.map(label).join(", ")}), and a stray coin needs two coins on one network`;
}
