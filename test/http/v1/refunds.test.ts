import { describe, expect, it } from "vitest";
import { setup, type Harness } from "../../helpers";
import { ADDRESS, balances, createPayment, deposit, expectError, get, paidPayment, scopeOf, walk } from "./support";

/**
 * POST /v1/refunds: part or all of what a payment received, never more than received minus
 * what was refunded already (failed refunds give their share back). A refund is a payout of
 * the payment's coin, so the balance pays it plus the network fees (2 USDT on TRX).
 */

const REFUND_TO = "TQjw9LfWkygUMPoV5tvokXQX2YLdStctTe";

/** A paid 100 USDT payment, plus 400 USDT of other income so the balance never limits refunds. */
async function refundable(h: Harness) {
  await paidPayment(h, "400");
  return paidPayment(h, "100");
}

const refund = (h: Harness, body: Record<string, unknown>, key?: string) => h.post("/v1/refunds", { address: REFUND_TO, ...body }, key);

describe("POST /v1/refunds", () => {
  it("refunds part of a payment and debits the amount plus fees", async () => {
    const h = await setup();
    const payment = await refundable(h);
    const res = await refund(h, { paymentId: payment.id, amount: "30" });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({
      object: "refund",
      livemode: false,
      paymentId: payment.id,
      status: "PROCESSING",
      currency: "USDT",
      chain: "TRX",
      amount: "30",
      fee: "2",
      address: REFUND_TO,
      createdAt: new Date(h.clock.ms).toISOString(),
    });
    expect(res.body.id).toMatch(/^po_/);
    expect((await balances(h)).USDT!.available).toBe("465.5"); // 398 + 99.5 - 32
  });

  it("refunds everything still refundable when amount is left out", async () => {
    const h = await setup();
    const payment = await refundable(h);
    expect((await refund(h, { paymentId: payment.id, amount: "30" })).status).toBe(200);
    const rest = await refund(h, { paymentId: payment.id });
    expect(rest.status, rest.text).toBe(200);
    expect(rest.body).toMatchObject({ amount: "70", paymentId: payment.id });
    expectError(await refund(h, { paymentId: payment.id }), 409, 40902, /nothing left to refund/);
    expectError(await refund(h, { paymentId: payment.id, amount: "5" }), 400, 40001, /has 0 USDT left to refund/);
  });

  it("refunds the whole amount received by default, overpayment included", async () => {
    const h = await setup();
    await paidPayment(h, "400");
    const payment = await createPayment(h, { amount: "100", currency: "USDT", chain: "TRX" });
    await deposit(h, payment.address!, "100", 19);
    await deposit(h, payment.address!, "20.5", 19);
    const res = await refund(h, { paymentId: payment.id });
    expect(res.status, res.text).toBe(200);
    expect(res.body.amount).toBe("120.5");
  });

  it("refuses more than is left with a 400 that says how much is left", async () => {
    const h = await setup();
    const payment = await refundable(h);
    expectError(await refund(h, { paymentId: payment.id, amount: "100.000001" }), 400, 40001, new RegExp(`payment ${payment.id} has 100 USDT left to refund`));
    expect((await refund(h, { paymentId: payment.id, amount: "64.25" })).status).toBe(200);
    // A completed refund still counts.
    await h.router.tick();
    expect((await h.router.storage.listRefunds(payment.id)).map((row) => row.status)).toEqual(["COMPLETED"]);
    expectError(await refund(h, { paymentId: payment.id, amount: "36" }), 400, 40001, /has 35\.75 USDT left to refund/);
    expect((await refund(h, { paymentId: payment.id, amount: "35.75" })).status).toBe(200);
    expect(await h.router.storage.listRefunds(payment.id)).toHaveLength(2);
  });

  it("does not count failed refunds against what is left", async () => {
    const h = await setup();
    const payment = await refundable(h);
    const first = (await refund(h, { paymentId: payment.id, amount: "60" })).body;
    const failed = await h.post("/api/v1/sandbox/payout/fail", { payoutId: first.id, reason: "address rejected" });
    expect(failed.status, failed.text).toBe(200);
    expect((await get(h, `/v1/refunds/${first.id}`)).body).toMatchObject({ status: "FAILED", failureReason: "address rejected" });
    // The failed refund's debit came back.
    expect((await balances(h)).USDT!.available).toBe("497.5");
    const full = await refund(h, { paymentId: payment.id });
    expect(full.status, full.text).toBe(200);
    expect(full.body.amount).toBe("100");
  });

  it("never gives back more than was received when refunds race", async () => {
    const h = await setup();
    const payment = await refundable(h);
    const answers = await Promise.all(Array.from({ length: 10 }, () => refund(h, { paymentId: payment.id, amount: "30" })));
    const succeeded = answers.filter((res) => res.status === 200);
    expect(succeeded.length).toBeLessThanOrEqual(3);
    // The balance (497.5) covers every one of them, so only the refundable amount limits them.
    expect(succeeded).toHaveLength(3);
    for (const res of answers.filter((answer) => answer.status !== 200)) expectError(res, 400, 40001, /has 10 USDT left to refund/);
    const stored = await h.router.storage.listRefunds(payment.id);
    expect(stored).toHaveLength(3);
    expect(stored.reduce((sum, row) => sum + row.amount, 0n)).toBe(90_000_000n);
    expect((await balances(h)).USDT!.available).toBe("401.5"); // 497.5 - 3 x 32
  });

  it("counts only confirmed deposits as refundable", async () => {
    const h = await setup();
    await paidPayment(h, "400");
    const payment = await createPayment(h, { amount: "100", currency: "USDT", chain: "TRX" });
    await deposit(h, payment.address!, "50", 19);
    await deposit(h, payment.address!, "50", 2);
    expectError(await refund(h, { paymentId: payment.id, amount: "60" }), 400, 40001, /has 50 USDT left to refund/);
    expect((await refund(h, { paymentId: payment.id })).body.amount).toBe("50");
  });

  it("refunds what a payment that FAILED underpaid received", async () => {
    const h = await setup();
    await paidPayment(h, "400");
    const payment = await createPayment(h, { amount: "100", currency: "USDT", chain: "TRX", lifeTime: 10 });
    await deposit(h, payment.address!, "40", 19);
    h.clock.advanceMinutes(11);
    await h.router.tick();
    expect((await get(h, `/v1/payments/${payment.id}`)).body).toMatchObject({ status: "FAILED", receivedAmount: "40" });
    const res = await refund(h, { paymentId: payment.id });
    expect(res.status, res.text).toBe(200);
    expect(res.body.amount).toBe("40");
  });

  it("may send a refund on another network of the coin", async () => {
    const h = await setup();
    const payment = await refundable(h);
    const res = await refund(h, { paymentId: payment.id, amount: "20", chain: "bsc", address: "0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359" });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ chain: "BSC", fee: "0.5" });
  });

  describe("refusals", () => {
    it.each([
      ["a negative amount", { amount: "-1" }, 400, 40001, /amount/],
      ["an exponent", { amount: "1e1" }, 400, 40001, /amount/],
      ["an empty amount", { amount: "" }, 400, 40001, /amount/],
      ["a JSON number amount", { amount: 10 }, 400, 40001, /amount/],
      ["more decimals than the coin has", { amount: "10.0000001" }, 400, 40001, /6 decimal places/],
      ["an unknown chain", { chain: "SOL" }, 400, 40005, /SOL/],
      ["an unknown field", { reason: "customer asked" }, 400, 40001, /unknown field "reason"/],
      ["an empty address", { address: "" }, 400, 40001, /address/],
      ["an address the chain rejects", { address: "invalid-refund" }, 400, 40003, /invalid-refund/],
      ["an amount below the network's withdrawMin", { amount: "4" }, 400, 40002, /smallest USDT payout/],
      ["an amount of zero", { amount: "0" }, 400, 40001, /greater than 0/],
      ["a missing paymentId", { paymentId: undefined }, 400, 40001, /paymentId/],
      ["an unknown payment", { paymentId: "inv_unknown" }, 404, 40401, /inv_unknown/],
    ])("refuses %s and debits nothing", async (_name, change, status, code, message) => {
      const h = await setup();
      const payment = await refundable(h);
      expectError(await refund(h, { paymentId: payment.id, amount: "10", ...change }), status, code, message);
      expect(await h.router.storage.listRefunds(payment.id)).toEqual([]);
      expect((await balances(h)).USDT!.available).toBe("497.5");
    });

    it("answers 422 when the balance does not cover the refund and its fees", async () => {
      const h = await setup();
      const payment = await paidPayment(h, "100"); // 99.5 available, 100 refundable
      expectError(await refund(h, { paymentId: payment.id }), 422, 42201, /does not cover 102/);
      expect(await h.router.storage.listRefunds(payment.id)).toEqual([]);
    });

    it("answers 409 for a hosted payment that has received nothing", async () => {
      const h = await setup();
      const payment = await createPayment(h, { amount: "10", currency: "USDT" });
      expectError(await refund(h, { paymentId: payment.id }), 409, 40902, /received nothing/);
    });

    it("answers 404 for another merchant's payment", async () => {
      const h = await setup();
      const payment = await refundable(h);
      expectError(await refund(h, { paymentId: payment.id, amount: "10" }, h.otherTestKey), 404, 40401);
      expectError(await refund(h, { paymentId: payment.id, amount: "10" }, h.liveKey), 404, 40401);
    });
  });
});

