import { afterEach, describe, expect, it } from "vitest";
import { PaymentError, type PricingAdapter } from "../../../src/index";
import { setup, type Harness } from "../../helpers";
import { closeDeliveryTests, drain, FAST, harness } from "../../delivery/receiver";
import { ADDRESS, balances, expectError, get, paidPayment } from "./support";

/**
 * Payout approval: payouts above the threshold are debited and held AWAITING_APPROVAL until a
 * second person approves them (then sent by the background round) or rejects them (the held
 * debit credited back).
 */

afterEach(closeDeliveryTests);

const USD_RULE = { payouts: { approval: { above: "50", currency: "USD" } } };

const withdraw = (h: Harness, amount: string, key?: string) => h.post("/v1/withdrawals", { currency: "USDT", chain: "TRX", amount, address: ADDRESS }, key);

/** The id of the merchant's test key: what a payout asked for with it records as `requestedBy`. */
async function testKeyId(h: Harness): Promise<string> {
  return (await h.router.admin.listApiKeys(h.merchant.id)).find((key) => key.mode === "test" && key.revokedAt === null)!.id;
}

/** Settles what the chain has: one round sends approved payouts, the next (a minute later) sees them confirmed. */
async function settle(h: Harness): Promise<void> {
  for (let round = 0; round < 2; round++) {
    h.clock.advanceMinutes(1);
    await h.router.tick();
  }
}

/** The rejection of `promise`, as a PaymentError. */
async function refusal(promise: Promise<unknown>): Promise<PaymentError> {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(PaymentError);
  return error as PaymentError;
}

describe("payout approval with a USD threshold (static prices, sandbox chain)", () => {
  it("sends payouts at or below it as before, holds one above it, debited but never sent", async () => {
    const h = await setup(USD_RULE);
    await paidPayment(h, "100"); // 99.5 USDT available
    const small = await withdraw(h, "50");
    expect(small.body).toMatchObject({ status: "PROCESSING" });
    expect(small.body.txHash).toMatch(/^0x/);

    const under = await withdraw(h, "30.5");
    expect(under.status, under.text).toBe(200);
    expect(under.body.status).toBe("PROCESSING");
    expect((await balances(h)).USDT!.available).toBe("15"); // 99.5 - 52 - 32.5

    await paidPayment(h, "100"); // 114.5
    const large = await withdraw(h, "60");
    expect(large.body).toMatchObject({ status: "AWAITING_APPROVAL", txHash: null, amount: "60", fee: "2" });
    expect((await balances(h)).USDT!.available).toBe("52.5"); // held: debited as any payout

    await settle(h);
    expect((await get(h, `/v1/withdrawals/${large.body.id}`)).body).toMatchObject({ status: "AWAITING_APPROVAL", txHash: null });
    expect((await get(h, "/v1/withdrawals?status=AWAITING_APPROVAL")).body.data.map((row: { id: string }) => row.id)).toEqual([large.body.id]);
    expect((await get(h, `/v1/withdrawals/${small.body.id}`)).body.status).toBe("COMPLETED");
  });

  it("refuses an approval by the API key that asked (403, 40301), sends it once another approves, and completes it", async () => {
    const h = await setup(USD_RULE);
    await paidPayment(h, "100");
    const held = (await withdraw(h, "80")).body;
    const requester = await testKeyId(h);
    const stored = await h.router.storage.getPayout({ merchantId: h.merchant.id, mode: "test" }, held.id);
    expect(stored).toMatchObject({ requestedBy: requester, reviewedBy: null });

    const refused = await refusal(h.router.admin.approvePayout(held.id, { by: requester }));
    expect(refused).toMatchObject({ type: "approval_by_requester", status: 403, code: 40301 });
    expect(refused.message).toContain(requester);
    expect((await get(h, `/v1/withdrawals/${held.id}`)).body.status).toBe("AWAITING_APPROVAL");

    const approved = await h.router.admin.approvePayout(held.id, { by: "user_alice" });
    expect(approved).toMatchObject({ id: held.id, status: "PROCESSING", txHash: null, reviewedBy: "user_alice", requestedBy: requester });
    await settle(h);
    const done = (await get(h, `/v1/withdrawals/${held.id}`)).body;
    expect(done).toMatchObject({ status: "COMPLETED", amount: "80" });
    expect(done.txHash).toMatch(/^0x/);
    expect((await balances(h)).USDT!.available).toBe("17.5"); // 99.5 - 82, once

    // Decided already: a second decision is refused and changes nothing.
    expect(await refusal(h.router.admin.approvePayout(held.id, { by: "user_bob" }))).toMatchObject({ type: "invalid_state", status: 409 });
    expect(await refusal(h.router.admin.rejectPayout(held.id, { by: "user_bob" }))).toMatchObject({ type: "invalid_state", status: 409 });
    expect((await balances(h)).USDT!.available).toBe("17.5");
  });

  it("holds the payout when no price can be had for the threshold's currency", async () => {
    const down: PricingAdapter = {
      getRate: async () => {
        throw new Error("every source is down");
      },
    };
    const h = await setup({ ...USD_RULE, pricing: down });
    await paidPayment(h, "100"); // priced in USDT: no price needed
    const res = await withdraw(h, "10");
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ status: "AWAITING_APPROVAL", txHash: null });
    expect(h.logger.lines.some((line) => line.startsWith("warn no USDT/USD price") && line.includes("held for approval"))).toBe(true);
  });

  it("converts at the current price: a coin worth more crosses the threshold with fewer units", async () => {
    const h = await setup(USD_RULE);
    await paidPayment(h, "1000", "TRX", "TRX");
    const trx = (amount: string) => h.post("/v1/withdrawals", { currency: "TRX", chain: "TRX", amount, address: ADDRESS });
    // The static table prices TRX at 0.12 USD: 416 TRX is 49.92 USD, 417 TRX is 50.04 USD.
    const under = await trx("416");
    expect(under.status, under.text).toBe(200);
    expect(under.body.status).toBe("PROCESSING");
    expect((await trx("417")).body.status).toBe("AWAITING_APPROVAL");
  });
});

