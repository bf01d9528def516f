import request from "supertest";
import { describe, expect, it } from "vitest";
import { setup, type Harness, simulatedLiveChain, type SimulatedLiveChain } from "../helpers";

const CREATE = "/api/v1/merchants/invoice/create";
const WHITELABEL = "/api/v1/merchants/whitelabel/create";
const FETCH = "/api/v1/merchants/invoice/fetch";
const PAYOUT = "/api/v1/merchants/payout/create";
const PAYOUT_FETCH = "/api/v1/merchants/payout/fetch";

function expectInvalidKey(res: { status: number; body: { error?: unknown; message?: unknown } }): void {
  expect(res.status).toBe(401);
  expect(res.body.error).toBe(40101);
  expect(typeof res.body.message).toBe("string");
}

function expectNotFound(res: { status: number; body: { error?: unknown } }): void {
  expect(res.status).toBe(404);
  expect(res.body.error).toBe(40401);
}

/** Gives the harness merchant a test-mode USDT balance by paying a whitelabel invoice in the sandbox. */
async function fundTestUsdt(h: Harness, usd: number): Promise<void> {
  const invoice = await h.post(WHITELABEL, { amount: usd, payCurrency: "USDT", network: "TRX" });
  expect(invoice.status).toBe(200);
  const deposit = await h.post("/api/v1/sandbox/deposit/create", { address: invoice.body.address, amount: invoice.body.payAmount, confirmations: 19 });
  expect(deposit.status).toBe(200);
}

/** Same in live mode: the live chain is a sandbox the test plays payer on directly. */
async function fundLiveUsdt(h: Harness, chain: SimulatedLiveChain, usdt: number): Promise<void> {
  const invoice = await h.post(WHITELABEL, { amount: usdt, payCurrency: "USDT", network: "TRX" }, h.liveKey);
  expect(invoice.status).toBe(200);
  chain.createDeposit({ coin: "USDT", network: "TRX", address: invoice.body.address, amount: BigInt(usdt) * 1_000_000n, confirmations: 19 });
  await h.router.tick();
}

