import { describe, expect, it } from "vitest";
import { setup } from "../../helpers";
import { available, claimPost, createClaim, refundOf } from "./refund-claim-support";
import { balances, expectError, paidPayment } from "./support";

/**
 * Destinations that cannot receive: the currency list's token contracts. USDT's contract on
 * TRX is a valid TRON address, and anything sent there is lost, so a withdrawal, an /api/v1
 * payout, a refund and a refund claim to it are refused before anything is debited.
 */

const USDT_ON_TRX = "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t";
const USDC_ON_BASE = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913";

describe("payouts, refunds and claims to a token contract", () => {
  it("refuses a withdrawal and an /api/v1 payout to the USDT contract with 400 40006, debiting nothing", async () => {
    const h = await setup();
    await paidPayment(h, "100");
    const before = await balances(h);
    expectError(
      await h.post("/v1/withdrawals", { currency: "USDT", chain: "TRX", amount: "20", address: USDT_ON_TRX }),
      400,
      40006,
      /"TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t" is the USDT token contract on TRX, not a wallet/,
    );
    expectError(await h.post("/api/v1/merchants/payout/create", { currency: "USDT", network: "TRX", amount: 20, address: USDT_ON_TRX }), 400, 40006);
    expect(await balances(h)).toEqual(before);
  });

  it("refuses a refund to it, with or without an amount, and leaves the payment refundable", async () => {
    const h = await setup();
    await paidPayment(h, "400");
    const payment = await paidPayment(h, "100");
    expectError(await h.post("/v1/refunds", { paymentId: payment.id, address: USDT_ON_TRX }), 400, 40006, /USDT token contract on TRX/);
    expectError(await h.post("/v1/refunds", { paymentId: payment.id, amount: "30", address: USDT_ON_TRX }), 400, 40006);
    expect(await h.router.storage.listRefunds(payment.id)).toEqual([]);
    expect(await available(h)).toBe("497.5");
  });

  it("shows the payer of a claim link why the contract cannot receive, at review and at confirm, and nothing moves", async () => {
    const h = await setup();
    await paidPayment(h, "400");
    const payment = await paidPayment(h, "100");
    const claim = await createClaim(h, { paymentId: payment.id, amount: "30" });
    const held = await available(h);
    const message = "This is the address of a token contract, not a wallet: anything sent there is lost.";
    const review = await claimPost(h, claim.claimUrl, { step: "review", network: "TRX", address: USDT_ON_TRX });
    expect(review.status).toBe(400);
    expect(review.text).toContain(message);
    const confirm = await claimPost(h, claim.claimUrl, { step: "confirm", network: "TRX", address: USDT_ON_TRX, amount: "30" });
    expect(confirm.status).toBe(400);
    expect(confirm.text).toContain(message);
    expect((await refundOf(h, claim.id)).status).toBe("AWAITING_CLAIM");
    expect(await available(h)).toBe(held);
  });

  it("refuses the USDC contract of BASE, written in lower case", async () => {
    const h = await setup();
    await paidPayment(h, "100", "USDC", "BASE");
    const before = await balances(h);
    expectError(
      await h.post("/v1/withdrawals", { currency: "USDC", chain: "BASE", amount: "20", address: USDC_ON_BASE.toLowerCase() }),
      400,
      40006,
      /USDC token contract on BASE/,
    );
    expect(await balances(h)).toEqual(before);
  });
});
