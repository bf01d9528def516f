import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { randomBytes } from "node:crypto";
import { isPaymentEvent, webhookHeaders } from "../../../src/webhooks/index";
import { verifyWebhook, type ChainAdapter } from "../../../src/index";
import type { ChainDeposit } from "../../../src/chains";
import type { Scope } from "../../../src/storage";
import { webhookPayload } from "../../../src/core/ports/fan-out";
import { setup, type Harness } from "../../helpers";
import { balances, createPayment, deposit, expectError, get, paidPayment, scopeOf } from "./support";

/**
 * Money at the edges, through the public API on the sandbox chain: stray coins (a listed coin
 * other than the payment's, sent to its address) are credited in the coin received and can be
 * refunded deposit by deposit; a credited deposit dropped by the chain (a reorg deeper than its
 * confirmations) is reversed, possibly driving the balance below zero, which then refuses every
 * debit of that asset until credits cover it. After every step the ledger sums to the balances.
 */

const ETH_ADDRESS = "0x52908400098527886E0F7030069857D2E4169EE7";
const TRX_ADDRESS = "TCUmA2JEPuSiBFmNGRiVktBZKbLB89JnSq";

let h: Harness;
let scope: Scope;
let infos: string[];

beforeEach(async () => {
  h = await setup();
  // The harness's logger keeps warnings and errors; credited deposits are logged at info.
  infos = [];
  (h.logger as { info?: (message: string, ...details: unknown[]) => void }).info = (message, ...details) =>
    void infos.push(`${message} ${JSON.stringify(details)}`);
  scope = scopeOf(h);
});
afterEach(async () => {
  await h.router.close();
});

/** Every balance equals the sum of its ledger entries, to the smallest unit, and no entry is orphaned. */
async function expectLedgerMatchesBalances(): Promise<void> {
  const entries = await h.router.storage.listLedgerEntries(scope);
  const sums = new Map<string, bigint>();
  for (const entry of entries) sums.set(entry.asset, (sums.get(entry.asset) ?? 0n) + entry.amount);
  const stored = await h.router.storage.listBalances(scope);
  expect(Object.fromEntries(stored.map((row) => [row.asset, row.amount]))).toEqual(Object.fromEntries(sums));
}

/** A transfer of `coin` (smallest units) to `address`, as a payer's wallet would send it, then a sync. */
async function send(coin: string, network: string, address: string, amount: bigint, confirmations: number): Promise<string> {
  const { txHash } = h.router.sandbox.createDeposit({ coin, network, address, amount, confirmations });
  await h.router.tick();
  return txHash;
}

async function drop(txHash: string): Promise<void> {
  const res = await h.post("/api/v1/sandbox/deposit/drop", { txHash });
  expect(res.status, res.text).toBe(200);
}

async function eventsOf(invoiceId: string) {
  return h.router.storage.listEvents(scope, { invoiceId });
}

async function payment(id: string) {
  const res = await get(h, `/v1/payments/${id}`);
  expect(res.status, res.text).toBe(200);
  return res.body as Record<string, unknown> & { status: string; receivedAmount: string; reversedAmount: string; deposits: Array<Record<string, unknown>> };
}