describe("API key authentication", () => {
  it("answers 401 (40101) without an Authorization header", async () => {
    const h = await setup();
    const res = await h.post(CREATE, { amount: 10 }, null);
    expectInvalidKey(res);
    expect(res.body.message).toMatch(/Bearer/);
  });

  it("answers 401 (40101) to a scheme other than Bearer", async () => {
    const h = await setup();
    const res = await request(h.app).post(CREATE).set("Authorization", `Basic ${h.testKey}`).send({ amount: 10 });
    expectInvalidKey(res);
  });

  it("answers 401 (40101) to a Bearer header without a key", async () => {
    const h = await setup();
    const res = await request(h.app).post(CREATE).set("Authorization", "Bearer").send({ amount: 10 });
    expectInvalidKey(res);
  });

  it.each(["not-a-key", "sk_test_short", "sk_prod_abcdefghijklmnopqrstuvwxyz123456", "pk_test_abcdefghijklmnopqrstuvwxyz123456"])(
    "answers 401 (40101) to the malformed key %s",
    async (key) => {
      const h = await setup();
      expectInvalidKey(await h.post(CREATE, { amount: 10 }, key));
    },
  );

  it("answers 401 (40101) to a well-formed key that was never issued", async () => {
    const h = await setup();
    expectInvalidKey(await h.post(CREATE, { amount: 10 }, `sk_test_${"A".repeat(32)}`));
    expectInvalidKey(await h.post(CREATE, { amount: 10 }, `sk_live_${"A".repeat(32)}`));
  });

  it("answers 401 (40101) to a key that differs from an issued one in case only", async () => {
    const h = await setup();
    const key =
      h.testKey.slice(0, 8) +
      h.testKey
        .slice(8)
        .replace(/[a-z]/g, (c) => c.toUpperCase())
        .replace(/[A-Z]/, (c) => c.toLowerCase());
    expect(key).not.toBe(h.testKey);
    expectInvalidKey(await h.post(CREATE, { amount: 10 }, key));
  });

  it("answers 401 (40101) to a revoked key, at once", async () => {
    const h = await setup();
    const issued = await h.router.admin.issueApiKey(h.merchant.id, { mode: "test" });
    expect((await h.post(CREATE, { amount: 10 }, issued.key)).status).toBe(200);
    expect(await h.router.admin.revokeApiKey(issued.id)).toBe(true);
    expectInvalidKey(await h.post(CREATE, { amount: 10 }, issued.key));
    // The merchant's other keys keep working.
    expect((await h.post(CREATE, { amount: 10 })).status).toBe(200);
  });

  it("accepts a lower-case bearer scheme", async () => {
    const h = await setup();
    const res = await request(h.app).post(CREATE).set("Authorization", `bearer ${h.testKey}`).send({ amount: 10 });
    expect(res.status).toBe(200);
  });

  it("checks the key on the reference endpoints too", async () => {
    const h = await setup();
    expectInvalidKey(await h.post("/api/v1/currencies", undefined, null));
    expectInvalidKey(await h.post("/api/v1/exchange/pairs", undefined, null));
  });

  it("checks the key before the body, so an anonymous caller learns nothing about validation", async () => {
    const h = await setup();
    expectInvalidKey(await h.post(CREATE, { amount: -1 }, null));
  });

  it("never echoes the key in an error message", async () => {
    const h = await setup();
    const unknown = `sk_test_${"Z".repeat(32)}`;
    const res = await h.post(CREATE, { amount: 10 }, unknown);
    expect(res.body.message).not.toContain(unknown);
  });

  it("stores keys only as hashes", async () => {
    const h = await setup();
    const issued = await h.router.admin.issueApiKey(h.merchant.id, { mode: "live" });
    const stored = await h.router.storage.listApiKeys(h.merchant.id);
    expect(stored.length).toBe(3);
    const plaintexts = [h.testKey, h.liveKey, issued.key];
    for (const record of stored) {
      for (const value of Object.values(record)) {
        for (const key of plaintexts) {
          expect(value).not.toBe(key);
          if (typeof value === "string") expect(value).not.toContain(key);
        }
      }
    }
    for (const key of plaintexts) expect(await h.router.storage.findApiKeyByHash(key)).toBeNull();
    const summaries = await h.router.admin.listApiKeys(h.merchant.id);
    expect(JSON.stringify(summaries)).not.toContain(h.testKey);
  });
});