describe("a merchant's own threshold, in coin units, through the /api/v1 payout endpoint", () => {
  it("holds a payout above it, and a rejection returns exactly the held amount with its event", async () => {
    const seen: string[] = [];
    const record = (event: { type: string; data: { id: string; status: string; failureReason?: string | null } }) =>
      void seen.push(`${event.type} ${event.data.status} ${event.data.failureReason ?? "-"}`);
    const h = await harness({
      webhooks: FAST,
      on: { "payout.awaiting_approval": record, "payout.rejected": record, "payout.processing": record, "payout.completed": record },
    });
    const merchant = await h.router.admin.setPayoutApproval(h.merchant.id, { above: "20", currency: "USDT" });
    expect(merchant.payoutApproval).toEqual({ above: "20", currency: "USDT" });
    await paidPayment(h, "100");
    const payout = (body: Record<string, unknown>) =>
      h.post("/api/v1/merchants/payout/create", { currency: "USDT", network: "TRX", address: ADDRESS, ...body });

    const below = await payout({ amount: 20 });
    expect(below.status, below.text).toBe(200);
    expect(below.body.status).toBe("PROCESSING");
    const above = await payout({ amount: 20.000001 });
    expect(above.body).toMatchObject({ status: "AWAITING_APPROVAL", txHash: null });
    expect((await balances(h)).USDT!.available).toBe("55.499999"); // 99.5 - 22 - 22.000001

    const rejected = await h.router.admin.rejectPayout(above.body.id, { by: "user_carol", reason: "unknown address" });
    expect(rejected).toMatchObject({ status: "REJECTED", failureReason: "unknown address", reviewedBy: "user_carol" });
    expect((await balances(h)).USDT!.available).toBe("77.5");
    const fetched = await h.post("/api/v1/merchants/payout/fetch", { payoutId: above.body.id });
    expect(fetched.body).toMatchObject({ status: "REJECTED", failureReason: "unknown address" });
    await drain(h);
    expect(seen.sort()).toEqual([
      "payout.awaiting_approval AWAITING_APPROVAL -",
      "payout.completed COMPLETED -",
      "payout.processing PROCESSING -",
      "payout.rejected REJECTED unknown address",
    ]);

    // Back to the router's (none here): the same amount goes out at once.
    await h.router.admin.setPayoutApproval(h.merchant.id, null);
    expect((await payout({ amount: 20.000001 })).body.status).toBe("PROCESSING");
  });

  it("lets the requester withdraw their own held payout by rejecting it", async () => {
    const h = await setup({ payouts: { approval: { above: "5", currency: "USDT" } } });
    await paidPayment(h, "100");
    const held = (await withdraw(h, "10")).body;
    const rejected = await h.router.admin.rejectPayout(held.id, { by: await testKeyId(h) });
    expect(rejected).toMatchObject({ status: "REJECTED", failureReason: "rejected" });
    expect((await balances(h)).USDT!.available).toBe("99.5");
  });

  it("settles an approval and a rejection racing exactly once", async () => {
    const h = await setup({ payouts: { approval: { above: "5", currency: "USDT" } } });
    await paidPayment(h, "100");
    for (let round = 0; round < 3; round++) {
      const held = (await withdraw(h, "10")).body;
      const outcomes = await Promise.allSettled([
        h.router.admin.approvePayout(held.id, { by: "user_a" }),
        h.router.admin.rejectPayout(held.id, { by: "user_b" }),
        h.router.admin.approvePayout(held.id, { by: "user_c" }),
      ]);
      const won = outcomes.filter((outcome) => outcome.status === "fulfilled");
      expect(won).toHaveLength(1);
      for (const outcome of outcomes) {
        if (outcome.status === "rejected") expect(outcome.reason).toMatchObject({ type: "invalid_state", status: 409 });
      }
      const status = (await get(h, `/v1/withdrawals/${held.id}`)).body.status;
      expect(["PROCESSING", "REJECTED"]).toContain(status);
    }
    await settle(h);
    const rows = (await get(h, "/v1/withdrawals")).body.data as Array<{ status: string }>;
    const sent = rows.filter((row) => row.status === "COMPLETED").length;
    const rejected = rows.filter((row) => row.status === "REJECTED").length;
    expect(sent + rejected).toBe(3);
    // Each sent payout took 12 once; each rejected one took nothing in the end.
    expect((await balances(h)).USDT!.available).toBe((99.5 - 12 * sent).toString());
  });

  it("holds refunds above the threshold too", async () => {
    const h = await setup({ payouts: { approval: { above: "5", currency: "USDT" } } });
    const payment = await paidPayment(h, "100");
    const refund = await h.post("/v1/refunds", { paymentId: payment.id, amount: "60", address: ADDRESS });
    expect(refund.status, refund.text).toBe(200);
    expect(refund.body).toMatchObject({ object: "refund", status: "AWAITING_APPROVAL", txHash: null });
    expect((await balances(h)).USDT!.available).toBe("37.5");
    await h.router.admin.rejectPayout(refund.body.id, { by: "user_a" });
    expect((await get(h, `/v1/refunds/${refund.body.id}`)).body).toMatchObject({ status: "REJECTED", failureReason: "rejected" });
    // A rejected refund's amount is refundable again (40 would be left if it still counted).
    const again = await h.post("/v1/refunds", { paymentId: payment.id, amount: "60", address: ADDRESS });
    expect(again.status, again.text).toBe(200);
    expect(again.body).toMatchObject({ status: "AWAITING_APPROVAL", amount: "60" });
  });
});