describe("stray coins", () => {
  it("credits ETH sent to a USDT payment's address in ETH, less the fee, once; the payment stays PENDING and lists it as not counting", async () => {
    const created = await createPayment(h, { amount: "50", currency: "USDT", chain: "ETH" });
    const txHash = await send("ETH", "ETH", created.address!, 200_000_000_000_000_000n, 12); // 0.2 ETH
    await h.router.tick();
    await h.router.storage.transaction((tx) => tx.setCursor(`deposits:test:${h.router.sandbox.feedId}`, "0")); // the feed replayed
    await h.router.tick();

    const after = await payment(created.id);
    expect(after.status).toBe("PENDING");
    expect(after.receivedAmount).toBe("0");
    expect(after.deposits).toEqual([
      {
        id: expect.stringMatching(/^dep_/),
        object: "deposit",
        txHash,
        outputIndex: 0,
        currency: "ETH",
        chain: "ETH",
        amount: "0.2",
        fee: "0.001",
        status: "CONFIRMED",
        countsTowardPayment: false,
        confirmations: 12,
        reversals: 0,
        createdAt: expect.any(String),
        creditedAt: expect.any(String),
      },
    ]);
    expect((await balances(h)).ETH).toMatchObject({ available: "0.199", pending: "0" });
    expect((await balances(h)).USDT?.available).toBe("0");
    const events = await eventsOf(created.id);
    expect(events.map((event) => event.type)).toEqual(["payment.created", "payment.unexpected_deposit"]);
    expect((events[1]!.data as { deposits: unknown[] }).deposits).toHaveLength(1);
    expect(h.logger.lines.filter((line) => line.startsWith("warn stray deposit"))).toHaveLength(1);
    expect(h.logger.lines.find((line) => line.startsWith("warn stray deposit"))).toMatch(/0\.2 ETH.*0\.199 ETH credited/);
    await expectLedgerMatchesBalances();

    // The merchant API's invoice lists it too.
    const fetched = await h.post("/api/v1/merchants/invoice/fetch", { invoiceId: created.id });
    expect(fetched.status).toBe(200);
    expect(fetched.body.deposits).toEqual(after.deposits);
    expect(fetched.body.receivedAmount).toBe(0);
  });

  it("credits a USDT transfer to an ETH payment's address in USDT and still lets the payment be paid in ETH", async () => {
    const created = await createPayment(h, { amount: "0.1", currency: "ETH", chain: "ETH" });
    await send("USDT", "ETH", created.address!, 30_000_000n, 12); // 30 USDT
    await deposit(h, created.address!, created.payAmount!, 12);
    const after = await payment(created.id);
    expect(after.status).toBe("PAID");
    expect(after.receivedAmount).toBe("0.1");
    expect(after.deposits.map((entry) => [entry.currency, entry.countsTowardPayment, entry.status])).toEqual([
      ["USDT", false, "CONFIRMED"],
      ["ETH", true, "CONFIRMED"],
    ]);
    expect((await balances(h)).USDT?.available).toBe("29.85");
    expect((await balances(h)).ETH?.available).toBe("0.0995");
    expect((await eventsOf(created.id)).map((event) => event.type)).toEqual([
      "payment.created",
      "payment.unexpected_deposit",
      "payment.confirming",
      "payment.confirmed",
      "payment.completed",
    ]);
    expect(infos.filter((line) => line.startsWith("deposit "))).toHaveLength(1);
    expect(infos[0]).toMatch(/credited: 0\.0995 ETH for 0\.1 ETH/);
    await expectLedgerMatchesBalances();
  });

  it("does not auto-convert a stray coin: it stays in the coin received, refundable", async () => {
    const created = await createPayment(h, { amount: "20", currency: "USDT", chain: "TRX", settleCurrency: "ETH" });
    await send("TRX", "TRX", created.address!, 100_000_000n, 19); // 100 TRX
    expect((await balances(h)).TRX?.available).toBe("99.5");
    expect((await balances(h)).ETH?.available).toBe("0");
    expect((await get(h, "/v1/conversions")).body.data).toEqual([]);
  });

  it("refunds a stray deposit by depositId in its own coin: all of its credit by default (network fee included), never more", async () => {
    const created = await createPayment(h, { amount: "50", currency: "USDT", chain: "ETH" });
    await send("ETH", "ETH", created.address!, 200_000_000_000_000_000n, 12);
    const [stray] = (await payment(created.id)).deposits;

    const tooMuch = await h.post("/v1/refunds", { paymentId: created.id, depositId: stray!.id, address: ETH_ADDRESS, amount: "0.1985" });
    expectError(tooMuch, 400, 40001, /deposit dep_\w+ has 0\.198 ETH left to refund/);
    const refund = await h.post("/v1/refunds", { paymentId: created.id, depositId: stray!.id, address: ETH_ADDRESS });
    expect(refund.status, refund.text).toBe(200);
    // 0.199 credited: 0.198 sent and the 0.001 network fee.
    expect(refund.body).toMatchObject({
      object: "refund",
      paymentId: created.id,
      depositId: stray!.id,
      currency: "ETH",
      chain: "ETH",
      amount: "0.198",
      fee: "0.001",
    });
    expect((await balances(h)).ETH?.available).toBe("0");
    const again = await h.post("/v1/refunds", { paymentId: created.id, depositId: stray!.id, address: ETH_ADDRESS });
    expectError(again, 409, 40902, /nothing left to refund/);
    // The payment's own coin was never received: nothing to refund there.
    expectError(await h.post("/v1/refunds", { paymentId: created.id, address: ETH_ADDRESS }), 409, 40902);
    expectError(await h.post("/v1/refunds", { paymentId: created.id, depositId: "dep_doesnotexist00000000", address: ETH_ADDRESS }), 404, 40401);
    await expectLedgerMatchesBalances();
  });

  it("bounds a refund of a payment's own coin by what it received in that coin, whatever stray coins came", async () => {
    const paid = await paidPayment(h, "20");
    await send("TRX", "TRX", paid.address!, 50_000_000n, 19);
    const res = await h.post("/v1/refunds", { paymentId: paid.id, address: TRX_ADDRESS, amount: "21" });
    expectError(res, 400, 40001, /has 20 USDT left to refund/);
  });
});