describe("GET /v1/refunds", () => {
  it("fetches a refund and answers 404 for a withdrawal id, an unknown id and another merchant", async () => {
    const h = await setup();
    const payment = await refundable(h);
    const created = (await refund(h, { paymentId: payment.id, amount: "10" })).body;
    expect((await get(h, `/v1/refunds/${created.id}`)).body).toEqual(created);
    const withdrawal = await h.post("/v1/withdrawals", { currency: "USDT", chain: "TRX", amount: "10", address: ADDRESS });
    expectError(await get(h, `/v1/refunds/${withdrawal.body.id}`), 404, 40401);
    expectError(await get(h, "/v1/refunds/po_unknown"), 404, 40401);
    expectError(await get(h, `/v1/refunds/${created.id}`, h.otherTestKey), 404, 40401);
  });

  it("lists refunds newest first, per payment, with a cursor", async () => {
    const h = await setup();
    await paidPayment(h, "400");
    const first = await paidPayment(h, "100");
    const second = await paidPayment(h, "100");
    const made: Array<{ id: string; paymentId: string }> = [];
    for (const [index, payment] of [first, second, first, second, first].entries()) {
      made.push((await refund(h, { paymentId: payment.id, amount: String(5 + index) })).body);
      h.clock.ms += 1;
    }
    await h.post("/v1/withdrawals", { currency: "USDT", chain: "TRX", amount: "10", address: ADDRESS });

    const all = await walk(h, "/v1/refunds", "limit=2");
    expect(all.flatMap((page) => page.data.map((row) => row.id))).toEqual(made.map((row) => row.id).reverse());
    const ofFirst = await get(h, `/v1/refunds?paymentId=${first.id}`);
    expect(ofFirst.body.data.map((row: { id: string }) => row.id)).toEqual([made[4]!.id, made[2]!.id, made[0]!.id]);
    expect((await get(h, "/v1/refunds?paymentId=inv_unknown")).body.data).toEqual([]);
    expect((await get(h, "/v1/refunds", h.otherTestKey)).body.data).toEqual([]);
    expectError(await get(h, "/v1/refunds?limit=101"), 400, 40001, /limit/);
    expectError(await get(h, "/v1/refunds?status=FAILED"), 400, 40001, /unknown field/);
  });

  it("refuses a withdrawal id as a refund cursor", async () => {
    const h = await setup();
    await paidPayment(h, "100");
    const withdrawal = await h.post("/v1/withdrawals", { currency: "USDT", chain: "TRX", amount: "10", address: ADDRESS });
    expectError(await get(h, `/v1/refunds?cursor=${withdrawal.body.id}`), 400, 40001, /cursor/);
  });

  it("keeps the refund in the ledger of the payment's merchant only", async () => {
    const h = await setup();
    const payment = await refundable(h);
    await refund(h, { paymentId: payment.id, amount: "10" });
    const entries = await h.router.storage.listLedgerEntries(scopeOf(h), "USDT");
    expect(entries.filter((entry) => entry.kind === "payout").map((entry) => entry.amount)).toEqual([-12_000_000n]);
    expect(await h.router.storage.listLedgerEntries(scopeOf(h, "test", h.other.id))).toEqual([]);
  });
});