describe("test and live modes", () => {
  it("keeps a test-mode invoice out of reach of the live key (404)", async () => {
    const h = await setup();
    const created = await h.post(CREATE, { amount: 10 });
    expect(created.status).toBe(200);
    expectNotFound(await h.post(FETCH, { invoiceId: created.body.id }, h.liveKey));
    expect((await h.post(FETCH, { invoiceId: created.body.id })).status).toBe(200);
  });

  it("keeps a live-mode invoice out of reach of the test key (404)", async () => {
    const h = await setup({ liveChain: simulatedLiveChain() });
    const created = await h.post(CREATE, { amount: 10 }, h.liveKey);
    expect(created.status).toBe(200);
    expectNotFound(await h.post(FETCH, { invoiceId: created.body.id }));
    expect((await h.post(FETCH, { invoiceId: created.body.id }, h.liveKey)).status).toBe(200);
  });

  it("keeps test and live balances apart", async () => {
    const chain = simulatedLiveChain();
    const h = await setup({ liveChain: chain });
    await fundTestUsdt(h, 100);
    // The live balance is empty, so a live payout is refused for lack of funds.
    const live = await h.post(PAYOUT, { currency: "USDT", network: "TRX", amount: 10, address: "TRQfJj37aeveTDrAtAwuVN7sYpkbe3fn96" }, h.liveKey);
    expect(live.status).toBe(422);
    expect(live.body.error).toBe(42201);
    expect(await h.router.storage.getBalance({ merchantId: h.merchant.id, mode: "live" }, "USDT")).toBe(0n);
    expect(await h.router.storage.getBalance({ merchantId: h.merchant.id, mode: "test" }, "USDT")).toBe(99_500_000n);
  });

  it("answers 404 (not 403) for another merchant's invoice", async () => {
    const h = await setup();
    const created = await h.post(CREATE, { amount: 10 });
    const res = await h.post(FETCH, { invoiceId: created.body.id }, h.otherTestKey);
    expectNotFound(res);
    // The same answer as for an id that never existed.
    const missing = await h.post(FETCH, { invoiceId: "inv_does_not_exist" }, h.otherTestKey);
    expectNotFound(missing);
  });

  it("answers 404 (not 403) for another merchant's payout", async () => {
    const h = await setup();
    await fundTestUsdt(h, 100);
    const payout = await h.post(PAYOUT, { currency: "USDT", network: "TRX", amount: 10, address: "TMP34dKKXe2Uh8PCSTKjKjfZbR3CbUvXTZ" });
    expect(payout.status).toBe(200);
    expectNotFound(await h.post(PAYOUT_FETCH, { payoutId: payout.body.id }, h.otherTestKey));
    expectNotFound(await h.post(PAYOUT_FETCH, { payoutId: payout.body.id }, h.liveKey));
    expect((await h.post(PAYOUT_FETCH, { payoutId: payout.body.id })).status).toBe(200);
  });

  describe("live mode without a chain adapter", () => {
    it("answers invoice/create with 503 (50301)", async () => {
      const h = await setup();
      const res = await h.post(CREATE, { amount: 10 }, h.liveKey);
      expect(res.status).toBe(503);
      expect(res.body.error).toBe(50301);
      expect(res.body.message).toMatch(/chain/);
    });

    it("answers whitelabel/create with 503 (50301)", async () => {
      const h = await setup();
      const res = await h.post(WHITELABEL, { amount: 100, payCurrency: "BTC" }, h.liveKey);
      expect(res.status).toBe(503);
      expect(res.body.error).toBe(50301);
    });

    it("answers payout/create with 503 (50301)", async () => {
      const h = await setup();
      const res = await h.post(PAYOUT, { currency: "USDT", network: "TRX", amount: 10, address: "TRQfJj37aeveTDrAtAwuVN7sYpkbe3fn96" }, h.liveKey);
      expect(res.status).toBe(503);
      expect(res.body.error).toBe(50301);
    });

    it("stores nothing for a refused live invoice", async () => {
      const h = await setup();
      await h.post(CREATE, { amount: 10 }, h.liveKey);
      expect(await h.router.storage.listEvents({ merchantId: h.merchant.id, mode: "live" })).toEqual([]);
    });

    it("answers the currency list and the pairs with what it serves: nothing", async () => {
      const h = await setup();
      const currencies = await h.post("/api/v1/currencies", undefined, h.liveKey);
      expect(currencies.status).toBe(200);
      expect(currencies.body).toEqual([]);
      const pairs = await h.post("/api/v1/exchange/pairs", undefined, h.liveKey);
      expect(pairs.status).toBe(200);
      expect(pairs.body).toEqual([]);
      // The test key still sees every currency: test mode runs on the sandbox.
      expect((await h.post("/api/v1/currencies", undefined, h.testKey)).body.length).toBeGreaterThan(0);
    });

    it("leaves test mode working", async () => {
      const h = await setup();
      expect((await h.post(CREATE, { amount: 10 })).status).toBe(200);
    });
  });

  describe("live mode with a chain adapter", () => {
    it("creates hosted and whitelabel invoices", async () => {
      const h = await setup({ liveChain: simulatedLiveChain() });
      const hosted = await h.post(CREATE, { amount: 10 }, h.liveKey);
      expect(hosted.status).toBe(200);
      expect(hosted.body.merchantId).toBe(h.merchant.id);
      const whitelabel = await h.post(WHITELABEL, { amount: 100, payCurrency: "BTC" }, h.liveKey);
      expect(whitelabel.status).toBe(200);
      expect(whitelabel.body.address).toMatch(/^sbx_btc_/);
      expect(whitelabel.body.payAmount).toBe(0.00166667);
    });

    it("issues live addresses from the configured chain, not the test sandbox", async () => {
      const chain = simulatedLiveChain();
      const h = await setup({ liveChain: chain });
      const invoice = await h.post(WHITELABEL, { amount: 100, payCurrency: "USDT", network: "TRX" }, h.liveKey);
      // The test-mode sandbox endpoint does not know a live address.
      const res = await h.post("/api/v1/sandbox/deposit/create", { address: invoice.body.address, amount: 100, confirmations: 19 });
      expectNotFound(res);
    });

    it("credits a live deposit and sends a live payout to COMPLETED", async () => {
      const chain = simulatedLiveChain();
      const h = await setup({ liveChain: chain });
      await fundLiveUsdt(h, chain, 100);
      const live = { merchantId: h.merchant.id, mode: "live" } as const;
      expect(await h.router.storage.getBalance(live, "USDT")).toBe(99_500_000n);

      const payout = await h.post(PAYOUT, { currency: "USDT", network: "TRX", amount: 10, address: "TRQfJj37aeveTDrAtAwuVN7sYpkbe3fn96" }, h.liveKey);
      expect(payout.status).toBe(200);
      expect(payout.body.status).toBe("PROCESSING");
      expect(chain.getPayout(payout.body.id)?.address).toBe("TRQfJj37aeveTDrAtAwuVN7sYpkbe3fn96");
      expect(await h.router.storage.getBalance(live, "USDT")).toBe(87_500_000n);

      await h.router.tick();
      const fetched = await h.post(PAYOUT_FETCH, { payoutId: payout.body.id }, h.liveKey);
      expect(fetched.body.status).toBe("COMPLETED");
      // Nothing of this reached test mode.
      expect(await h.router.storage.getBalance({ merchantId: h.merchant.id, mode: "test" }, "USDT")).toBe(0n);
    });
  });

  describe("sandbox endpoints", () => {
    it.each([
      ["/api/v1/sandbox/deposit/create", { address: "sbx_trx_abcdefghijklmnopqrstuvwx", amount: 1, confirmations: 1 }],
      ["/api/v1/sandbox/deposit/confirm", { txHash: "0xabc", confirmations: 1 }],
      ["/api/v1/sandbox/deposit/drop", { txHash: "0xabc" }],
      ["/api/v1/sandbox/invoice/expire", { invoiceId: "inv_x" }],
      ["/api/v1/sandbox/payout/fail", { payoutId: "po_x" }],
    ])("answer %s to a live key with 404", async (path, body) => {
      const h = await setup({ liveChain: simulatedLiveChain() });
      const res = await h.post(path, body, h.liveKey);
      expect(res.status).toBe(404);
      expect(res.body.error).toBe(40402);
    });

    it("answer a live key with the same 404 whatever the body, as for a path that does not exist", async () => {
      const h = await setup();
      const unknown = await h.post("/api/v1/sandbox/nothing-here", {}, h.liveKey);
      expect(unknown.status).toBe(404);
      const res = await h.post("/api/v1/sandbox/deposit/create", {}, h.liveKey);
      expect(res.status).toBe(404);
      expect(res.body.error).toBe(40402);
    });

    it("serve a test key", async () => {
      const h = await setup();
      const invoice = await h.post(CREATE, { amount: 10 });
      const res = await h.post("/api/v1/sandbox/invoice/expire", { invoiceId: invoice.body.id });
      expect(res.status).toBe(200);
      expect(res.body.status).toBe("EXPIRED");
    });
  });
});
