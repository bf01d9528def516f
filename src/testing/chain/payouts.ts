import { describe, expect, it } from "vitest";
import type { ChainPayoutStatus } from "../../core/ports/chain";
import type { ChainTestPair } from "./types";
import { label, type ChainSuiteContext, type ChainTestRun } from "./context";

/** Payouts in parallel per pair. */
const PARALLEL = 5;
/** Calls for one payout id at once. */
const SAME_ID_CALLS = 4;

/** sendPayout and getPayoutStatus. */
export function payoutTests(ctx: ChainSuiteContext): void {
  describe("payouts", () => {
    it("sends a payout whose status becomes confirmed as the chain confirms it", async () => {
      const run = ctx.run();
      for (const pair of run.pairs) {
        await run.fundPayouts(pair);
        const payoutId = run.payoutId();
        const sent = await run.adapter.sendPayout({ payoutId, ...pair, address: run.destination(pair), amount: run.payoutAmount(pair) });
        expect(typeof sent?.txHash, `${label(pair)}: sendPayout resolves to { txHash: string }`).toBe("string");
        expect(sent.txHash.length, label(pair)).toBeGreaterThan(0);
        const status = await run.settlePayout(pair, payoutId, sent.txHash);
        expect(status, `${label(pair)}: status of payout ${payoutId} after up to ${run.minConfirm(pair) + 10} blocks`).toEqual({ status: "confirmed" });
      }
    });

    it("sends a payout once: the same payoutId again returns the same txHash, and the destination receives the amount once", async () => {
      const run = ctx.run();
      for (const pair of run.pairs) {
        await run.fundPayouts(pair);
        const address = run.destination(pair);
        const amount = run.payoutAmount(pair, 1n);
        const request = { payoutId: run.payoutId(), ...pair, address, amount };
        const before = await run.subject.balanceOf(pair, address);
        const first = await run.adapter.sendPayout(request);
        const again = await run.adapter.sendPayout({ ...request });
        expect(again.txHash, `${label(pair)}: a retry of payout ${request.payoutId} returned another txHash`).toBe(first.txHash);
        expect(await run.settlePayout(pair, request.payoutId, first.txHash), label(pair)).toEqual({ status: "confirmed" });
        // A retry after the payout confirmed, as core makes when it crashed before storing the txHash.
        const late = await run.adapter.sendPayout({ ...request });
        expect(late.txHash, `${label(pair)}: a retry after confirmation returned another txHash`).toBe(first.txHash);
        await run.subject.confirm(2);
        expect(
          (await run.subject.balanceOf(pair, address)) - before,
          `${label(pair)}: what ${address} received for one payout of ${amount}, sent three times`,
        ).toBe(amount);
      }
    });

    it("sends a payout once when the same payoutId is sent by several calls at once", async () => {
      const run = ctx.run();
      for (const pair of run.pairs) {
        await run.fundPayouts(pair);
        const address = run.destination(pair);
        const amount = run.payoutAmount(pair, 2n);
        const request = { payoutId: run.payoutId(), ...pair, address, amount };
        const before = await run.subject.balanceOf(pair, address);
        const sent = await Promise.all(Array.from({ length: SAME_ID_CALLS }, () => run.adapter.sendPayout({ ...request })));
        expect(
          new Set(sent.map((result) => result.txHash)).size,
          `${label(pair)}: ${SAME_ID_CALLS} calls at once for one payout id returned several txHashes`,
        ).toBe(1);
        expect(await run.settlePayout(pair, request.payoutId, sent[0]!.txHash), label(pair)).toEqual({ status: "confirmed" });
        await run.subject.confirm(2);
        expect(
          (await run.subject.balanceOf(pair, address)) - before,
          `${label(pair)}: what ${address} received for one payout of ${amount}, sent by ${SAME_ID_CALLS} calls at once`,
        ).toBe(amount);
      }
    });

    it(`sends ${PARALLEL} payouts with distinct ids in parallel: each confirms, each with its own txHash, each paid in full`, async () => {
      const run = ctx.run();
      const payouts = run.pairs.flatMap((pair) =>
        Array.from({ length: PARALLEL }, (_, i) => ({
          pair,
          payoutId: run.payoutId(),
          address: run.destination(pair, i),
          amount: run.payoutAmount(pair, BigInt(10 + i)),
        })),
      );
      for (const pair of run.pairs) await run.fundPayouts(pair, PARALLEL);
      const owed = new Map<string, { pair: ChainTestPair; address: string; amount: bigint; before: bigint }>();
      for (const { pair, address, amount } of payouts) {
        const key = `${label(pair)} ${address}`;
        const entry = owed.get(key) ?? { pair, address, amount: 0n, before: await run.subject.balanceOf(pair, address) };
        owed.set(key, { ...entry, amount: entry.amount + amount });
      }
      const sent = await Promise.all(payouts.map(({ pair, payoutId, address, amount }) => run.adapter.sendPayout({ payoutId, ...pair, address, amount })));
      for (const network of new Set(run.pairs.map((pair) => pair.network))) {
        const hashes = sent.filter((_, i) => payouts[i]!.pair.network === network).map((result) => result.txHash);
        expect(new Set(hashes).size, `${network}: ${hashes.length} payouts sent in parallel got ${new Set(hashes).size} distinct txHashes`).toBe(hashes.length);
      }
      const statuses = await settleAll(
        run,
        payouts.map((payout, i) => ({ ...payout, txHash: sent[i]!.txHash })),
      );
      expect(
        statuses.filter(({ status }) => status.status !== "confirmed").map(({ payoutId, status }) => `${payoutId}: ${JSON.stringify(status)}`),
        "payouts sent in parallel that did not confirm",
      ).toEqual([]);
      for (const [key, { pair, address, amount, before }] of owed) {
        expect((await run.subject.balanceOf(pair, address)) - before, `${key}: received`).toBe(amount);
      }
    });
  });
}

/** Adds blocks one at a time until no payout is pending (or the largest minConfirm + 10 blocks). */
async function settleAll(
  run: ChainTestRun,
  payouts: ReadonlyArray<{ pair: ChainTestPair; payoutId: string; txHash: string }>,
): Promise<Array<{ payoutId: string; status: ChainPayoutStatus }>> {
  const rounds = Math.max(...payouts.map(({ pair }) => run.minConfirm(pair))) + 10;
  for (let round = 0; ; round++) {
    const statuses = await Promise.all(
      payouts.map(async ({ pair, payoutId, txHash }) => ({ payoutId, status: await run.adapter.getPayoutStatus({ payoutId, txHash, ...pair }) })),
    );
    if (round >= rounds || statuses.every(({ status }) => status.status !== "pending")) return statuses;
    await run.subject.confirm(1);
  }
}