describe("reversals", () => {
  it("takes back a credited deposit dropped after its confirmations, even below zero, and refuses every debit of the asset until the shortfall is covered", async () => {
    const created = await createPayment(h, { amount: "1", currency: "ETH", chain: "ETH" });
    const txHash = await send("ETH", "ETH", created.address!, 1_000_000_000_000_000_000n, 12);
    expect((await balances(h)).ETH?.available).toBe("0.995");
    const out = await h.post("/v1/withdrawals", { currency: "ETH", chain: "ETH", amount: "0.5", address: ETH_ADDRESS });
    expect(out.status, out.text).toBe(200);
    expect((await balances(h)).ETH?.available).toBe("0.494");

    await drop(txHash);
    await drop(txHash); // a repeated report takes nothing more
    await h.router.tick();
    const after = await payment(created.id);
    expect(after).toMatchObject({ status: "PAID", receivedAmount: "0", reversedAmount: "1" });
    expect(after.deposits).toMatchObject([{ txHash, status: "REVERSED", reversals: 1, creditedAt: null }]);
    expect((await balances(h)).ETH?.available).toBe("-0.501");
    const events = await eventsOf(created.id);
    expect(events.at(-1)!.type).toBe("payment.reversed");
    expect(events.at(-1)!.data).toMatchObject({ reversedAmount: "1", receivedAmount: "0", deposits: [{ status: "REVERSED" }] });
    expect(h.logger.lines.filter((line) => line.startsWith("warn deposit"))).toEqual([expect.stringMatching(/reversed.*0\.995 ETH taken back/)]);
    // A receiver of this version verifies the event as sent and narrows it by type.
    const secret = `whsec_${randomBytes(24).toString("base64")}`;
    const body = webhookPayload(events.at(-1)!);
    const received = verifyWebhook(body, webhookHeaders({ id: "msg_1", body }, secret), secret);
    expect(isPaymentEvent(received, "payment.reversed") && received.data.reversedAmount).toBe("1");
    await expectLedgerMatchesBalances();

    // Every debit of ETH is refused, naming the shortfall; other assets are untouched.
    const shortfall = /0\.501 ETH below zero/;
    expectError(await h.post("/v1/withdrawals", { currency: "ETH", chain: "ETH", amount: "0.005", address: ETH_ADDRESS }), 422, 42202, shortfall);
    expectError(await h.post("/v1/conversions", { fromCurrency: "ETH", toCurrency: "USDT", amount: "0.01" }), 422, 42202, shortfall);
    const merchantPayout = await h.post("/api/v1/merchants/payout/create", { currency: "ETH", network: "ETH", amount: 0.005, address: ETH_ADDRESS });
    expectError(merchantPayout, 422, 42202, shortfall);
    const other = await createPayment(h, { amount: "0.2", currency: "ETH", chain: "ETH" });
    await send("ETH", "ETH", other.address!, 200_000_000_000_000_000n, 12); // +0.199: still -0.302
    expectError(await h.post("/v1/refunds", { paymentId: other.id, address: ETH_ADDRESS, amount: "0.01" }), 422, 42202, /0\.302 ETH below zero/);
    expect((await balances(h)).ETH?.available).toBe("-0.302");
    await paidPayment(h, "20"); // USDT works as ever
    expect((await h.post("/v1/withdrawals", { currency: "USDT", chain: "TRX", amount: "5", address: TRX_ADDRESS })).status).toBe(200);

    // Covered: debits work again.
    const cover = await createPayment(h, { amount: "0.5", currency: "ETH", chain: "ETH" });
    await send("ETH", "ETH", cover.address!, 500_000_000_000_000_000n, 12); // +0.4975
    expect((await balances(h)).ETH?.available).toBe("0.1955");
    expect((await h.post("/v1/withdrawals", { currency: "ETH", chain: "ETH", amount: "0.005", address: ETH_ADDRESS })).status).toBe(200);
    await expectLedgerMatchesBalances();
    const kinds = (await h.router.storage.listLedgerEntries(scope, "ETH")).map((entry) => entry.kind);
    expect(kinds.filter((kind) => kind === "deposit_reversal")).toHaveLength(1);
  });

  it("takes back an auto-converted credit in the settle currency, the converted amount exactly", async () => {
    const created = await createPayment(h, { amount: "0.01", currency: "ETH", chain: "ETH", settleCurrency: "USDT" });
    const txHash = await send("ETH", "ETH", created.address!, 10_000_000_000_000_000n, 12);
    const converted = (await balances(h)).USDT!.available;
    expect(converted).toBe("29.85"); // 0.00995 ETH at 3000
    expect((await balances(h)).ETH?.available).toBe("0");
    await drop(txHash);
    expect((await balances(h)).USDT?.available).toBe("0");
    expect((await balances(h)).ETH?.available).toBe("0");
    const reversal = (await h.router.storage.listLedgerEntries(scope)).find((entry) => entry.kind === "deposit_reversal");
    expect(reversal).toMatchObject({ asset: "USDT", amount: -29_850_000n });
    await expectLedgerMatchesBalances();
  });

  it("lets a credit cover a shortfall before any auto-conversion: a payment in a coin below zero stays in that coin", async () => {
    const first = await createPayment(h, { amount: "0.1", currency: "ETH", chain: "ETH" });
    const txHash = await send("ETH", "ETH", first.address!, 100_000_000_000_000_000n, 12); // +0.0995
    expect((await h.post("/v1/withdrawals", { currency: "ETH", chain: "ETH", amount: "0.05", address: ETH_ADDRESS })).status).toBe(200);
    await drop(txHash); // -0.0995: 0.0485 - 0.0995
    expect((await balances(h)).ETH?.available).toBe("-0.051");
    const converting = await createPayment(h, { amount: "0.1", currency: "ETH", chain: "ETH", settleCurrency: "USDT" });
    await send("ETH", "ETH", converting.address!, 100_000_000_000_000_000n, 12);
    expect((await balances(h)).ETH?.available).toBe("0.0485");
    expect((await balances(h)).USDT?.available).toBe("0");
    expect((await get(h, "/v1/conversions")).body.data).toEqual([]);
    expect(h.logger.lines.some((line) => /auto-conversion of deposit dep_\w+ skipped: the ETH balance is below zero/.test(line))).toBe(true);
    // Back above zero, the next payment converts as asked.
    const next = await createPayment(h, { amount: "0.1", currency: "ETH", chain: "ETH", settleCurrency: "USDT" });
    await send("ETH", "ETH", next.address!, 100_000_000_000_000_000n, 12);
    expect((await balances(h)).ETH?.available).toBe("0.0485");
    expect((await balances(h)).USDT?.available).toBe("298.5");
    await expectLedgerMatchesBalances();
  });

  it("reverses a stray deposit too, and lists both in the operator report", async () => {
    const created = await createPayment(h, { amount: "50", currency: "USDT", chain: "ETH" });
    const strayTx = await send("ETH", "ETH", created.address!, 200_000_000_000_000_000n, 12);
    const paid = await paidPayment(h, "10", "USDT", "TRX");
    const [own] = (await payment(paid.id)).deposits;
    await drop(own!.txHash as string);
    await drop(strayTx);
    expect((await balances(h)).ETH?.available).toBe("0");
    expect((await balances(h)).USDT?.available).toBe("0");
    expect((await eventsOf(created.id)).map((event) => event.type)).toEqual(["payment.created", "payment.unexpected_deposit", "payment.reversed"]);

    const report = await h.router.admin.operatorReport({ mode: "test" });
    expect(report.mode).toBe("test");
    expect(report.strayDeposits).toEqual([
      expect.objectContaining({
        invoiceId: created.id,
        merchantId: h.merchant.id,
        coin: "ETH",
        invoiceCoin: "USDT",
        network: "ETH",
        amount: "0.2",
        txHash: strayTx,
        status: "REVERSED",
        reversals: 1,
      }),
    ]);
    expect(report.reversedDeposits.map((row) => [row.invoiceId, row.coin, row.amount, row.creditedAsset, row.creditedAmount])).toEqual([
      [created.id, "ETH", "0.2", "ETH", "0.199"],
      [paid.id, "USDT", "10", "USDT", "9.95"],
    ]);
    expect(report.unlistedTransfers).toEqual([]);
    expect((await h.router.admin.operatorReport()).reversedDeposits).toEqual([]); // live mode: nothing
    await expectLedgerMatchesBalances();
  });

  it("sends payment.deposit_dropped when a deposit not yet final leaves the chain, and credits nothing", async () => {
    const created = await createPayment(h, { amount: "10", currency: "USDT", chain: "TRX" });
    const txHash = await deposit(h, created.address!, "10", 3);
    await drop(txHash);
    const after = await payment(created.id);
    expect(after.status).toBe("PENDING");
    expect(after.deposits).toMatchObject([{ status: "DROPPED", reversals: 0, creditedAt: null }]);
    expect((await eventsOf(created.id)).map((event) => event.type)).toEqual(["payment.created", "payment.confirming", "payment.deposit_dropped"]);
    expect(await h.router.storage.listLedgerEntries(scope)).toEqual([]);
    expect((await h.router.admin.operatorReport({ mode: "test" })).reversedDeposits).toEqual([]);
  });
});

