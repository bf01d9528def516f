import { describe, expect, it } from "vitest";
import type { ChainAdapter, ChainDeposit } from "../../core/ports/chain";
import { label, type ChainSuiteContext } from "./context";
import { transferKey } from "./feed";

/** Rounds of the deposit sync in which a feed must run dry once nothing changes on the chain. */
const QUIET_WITHIN = 5;

/** The deposit feed: what pollDeposits reports, and how it behaves when read as core reads it. */
export function depositTests(ctx: ChainSuiteContext): void {
  describe("deposit feed", () => {
    it("reports a payment to an issued address with its exact amount, its txHash and dropped false", async () => {
      const run = ctx.run();
      for (const pair of run.pairs) {
        const address = await run.issue(pair);
        const amount = run.amount(pair);
        const { txHash } = await run.subject.pay(pair, address, amount);
        const state = await run.sighting(address, txHash);
        expect(state, `${label(pair)}: the payment ${txHash} to ${address} was never reported`).toBeDefined();
        expect(state, label(pair)).toMatchObject({ coin: pair.coin, network: pair.network, address, txHash, amount, dropped: false });
      }
    });

    it("reports every deposit as a whole state: every field present, amount > 0, confirmations a whole number >= 0", async () => {
      const run = ctx.run();
      for (const pair of run.pairs) {
        const address = await run.issue(pair);
        await run.subject.pay(pair, address, run.amount(pair));
        await run.feed.poll();
        await run.subject.confirm(1);
        await run.feed.poll();
        // Dropped transfers are whole states too: core reads their amount and identity.
        const mark = await run.subject.mark();
        await run.subject.pay(pair, address, run.amount(pair));
        await run.feed.poll();
        await run.subject.dropSince(mark);
        await run.subject.confirm(1);
        await run.feed.poll();
      }
      expect(run.feed.history.length, "no deposit was reported at all").toBeGreaterThan(0);
      const broken = run.feed.history.flatMap((report) => problems(run.adapter, report).map((problem) => `${describeReport(report)}: ${problem}`));
      expect(broken, "reports that are not whole deposit states").toEqual([]);
    });

    it("reports each new confirmation of a transfer until it is final (minConfirm)", async () => {
      const run = ctx.run();
      for (const pair of run.pairs) {
        const address = await run.issue(pair);
        const { txHash } = await run.subject.pay(pair, address, run.amount(pair));
        const first = await run.sighting(address, txHash);
        expect(first, `${label(pair)}: the payment ${txHash} was never reported`).toBeDefined();
        const final = run.minConfirm(pair);
        for (let step = 1; first!.confirmations + step <= final; step++) {
          await run.subject.confirm(1);
          await run.feed.poll();
          const now = run.feed.latestOf(address, txHash);
          expect(
            now?.confirmations,
            `${label(pair)}: seen with ${first!.confirmations} confirmation(s), then ${step} block(s) added: the feed should report at least ${first!.confirmations + step} (final at ${final})`,
          ).toBeGreaterThanOrEqual(first!.confirmations + step);
          expect(now?.dropped, label(pair)).toBe(false);
        }
      }
    });

    it("never reports fewer confirmations than before for a transfer that was not dropped", async () => {
      const run = ctx.run();
      for (const pair of run.pairs) {
        const address = await run.issue(pair);
        await run.subject.pay(pair, address, run.amount(pair));
        await run.subject.pay(pair, address, run.amount(pair));
      }
      for (const blocks of [0, 1, 2, 0, 1, 3]) {
        if (blocks > 0) await run.subject.confirm(blocks);
        await run.feed.poll();
      }
      const last = new Map<string, number>();
      const backwards: string[] = [];
      for (const report of run.feed.history) {
        const key = transferKey(report);
        const before = last.get(key);
        if (report.dropped) last.delete(key);
        else {
          if (before !== undefined && report.confirmations < before) backwards.push(`${describeReport(report)}: ${before} then ${report.confirmations}`);
          last.set(key, report.confirmations);
        }
      }
      expect(run.feed.history.length, "no deposit was reported at all").toBeGreaterThan(0);
      expect(backwards, "confirmations that went backwards").toEqual([]);
    });

    it("may repeat states, but polling again from the same stored cursor gives the same last state of every transfer", async () => {
      const run = ctx.run();
      await run.feed.poll();
      const cursor = await run.feed.stored();
      const paid: Array<{ address: string; txHash: string }> = [];
      for (const pair of run.pairs) {
        const address = await run.issue(pair);
        paid.push({ address, ...(await run.subject.pay(pair, address, run.amount(pair))) });
      }
      await run.subject.confirm(1);
      const first = run.reader(cursor);
      await first.poll();
      const again = run.reader(cursor);
      await again.poll();
      for (const { address, txHash } of paid)
        expect(first.latestOf(address, txHash), `the payment ${txHash} to ${address}, one block deep, was not reported`).toBeDefined();
      expect(Object.fromEntries(again.latest()), "the last states read from the same cursor a second time").toEqual(Object.fromEntries(first.latest()));
    });

    it("returns a string cursor and, once nothing changes on the chain, polls that report nothing", async () => {
      const run = ctx.run();
      for (const pair of run.pairs) {
        const address = await run.issue(pair);
        await run.subject.pay(pair, address, run.amount(pair));
      }
      await run.feed.poll();
      await run.subject.confirm(1);
      let rounds = 0;
      let read: ChainDeposit[] = [];
      do {
        read = await run.feed.poll();
        rounds++;
      } while (read.length > 0 && rounds < QUIET_WITHIN);
      expect(
        read.map(describeReport),
        `still reporting after ${QUIET_WITHIN} rounds with no change on the chain: the cursor does not move past what was read`,
      ).toEqual([]);
      expect(await run.feed.poll(), "a quiet feed stays quiet while nothing changes").toEqual([]);
      const odd = run.feed.cursors.filter((cursor) => typeof cursor !== "string");
      expect(odd, "cursors that are not strings").toEqual([]);
    });

    it("reports two payments to one address as two transfers whose amounts sum exactly", async () => {
      const run = ctx.run();
      for (const pair of run.pairs) {
        const address = await run.issue(pair);
        const amounts = [run.amount(pair), run.amount(pair)];
        const first = await run.subject.pay(pair, address, amounts[0]!);
        const second = await run.subject.pay(pair, address, amounts[1]!);
        await run.sighting(address, first.txHash);
        await run.sighting(address, second.txHash);
        const transfers = run.feed.latestTo(address).filter((deposit) => !deposit.dropped);
        expect(transfers.length, `${label(pair)}: two transfers to ${address}, reported as ${transfers.length}`).toBe(2);
        expect(
          transfers.reduce((sum, deposit) => sum + deposit.amount, 0n),
          label(pair),
        ).toBe(amounts[0]! + amounts[1]!);
        expect(run.feed.latestOf(address, first.txHash)?.amount, label(pair)).toBe(amounts[0]);
        expect(run.feed.latestOf(address, second.txHash)?.amount, label(pair)).toBe(amounts[1]);
      }
    });

    it("reports each of many invoices' payments against its own address", async () => {
      const run = ctx.run();
      const paid: Array<{ pair: string; address: string; txHash: string; amount: bigint }> = [];
      for (const pair of run.pairs) {
        for (let i = 0; i < 4; i++) {
          const address = await run.issue(pair);
          const amount = run.amount(pair);
          paid.push({ pair: label(pair), address, amount, ...(await run.subject.pay(pair, address, amount)) });
        }
      }
      await run.feed.poll();
      await run.subject.confirm(1);
      await run.feed.poll();
      for (const { pair, address, txHash, amount } of paid) {
        const transfers = run.feed.latestTo(address);
        expect(
          transfers.map((deposit) => [deposit.txHash, deposit.amount]),
          `${pair}: transfers reported to ${address}`,
        ).toEqual([[txHash, amount]]);
      }
    });

    it("reads the same last states in pages of one deposit as in pages of a hundred", async () => {
      const run = ctx.run();
      await run.feed.poll();
      const cursor = await run.feed.stored();
      for (const pair of run.pairs) {
        for (let i = 0; i < 3; i++) {
          const address = await run.issue(pair);
          await run.subject.pay(pair, address, run.amount(pair));
        }
      }
      await run.subject.confirm(1);
      const small = run.reader(cursor, 1);
      await small.poll();
      const large = run.reader(cursor, 100);
      await large.poll();
      expect(large.latest().size, "no deposit was reported").toBeGreaterThanOrEqual(run.pairs.length * 3);
      expect(Object.fromEntries(small.latest()), "last states read with limit 1").toEqual(Object.fromEntries(large.latest()));
    });

    it("reports payments to issued addresses exactly, beside transfers to addresses it never issued", async () => {
      const run = ctx.run();
      for (const pair of run.pairs) {
        const stranger = run.destination(pair);
        const address = await run.issue(pair);
        const amount = run.amount(pair);
        const unrelated = await run.subject.pay(pair, stranger, run.amount(pair));
        const { txHash } = await run.subject.pay(pair, address, amount);
        await run.sighting(address, txHash);
        // Whether the stranger's transfer is reported is the adapter's choice (core ignores it);
        // it must not be put down to an issued address.
        expect(
          run.feed.latestTo(address).map((deposit) => [deposit.txHash, deposit.amount]),
          `${label(pair)}: transfers reported to ${address}`,
        ).toEqual([[txHash, amount]]);
        expect(
          run.feed
            .reportsOf(unrelated.txHash)
            .filter((deposit) => deposit.address !== stranger)
            .map(describeReport),
          label(pair),
        ).toEqual([]);
      }
    });
  });
}

