import { describe, expect, it } from "vitest";
import { staticPricing } from "../../../src/index";
import { setup, type Harness } from "../../helpers";
import { expectError, get, paidPayment } from "./support";
import {
  available,
  claimPage,
  claimCsrf,
  claimPost,
  claimThroughPage,
  createClaim,
  eventTypesOf,
  PAYER_ADDRESS,
  PAYER_EVM_ADDRESS,
  pathOf,
  refundOf,
} from "./refund-claim-support";

/**
 * Refund claim links: POST /v1/refunds without an address holds amount + fee from the balance
 * and answers a secret `claimUrl`; the payer claims it on the hosted page. USDT fees: TRX 2,
 * ETH 5, BSC 0.5. Each paid 100 USDT payment credits 99.5.
 */

/** 400 USDT of other income (398 credited) and a paid 100 USDT payment (99.5): 497.5 available. */
async function funded(h: Harness) {
  await paidPayment(h, "400");
  return paidPayment(h, "100");
}

describe("refund claim links: creating one", () => {
  it("holds the amount plus the dearest fee offered, answers AWAITING_CLAIM with a claimUrl, and shows the terms without the secret", async () => {
    const h = await setup();
    const payment = await funded(h);
    expect(await available(h)).toBe("497.5");
    const claim = await createClaim(h, { paymentId: payment.id, amount: "30", claimChains: ["TRX", "ETH"] });
    expect(claim).toMatchObject({
      object: "refund",
      paymentId: payment.id,
      status: "AWAITING_CLAIM",
      currency: "USDT",
      chain: "TRX",
      amount: "30",
      fee: "5",
      address: "",
      txHash: null,
      claim: {
        chains: ["TRX", "ETH"],
        fiatAmount: null,
        fiatCurrency: null,
        held: "35",
        claimedAt: null,
        expiresAt: new Date(h.clock.ms + 30 * 86_400_000).toISOString(),
      },
    });
    expect(await available(h)).toBe("462.5"); // 497.5 - 35 held
    const secret = pathOf(claim.claimUrl).split("/").pop()!;
    const fetched = await get(h, `/v1/refunds/${claim.id}`);
    expect(fetched.body).toEqual({ ...claim, claimUrl: undefined });
    expect(fetched.text).not.toContain(secret);
    const stored = await h.router.storage.getPayout({ merchantId: h.merchant.id, mode: "test" }, claim.id);
    expect(JSON.stringify(stored, (_key, value) => (typeof value === "bigint" ? value.toString() : value))).not.toContain(secret);
    expect(await eventTypesOf(h, claim.id)).toEqual(["refund.created"]);
  });

  it("answers a replay of the same Idempotency-Key with the refund and without its claimUrl, holding once", async () => {
    const h = await setup();
    const payment = await funded(h);
    const first = await h.post("/v1/refunds", { paymentId: payment.id, amount: "10" }, undefined).set("Idempotency-Key", "claim-1");
    expect(first.status, first.text).toBe(200);
    const again = await h.post("/v1/refunds", { paymentId: payment.id, amount: "10" }, undefined).set("Idempotency-Key", "claim-1");
    expect(again.status, again.text).toBe(200);
    expect(again.body.id).toBe(first.body.id);
    expect(again.body.claimUrl).toBeUndefined();
    expect(first.body.claimUrl).toMatch(/^http/);
    expect(await available(h)).toBe("485.5"); // 497.5 - (10 + 2), once
  });

  it("counts an unclaimed link against what is left to refund, and refuses a hold the balance cannot cover", async () => {
    const h = await setup();
    const payment = await paidPayment(h, "100"); // 99.5 available
    await createClaim(h, { paymentId: payment.id, amount: "60" });
    expectError(await h.post("/v1/refunds", { paymentId: payment.id, amount: "41" }), 400, 40001, /has 40 USDT left to refund/);
    expectError(await h.post("/v1/refunds", { paymentId: payment.id, amount: "40" }), 422, 42201, /does not cover the claim link's hold of 42/);
    expect(await available(h)).toBe("37.5"); // 99.5 - 62
  });

  it("refuses what only a claim link takes with an address, and bad claim terms, naming the field", async () => {
    const h = await setup();
    const payment = await funded(h);
    expectError(await h.post("/v1/refunds", { paymentId: payment.id, amount: "5", address: PAYER_ADDRESS, currency: "USD" }), 400, 40001, /claim link/);
    expectError(
      await h.post("/v1/refunds", { paymentId: payment.id, amount: "5", claimChains: ["BTC"] }),
      400,
      40005,
      /USDT is not available on network "BTC"/,
    );
    expectError(await h.post("/v1/refunds", { paymentId: payment.id, amount: "5", expiresInDays: 0 }), 400, 40001, /expiresInDays/);
    expectError(await h.post("/v1/refunds", { paymentId: payment.id, amount: "5", currency: "XYZ" }), 400, 40005, /fiat currency/);
    expectError(
      await h.post("/v1/refunds", { paymentId: payment.id, amount: "6", claimChains: ["TRX", "ETH"] }),
      400,
      40002,
      /smallest USDT refund on ETH is 10/,
    );
    expect(await available(h)).toBe("497.5");
  });
});

describe("refund claim links: the payer claims", () => {
  it("claims on the cheaper network chosen: the hold is settled exactly, the refund is a payout, and completes", async () => {
    const h = await setup();
    const payment = await funded(h);
    const claim = await createClaim(h, { paymentId: payment.id, amount: "30", claimChains: ["ETH", "BSC"] });
    expect(await available(h)).toBe("462.5"); // 35 held (ETH's fee of 5)
    const page = await claimPage(h, claim.claimUrl);
    expect(page.status).toBe(200);
    expect(page.headers["content-security-policy"]).toContain("form-action 'self'");
    expect(page.text).toContain("Refund of 30 USDT");
    await claimThroughPage(h, claim, "BSC", PAYER_EVM_ADDRESS);
    const claimed = await refundOf(h, claim.id);
    expect(claimed).toMatchObject({
      status: "PROCESSING",
      chain: "BSC",
      address: PAYER_EVM_ADDRESS,
      amount: "30",
      fee: "0.5",
      claim: { held: "35", claimedAt: new Date(h.clock.ms).toISOString() },
    });
    expect(await available(h)).toBe("467"); // 497.5 - 30.5: the 4.5 of fee not needed came back
    await h.router.tick();
    expect((await refundOf(h, claim.id)).status).toBe("COMPLETED");
    expect(await available(h)).toBe("467");
    expect(await eventTypesOf(h, claim.id)).toEqual(["refund.created", "refund.claimed", "refund.processing", "refund.completed"]);
    // The page now says where the refund went, and the form is gone.
    const after = await claimPage(h, claim.claimUrl);
    expect(after.text).toContain('data-claim-status="COMPLETED"');
    expect(after.text).not.toContain("data-claim-form");
  });

  it("shows a refused address with a clear message and keeps what was typed; nothing moves", async () => {
    const h = await setup();
    const payment = await funded(h);
    const claim = await createClaim(h, { paymentId: payment.id, amount: "30" });
    const refused = await claimPost(h, claim.claimUrl, { step: "review", network: "TRX", address: "not-a-tron-address<b>" });
    expect(refused.status).toBe(400);
    expect(refused.text).toContain("This is not a valid USDT address on TRX.");
    expect(refused.text).toContain('value="not-a-tron-address&lt;b&gt;"');
    expect(refused.text).not.toContain("<b>");
    const offList = await claimPost(h, claim.claimUrl, { step: "review", network: "ETH", address: PAYER_EVM_ADDRESS });
    expect(offList.status).toBe(400);
    expect(offList.text).toContain("Please choose a network from the list.");
    expect((await refundOf(h, claim.id)).status).toBe("AWAITING_CLAIM");
    expect(await available(h)).toBe("465.5");
  });

  it("is claimed at most once when the confirm step is sent twice at the same time", async () => {
    const h = await setup();
    const payment = await funded(h);
    const claim = await createClaim(h, { paymentId: payment.id, amount: "30" });
    const form = { step: "confirm", network: "TRX", address: PAYER_ADDRESS, amount: "30" };
    const answers = await Promise.all([1, 2, 3, 4].map(() => claimPost(h, claim.claimUrl, form)));
    expect(answers.map((answer) => answer.status).sort()).toEqual([303, 409, 409, 409]);
    for (const loser of answers.filter((answer) => answer.status === 409)) expect(loser.text).toContain("This refund has already been claimed.");
    expect(await available(h)).toBe("465.5"); // 497.5 - 32, once
    expect((await h.router.storage.listRefunds(payment.id)).map((row) => row.status)).toEqual(["PROCESSING"]);
    expect(await eventTypesOf(h, claim.id)).toEqual(["refund.created", "refund.claimed", "refund.processing"]);
  });

  it("refuses a post from another site and a wrong secret, which answers as an unknown link", async () => {
    const h = await setup();
    const payment = await funded(h);
    const claim = await createClaim(h, { paymentId: payment.id, amount: "30" });
    const { default: request } = await import("supertest");
    const foreign = await request(h.app)
      .post(pathOf(claim.claimUrl))
      .set("Sec-Fetch-Site", "cross-site")
      .type("form")
      .send({ step: "confirm", network: "TRX", address: PAYER_ADDRESS, amount: "30" });
    expect(foreign.status).toBe(403);
    expect(foreign.text).toContain("Your request was not sent from this page.");
    const wrong = pathOf(claim.claimUrl).replace(/\/[^/]+$/, `/${"A".repeat(43)}`);
    const unknown = await request(h.app).get(wrong);
    expect(unknown.status).toBe(404);
    expect(unknown.text).toContain("Refund link not found");
    expect((await request(h.app).post(wrong).set("Sec-Fetch-Site", "same-origin").type("form").send({ step: "confirm" })).status).toBe(404);
    expect((await refundOf(h, claim.id)).status).toBe("AWAITING_CLAIM");
  });

  it("refuses a post without the page's CSRF token, with another link's, or one older than 12 hours: the form again, 403, nothing claimed", async () => {
    const h = await setup();
    const payment = await funded(h);
    const claim = await createClaim(h, { paymentId: payment.id, amount: "30" });
    const otherLink = await createClaim(h, { paymentId: payment.id, amount: "10" });
    const form = { step: "confirm", network: "TRX", address: PAYER_ADDRESS, amount: "30" };
    const before = await available(h);
    for (const csrf of ["", "garbage", await claimCsrf(h, otherLink.claimUrl)]) {
      const refused = await claimPost(h, claim.claimUrl, { ...form, csrf });
      expect(refused.status, csrf).toBe(403);
      expect(refused.text).toContain("This page was open too long, or the form is not from this page.");
      expect(refused.text).toContain(`value="${PAYER_ADDRESS}"`);
      expect(refused.text).toMatch(/name="csrf" value="\d+\.[A-Za-z0-9_-]{43}"/);
    }
    const stale = await claimCsrf(h, claim.claimUrl);
    h.clock.advanceMinutes(12 * 60);
    expect((await claimPost(h, claim.claimUrl, { ...form, csrf: stale })).status).toBe(403);
    expect((await refundOf(h, claim.id)).status).toBe("AWAITING_CLAIM");
    expect(await available(h)).toBe(before);
    // A token from a page shown 11 hours ago still claims.
    const recent = await claimCsrf(h, claim.claimUrl);
    h.clock.advanceMinutes(11 * 60);
    expect((await claimPost(h, claim.claimUrl, { ...form, csrf: recent })).status).toBe(303);
    expect((await refundOf(h, claim.id)).status).toBe("PROCESSING");
  });

  it("goes through the approval rule once claimed: AWAITING_APPROVAL above the threshold", async () => {
    const h = await setup({ payouts: { approval: { above: "20", currency: "USDT" } } });
    const payment = await funded(h);
    const claim = await createClaim(h, { paymentId: payment.id, amount: "30" });
    await claimThroughPage(h, claim, "TRX", PAYER_ADDRESS);
    expect(await refundOf(h, claim.id)).toMatchObject({ status: "AWAITING_APPROVAL", address: PAYER_ADDRESS });
    expect((await claimPage(h, claim.claimUrl)).text).toContain("once the merchant approves it");
    expect(await eventTypesOf(h, claim.id)).toEqual(["refund.created", "refund.claimed", "refund.awaiting_approval"]);
    expect(await available(h)).toBe("465.5");
  });

  it("applies the payout allowlist to the payer's address: refused on the page, nothing moves", async () => {
    const h = await setup();
    const payment = await funded(h);
    const claim = await createClaim(h, { paymentId: payment.id, amount: "30" });
    await h.router.admin.setAllowlist(h.merchant.id, { enabled: true, by: "user_alice" });
    const refused = await claimPost(h, claim.claimUrl, { step: "confirm", network: "TRX", address: PAYER_ADDRESS, amount: "30" });
    expect(refused.status).toBe(422);
    expect(refused.text).toContain("This address cannot receive this refund.");
    expect(refused.text).toContain(`value="${PAYER_ADDRESS}"`);
    expect((await refundOf(h, claim.id)).status).toBe("AWAITING_CLAIM");
    expect(await available(h)).toBe("465.5");
  });
});

describe("refund claim links: cancel and expiry", () => {
  it("cancels an unclaimed link with the whole hold back, then refuses cancelling again (40922) and claiming it", async () => {
    const h = await setup();
    const payment = await funded(h);
    const claim = await createClaim(h, { paymentId: payment.id, amount: "30", claimChains: ["TRX", "ETH"] });
    expect(await available(h)).toBe("462.5");
    const cancelled = await h.post(`/v1/refunds/${claim.id}/cancel`, {});
    expect(cancelled.status, cancelled.text).toBe(200);
    expect(cancelled.body).toMatchObject({ id: claim.id, status: "CANCELLED" });
    expect(await available(h)).toBe("497.5");
    expectError(await h.post(`/v1/refunds/${claim.id}/cancel`, {}), 409, 40922, /CANCELLED/);
    const late = await claimPost(h, claim.claimUrl, { step: "confirm", network: "TRX", address: PAYER_ADDRESS, amount: "30" });
    expect(late.status).toBe(409);
    expect(late.text).toContain("The merchant cancelled this refund link.");
    expect(await available(h)).toBe("497.5");
    // What it held is refundable again.
    expect((await h.post("/v1/refunds", { paymentId: payment.id, amount: "100", address: PAYER_ADDRESS })).status).toBe(200);
    expect(await eventTypesOf(h, claim.id)).toEqual(["refund.created", "refund.cancelled"]);
  });

  it("refuses to cancel a claimed link (40921), a refund sent to an address (40922), and another merchant's (404)", async () => {
    const h = await setup();
    const payment = await funded(h);
    const claim = await createClaim(h, { paymentId: payment.id, amount: "30" });
    await claimThroughPage(h, claim, "TRX", PAYER_ADDRESS);
    expectError(await h.post(`/v1/refunds/${claim.id}/cancel`, {}), 409, 40921, /was claimed already \(now PROCESSING\)/);
    const direct = await h.post("/v1/refunds", { paymentId: payment.id, amount: "5", address: PAYER_ADDRESS });
    expectError(await h.post(`/v1/refunds/${direct.body.id}/cancel`, {}), 409, 40922, /sent to an address/);
    const other = await createClaim(h, { paymentId: payment.id, amount: "5" });
    expectError(await h.post(`/v1/refunds/${other.id}/cancel`, {}, h.otherTestKey), 404, 40401);
    expectError(await h.post(`/v1/refunds/${other.id}/cancel`, {}, h.liveKey), 404, 40401);
    expectError(await get(h, `/v1/refunds/${other.id}`, h.otherTestKey), 404, 40401);
  });

  it("expires a link past expiresInDays on the background round, returning the hold exactly", async () => {
    const h = await setup();
    const payment = await funded(h);
    const claim = await createClaim(h, { paymentId: payment.id, amount: "30", expiresInDays: 2 });
    h.clock.advanceMinutes(2 * 1440 - 1);
    expect((await h.router.tick()).refundClaimsExpired).toBe(0);
    expect((await refundOf(h, claim.id)).status).toBe("AWAITING_CLAIM");
    expect(await available(h)).toBe("465.5");
    h.clock.advanceMinutes(1);
    // Past its expiry and before the round, the page already refuses it.
    const late = await claimPost(h, claim.claimUrl, { step: "confirm", network: "TRX", address: PAYER_ADDRESS, amount: "30" });
    expect(late.status).toBe(409);
    expect(late.text).toContain("This refund link has expired.");
    expect((await h.router.tick()).refundClaimsExpired).toBe(1);
    expect((await refundOf(h, claim.id)).status).toBe("EXPIRED");
    expect(await available(h)).toBe("497.5");
    expect((await h.router.tick()).refundClaimsExpired).toBe(0);
    expect(await available(h)).toBe("497.5");
    expect(await eventTypesOf(h, claim.id)).toEqual(["refund.created", "refund.expired"]);
  });
});

describe("refund claim links: amounts fixed in fiat", () => {
  it("holds at today's rate plus 5%, converts at the claim's rate, and returns the difference to the last unit", async () => {
    const pricing = staticPricing();
    const h = await setup({ pricing });
    const payment = await funded(h);
    const claim = await createClaim(h, { paymentId: payment.id, amount: "50", currency: "USD" });
    // 50 USD at 1 USDT = 1 USD: 50 USDT, +5% = 52.5, + the TRX fee of 2.
    expect(claim).toMatchObject({ amount: "52.5", fee: "2", claim: { fiatAmount: "50", fiatCurrency: "USD", held: "54.5" } });
    expect(await available(h)).toBe("443"); // 497.5 - 54.5
    pricing.setPrice("USDT", "1.25");
    const form = await claimPage(h, claim.claimUrl);
    expect(form.text).toContain("Refund of 50 USD");
    expect(form.text).toContain("about 40 USDT today");
    const review = await claimPost(h, claim.claimUrl, { step: "review", network: "TRX", address: PAYER_ADDRESS });
    expect(review.text).toContain("1 USDT = 1.25 USD");
    expect(review.text).toMatch(/data-claim-receive>40&nbsp;USDT</);
    // The rate moves between the review and the confirm: shown again, nothing claimed.
    pricing.setPrice("USDT", "1.28");
    const moved = await claimPost(h, claim.claimUrl, { step: "confirm", network: "TRX", address: PAYER_ADDRESS, amount: "40" });
    expect(moved.status).toBe(409);
    expect(moved.text).toContain("The exchange rate changed.");
    expect(moved.text).toMatch(/data-claim-receive>39\.0625&nbsp;USDT</);
    expect((await refundOf(h, claim.id)).status).toBe("AWAITING_CLAIM");
    const done = await claimPost(h, claim.claimUrl, { step: "confirm", network: "TRX", address: PAYER_ADDRESS, amount: "39.0625" });
    expect(done.status, done.text).toBe(303);
    expect(await refundOf(h, claim.id)).toMatchObject({ status: "PROCESSING", amount: "39.0625", fee: "2" });
    expect(await available(h)).toBe("456.4375"); // 497.5 - 41.0625: 13.4375 of the hold came back
  });

  it("debits what a fall past the margin needs at the claim, and refuses the claim when the balance cannot cover it", async () => {
    const pricing = staticPricing();
    const h = await setup({ pricing });
    const payment = await paidPayment(h, "100"); // 99.5
    const claim = await createClaim(h, { paymentId: payment.id, amount: "60", currency: "USD" });
    expect(await available(h)).toBe("34.5"); // 99.5 - (63 + 2)
    pricing.setPrice("USDT", "0.6"); // 60 USD = 100 USDT: 37 above the hold, 34.5 available
    const short = await claimPost(h, claim.claimUrl, { step: "confirm", network: "TRX", address: PAYER_ADDRESS, amount: "100" });
    expect(short.status).toBe(422);
    expect(short.text).toContain("Your refund could not be claimed.");
    expect(await available(h)).toBe("34.5");
    pricing.setPrice("USDT", "0.8"); // 75 USDT: 12 above the hold, which the balance covers
    const done = await claimPost(h, claim.claimUrl, { step: "confirm", network: "TRX", address: PAYER_ADDRESS, amount: "75" });
    expect(done.status, done.text).toBe(303);
    expect(await refundOf(h, claim.id)).toMatchObject({ amount: "75", fee: "2" });
    expect(await available(h)).toBe("22.5"); // 99.5 - 77
  });

  it("refuses a claim whose conversion comes to more than the payment has left to refund", async () => {
    const pricing = staticPricing();
    const h = await setup({ pricing });
    await paidPayment(h, "400");
    const payment = await paidPayment(h, "100");
    const claim = await createClaim(h, { paymentId: payment.id, amount: "90", currency: "USD" }); // 94.5 held of 100 refundable
    pricing.setPrice("USDT", "0.8"); // 112.5 USDT
    const refused = await claimPost(h, claim.claimUrl, { step: "confirm", network: "TRX", address: PAYER_ADDRESS, amount: "112.5" });
    expect(refused.status).toBe(422);
    expect(refused.text).toContain("Your refund could not be claimed.");
    expect((await refundOf(h, claim.id)).status).toBe("AWAITING_CLAIM");
    expect(await available(h)).toBe("401"); // 497.5 - 96.5 held
    pricing.setPrice("USDT", "0.9"); // 100 USDT: exactly what is left
    const done = await claimPost(h, claim.claimUrl, { step: "confirm", network: "TRX", address: PAYER_ADDRESS, amount: "100" });
    expect(done.status, done.text).toBe(303);
    expect(await available(h)).toBe("395.5"); // 497.5 - 102
  });
});

describe("refund claim links: paid in another coin", () => {
  it("converts at the live rate, returns the hold and debits the chosen coin to the last unit; refused when that coin's balance is short", async () => {
    const pricing = staticPricing();
    const h = await setup({ pricing });
    const payment = await funded(h); // 497.5 USDT
    await paidPayment(h, "100", "USDC", "BASE"); // 99.5 USDC
    expect(await available(h, "USDC")).toBe("99.5");
    const claim = await createClaim(h, { paymentId: payment.id, amount: "30", claimCoins: { USDC: ["BASE"] } });
    expect(claim).toMatchObject({ amount: "30", fee: "2", claim: { chains: ["TRX"], coins: { USDC: ["BASE"] }, held: "32", heldCurrency: "USDT" } });
    expect(await available(h)).toBe("465.5");
    pricing.setPrice("USDC", "0.8"); // 1 USDC = 0.8 USDT: 30 USDT = 37.5 USDC
    const form = await claimPage(h, claim.claimUrl);
    expect(form.text).toContain('<option value="USDC:BASE">USDC on BASE</option>');
    const refused = await claimPost(h, claim.claimUrl, { step: "review", choice: "USDC:BASE", address: PAYER_ADDRESS });
    expect(refused.status).toBe(400);
    expect(refused.text).toContain("This is not a valid USDC address on BASE.");
    const review = await claimPost(h, claim.claimUrl, { step: "review", choice: "USDC:BASE", address: PAYER_EVM_ADDRESS });
    expect(review.status, review.text).toBe(200);
    expect(review.text).toMatch(/data-claim-receive>37\.5&nbsp;USDC</);
    expect(review.text).toContain("1 USDC = 0.8 USDT");
    const done = await claimPost(h, claim.claimUrl, { step: "confirm", coin: "USDC", network: "BASE", address: PAYER_EVM_ADDRESS, amount: "37.5" });
    expect(done.status, done.text).toBe(303);
    expect(await refundOf(h, claim.id)).toMatchObject({
      status: "PROCESSING",
      amount: "37.5",
      fee: "0.1",
      chain: "BASE",
      claim: { held: "32", heldCurrency: "USDT" },
    });
    expect(await available(h)).toBe("497.5"); // the whole hold back
    expect(await available(h, "USDC")).toBe("61.9"); // 99.5 - (37.5 + 0.1)

    // 60 USDT = 75 USDC: more than the 61.9 USDC available. Refused on the page, nothing moves, still claimable.
    const second = await createClaim(h, { paymentId: payment.id, amount: "60", claimCoins: { USDC: ["BASE"] } });
    expect(await available(h)).toBe("435.5"); // 497.5 - 62
    const short = await claimPost(h, second.claimUrl, { step: "confirm", coin: "USDC", network: "BASE", address: PAYER_EVM_ADDRESS, amount: "75" });
    expect(short.status).toBe(422);
    expect(short.text).toContain("Your refund could not be claimed.");
    expect(await available(h)).toBe("435.5");
    expect(await available(h, "USDC")).toBe("61.9");
    expect((await refundOf(h, second.id)).status).toBe("AWAITING_CLAIM");
    // The first refund counts its 30 USDT against the payment (not its 37.5 USDC), the link 60: 10 left to refund.
    const over = await h.post("/v1/refunds", { paymentId: payment.id, amount: "11", address: PAYER_ADDRESS });
    expectError(over, 400, 40001);
    expect(over.body.message).toContain(" 10 ");
    await claimThroughPage(h, second, "TRX", PAYER_ADDRESS);
    expect(await available(h)).toBe("435.5"); // the TRX claim costs exactly its hold
    expect(await refundOf(h, second.id)).toMatchObject({ status: "PROCESSING", amount: "60", fee: "2", chain: "TRX" });
  });

  it("converts a fiat amount at the chosen coin's own live rate", async () => {
    const pricing = staticPricing();
    const h = await setup({ pricing });
    const payment = await funded(h);
    await paidPayment(h, "100", "USDC", "BASE"); // 99.5 USDC
    const claim = await createClaim(h, { paymentId: payment.id, amount: "50", currency: "USD", claimCoins: { USDC: ["BASE"] } });
    expect(await available(h)).toBe("443"); // 497.5 - (52.5 + 2)
    pricing.setPrice("USDC", "1.25"); // 50 USD = 40 USDC
    const review = await claimPost(h, claim.claimUrl, { step: "review", choice: "USDC:BASE", address: PAYER_EVM_ADDRESS });
    expect(review.text).toMatch(/data-claim-receive>40&nbsp;USDC</);
    expect(review.text).toContain("1 USDC = 1.25 USD");
    const done = await claimPost(h, claim.claimUrl, { step: "confirm", coin: "USDC", network: "BASE", address: PAYER_EVM_ADDRESS, amount: "40" });
    expect(done.status, done.text).toBe(303);
    expect(await available(h)).toBe("497.5");
    expect(await available(h, "USDC")).toBe("59.4"); // 99.5 - 40.1
  });

  it("refuses the refund's own coin, an unknown coin and an unknown network in claimCoins, naming the field", async () => {
    const h = await setup();
    const payment = await funded(h);
    for (const claimCoins of [{ USDT: ["TRX"] }, { NOPE: ["ETH"] }, { USDC: ["NOPE"] }]) {
      const res = await h.post("/v1/refunds", { paymentId: payment.id, amount: "10", claimCoins });
      expect(res.status, JSON.stringify(claimCoins)).toBe(400);
      expect(res.text).toMatch(/claimCoins|chain|network/i);
    }
    expect(await available(h)).toBe("497.5");
  });
});