describe("a deposit that leaves and comes back, again and again", () => {
  /** A live chain adapter whose feed is a script: each report is a whole state of one transfer. */
  function scriptedChain() {
    const log: ChainDeposit[] = [];
    let issued = 0;
    const adapter: ChainAdapter = {
      name: "scripted",
      supports: (coin, network) => coin === "ETH" && network === "ETH",
      createAddress: async () => `0x${(++issued).toString(16).padStart(40, "0")}`,
      isValidAddress: async () => true,
      pollDeposits: async (cursor, limit) => {
        const from = Number(cursor ?? "0");
        const deposits = log.slice(from, from + limit);
        return { deposits, cursor: String(from + deposits.length), hasMore: from + deposits.length < log.length };
      },
      sendPayout: async ({ payoutId }) => ({ txHash: `0x${payoutId}` }),
      getPayoutStatus: async () => ({ status: "confirmed" }),
    };
    return { adapter, report: (state: ChainDeposit) => void log.push(state) };
  }

  it("credits, reverses and credits again under a new cause key each cycle, waiting as PENDING while it is not final again", async () => {
    const chain = scriptedChain();
    const live = await setup({ liveChain: chain.adapter });
    try {
      const liveScope = scopeOf(live, "live");
      const created = (await live.post("/v1/payments", { amount: "1", currency: "ETH", chain: "ETH" }, live.liveKey)).body as { id: string; address: string };
      const transfer = {
        coin: "ETH",
        network: "ETH",
        address: created.address,
        txHash: `0x${"ab".repeat(32)}`,
        outputIndex: 0,
        amount: 10n ** 18n,
        dropped: false,
      };
      const state = async () => {
        await live.router.tick();
        const res = await get(live, `/v1/payments/${created.id}`, live.liveKey);
        const row = (await balances(live, live.liveKey)).ETH!;
        return {
          status: res.body.status,
          deposit: res.body.deposits[0].status,
          reversed: res.body.reversedAmount,
          available: row.available,
          pending: row.pending,
        };
      };
      chain.report({ ...transfer, confirmations: 12 });
      expect(await state()).toEqual({ status: "PAID", deposit: "CONFIRMED", reversed: "0", available: "0.995", pending: "0" });
      chain.report({ ...transfer, confirmations: 0, dropped: true });
      expect(await state()).toEqual({ status: "PAID", deposit: "REVERSED", reversed: "1", available: "0", pending: "0" });
      chain.report({ ...transfer, confirmations: 2 });
      expect(await state()).toEqual({ status: "PAID", deposit: "PENDING", reversed: "0", available: "0", pending: "1" });
      chain.report({ ...transfer, confirmations: 12 });
      chain.report({ ...transfer, confirmations: 12 });
      expect(await state()).toEqual({ status: "PAID", deposit: "CONFIRMED", reversed: "0", available: "0.995", pending: "0" });
      // Each state read in a round of its own: of several states of one transfer in one read,
      // only the newest counts (a transfer moved within one read never left the chain).
      chain.report({ ...transfer, confirmations: 0, dropped: true });
      await live.router.tick();
      chain.report({ ...transfer, confirmations: 13 });
      await live.router.tick();
      chain.report({ ...transfer, confirmations: 0, dropped: true });
      expect(await state()).toEqual({ status: "PAID", deposit: "REVERSED", reversed: "1", available: "0", pending: "0" });
      const keys = (await live.router.storage.listLedgerEntries(liveScope, "ETH")).map((entry) => entry.causeKey.replace(/dep_\w+/, "dep"));
      expect(keys).toEqual([
        "deposit:dep",
        "deposit:dep:reversal:1",
        "deposit:dep:credit:1",
        "deposit:dep:reversal:2",
        "deposit:dep:credit:2",
        "deposit:dep:reversal:3",
      ]);
      // A feed replayed from the start: its states carry no block, so a replay read over several
      // rounds would walk past returns again. Whatever it walks, every credit is paired with its
      // reversal and the balance ends where the chain's latest word puts it.
      await live.router.storage.transaction((tx) => tx.setCursor("deposits:live:scripted", "0"));
      await live.router.tick();
      const entries = await live.router.storage.listLedgerEntries(liveScope, "ETH");
      expect(entries.filter((entry) => entry.kind === "deposit").length).toBe(entries.filter((entry) => entry.kind === "deposit_reversal").length);
      expect(entries.reduce((sum, entry) => sum + entry.amount, 0n)).toBe(0n);
      expect(await live.router.storage.getBalance(liveScope, "ETH")).toBe(0n);
      expect((await get(live, `/v1/payments/${created.id}`, live.liveKey)).body.deposits[0].status).toBe("REVERSED");
    } finally {
      await live.router.close();
    }
  });
});