describe("refund events", () => {
  const eventsOf = async (h: Harness, id: string) =>
    (await h.router.storage.listEvents(scopeOf(h), { invoiceId: id })).map(({ type, data }) => ({ type, data }));

  it("records refund.processing and refund.completed, carrying the refund as /v1 shows it, and never a payout event for it", async () => {
    const h = await setup();
    const payment = await refundable(h);
    const created = (await refund(h, { paymentId: payment.id, amount: "30" })).body;
    h.clock.advanceMinutes(1);
    await h.router.tick();
    const completed = (await get(h, `/v1/refunds/${created.id}`)).body;
    expect(completed).toMatchObject({ status: "COMPLETED", paymentId: payment.id });
    expect(await eventsOf(h, created.id)).toEqual([
      { type: "refund.processing", data: { ...created, txHash: null } },
      { type: "refund.completed", data: completed },
    ]);
    const all = (await h.router.storage.listEvents(scopeOf(h))).map((event) => event.type);
    expect(all.filter((type) => type.startsWith("payout."))).toEqual([]);
    // The payment's own events are unchanged by its refund.
    expect((await eventsOf(h, payment.id)).every((event) => event.type.startsWith("payment."))).toBe(true);
  });

  it("records refund.failed when the chain refuses it; the amount is refundable again", async () => {
    const h = await setup();
    const payment = await refundable(h);
    const created = (await refund(h, { paymentId: payment.id, amount: "100" })).body;
    await h.post("/api/v1/sandbox/payout/fail", { payoutId: created.id, reason: "node rejected it" });
    const failed = (await get(h, `/v1/refunds/${created.id}`)).body;
    expect(await eventsOf(h, created.id)).toEqual([
      { type: "refund.processing", data: { ...created, txHash: null } },
      { type: "refund.failed", data: failed },
    ]);
    expect(failed).toMatchObject({ status: "FAILED", failureReason: "node rejected it" });
    expect((await refund(h, { paymentId: payment.id, amount: "100" })).status).toBe(200);
  });
});
