import { describe, expect, it } from "vitest";
import { createPaymentRouter, memoryStorage, staticPricing } from "../../src/index";
import { setup, simulatedLiveChain } from "../helpers";

/**
 * Stored URLs never come from a client's Host header in live mode: live chains need publicUrl at
 * boot; test mode builds links from the request's origin and says once that it does.
 */
describe("publicUrl and the Host header", () => {
  it("refuses live chains without publicUrl at boot, naming the option", () => {
    expect(() =>
      createPaymentRouter({
        chains: [simulatedLiveChain()],
        pricing: staticPricing({ allowLive: true }),
        storage: memoryStorage(),
        backgroundIntervalMs: false,
      }),
    ).toThrow(/live chains need publicUrl/);
  });

  it("keeps a client's Host header out of stored URLs when publicUrl is set", async () => {
    const h = await setup({ liveChain: simulatedLiveChain() });
    for (const key of [h.testKey, h.liveKey]) {
      const res = await h.post("/v1/payments", { amount: "5", currency: "USDT", chain: "TRX" }, key).set("Host", "evil.example");
      expect(res.status, res.text).toBe(200);
      expect(res.body.checkoutUrl).toMatch(/^https:\/\/shop\.example\/pay\/inv_/);
      const merchant = await h.post("/api/v1/merchants/invoice/fetch", { invoiceId: res.body.id }, key);
      expect(merchant.body.paymentUrl).toBe(res.body.checkoutUrl);
    }
    await h.router.close();
  });

  it("in test mode without publicUrl, builds links from the request and warns once", async () => {
    const h = await setup();
    for (let i = 0; i < 3; i++) {
      const res = await h.post("/v1/payments", { amount: "5", currency: "USDT", chain: "TRX" }).set("Host", "shop.local:8080");
      expect(res.body.checkoutUrl).toMatch(/^http:\/\/shop\.local:8080\/pay\/inv_/);
    }
    expect(h.logger.lines.filter((line) => line.includes("publicUrl is not set"))).toHaveLength(1);
    await h.router.close();
  });
});