describe("payouts asked for in process", () => {
  it("record the actor forMerchant names as the requester, who then cannot approve them", async () => {
    const h = await setup({ publicUrl: "https://shop.example", payouts: { approval: { above: "5", currency: "USDT" } } });
    await paidPayment(h, "100");
    const held = await h.router
      .forMerchant(h.merchant.id, "test", { actor: "user_erin" })
      .withdrawals.create({ currency: "USDT", chain: "TRX", amount: "10", address: ADDRESS });
    expect(held.status).toBe("AWAITING_APPROVAL");
    await expect(h.router.admin.approvePayout(held.id, { by: "user_erin" })).rejects.toMatchObject({ code: 40301 });
    expect(await h.router.admin.approvePayout(held.id, { by: "user_frank" })).toMatchObject({ status: "PROCESSING", requestedBy: "user_erin" });
    // Without an actor, nobody is recorded: anyone may approve.
    const anonymous = await h.router.forMerchant(h.merchant.id, "test").withdrawals.create({ currency: "USDT", chain: "TRX", amount: "10", address: ADDRESS });
    expect(await h.router.admin.approvePayout(anonymous.id, { by: "user_erin" })).toMatchObject({ status: "PROCESSING", requestedBy: null });
    expect(() => h.router.forMerchant(h.merchant.id, "test", { actor: "" })).toThrow(/actor/);
  });
});

describe("bad thresholds and unknown payouts", () => {
  it("refuses them with a clear error", async () => {
    await expect(setup({ payouts: { approval: { above: "10", currency: "XYZ" } } })).rejects.toThrow(/payouts\.approval\.currency/);
    await expect(setup({ payouts: { approval: { above: "ten", currency: "USD" } } })).rejects.toThrow(/above/);
    const h = await setup();
    await expect(h.router.admin.setPayoutApproval(h.merchant.id, { above: "1.001", currency: "USD" })).rejects.toThrow(/at most 2 decimals/);
    await expect(h.router.admin.setPayoutApproval("mch_nobody", { above: "1", currency: "USD" })).rejects.toMatchObject({ type: "not_found" });
    await expect(h.router.admin.approvePayout("po_nothing", { by: "user_a" })).rejects.toMatchObject({ type: "not_found", status: 404 });
    await expect(h.router.admin.approvePayout("po_nothing", { by: "" })).rejects.toThrow(TypeError);
    expectError(await get(h, "/v1/withdrawals?status=WAITING"), 400, 40001, /AWAITING_APPROVAL/);
  });
});