/** What is wrong with a report as a whole deposit state; empty when nothing is. */
function problems(adapter: ChainAdapter, report: ChainDeposit): string[] {
  const fields = report as unknown as Record<string, unknown>;
  const found: string[] = [];
  for (const name of ["coin", "network", "address", "txHash"]) {
    if (typeof fields[name] !== "string" || fields[name] === "") found.push(`${name} is ${String(fields[name])}, not a non-empty string`);
  }
  if (typeof fields.outputIndex !== "number" || !Number.isSafeInteger(fields.outputIndex) || fields.outputIndex < 0) {
    found.push(`outputIndex is ${String(fields.outputIndex)}, not a whole number >= 0`);
  }
  if (typeof fields.amount !== "bigint" || fields.amount <= 0n) found.push(`amount is ${String(fields.amount)} (${typeof fields.amount}), not a bigint > 0`);
  if (typeof fields.confirmations !== "number" || !Number.isSafeInteger(fields.confirmations) || fields.confirmations < 0) {
    found.push(`confirmations is ${String(fields.confirmations)}, not a whole number >= 0`);
  }
  if (typeof fields.dropped !== "boolean") found.push(`dropped is ${String(fields.dropped)}, not a boolean`);
  if (typeof fields.coin === "string" && typeof fields.network === "string" && !adapter.supports(fields.coin, fields.network)) {
    found.push(`${fields.coin}/${fields.network} is not a pair the adapter supports`);
  }
  return found;
}

/** One report, for messages. */
export function describeReport(report: ChainDeposit): string {
  return `${report.coin}/${report.network} ${report.txHash}#${report.outputIndex} to ${report.address}: ${String(report.amount)}, ${report.confirmations} conf${report.dropped ? ", dropped" : ""}`;
}
