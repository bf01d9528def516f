import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { memoryStorage } from "../../src/adapters/storage/memory/index";
import { createPaymentRouter, staticPricing, type CurrencyConfig } from "../../src/index";
import { DEFAULT_CURRENCIES } from "../../src/chains";
import { setup } from "../helpers";

describe("createPaymentRouter options", () => {
  it("works with no options at all, keeping its data in ./.data across restarts", async () => {
    // The default writes under the working directory: run it in a scratch one.
    const cwd = process.cwd();
    const scratch = await mkdtemp(join(tmpdir(), "ecp-defaults-"));
    process.chdir(scratch);
    try {
      const router = createPaymentRouter();
      const merchant = await router.admin.createMerchant({ name: "Defaults" });
      expect((await router.admin.issueApiKey(merchant.id)).key).toMatch(/^sk_test_/);
      await router.close();
      expect(existsSync(join(scratch, ".data", "pgdata", "PG_VERSION"))).toBe(true);
      const restarted = createPaymentRouter();
      expect(await restarted.admin.getMerchant(merchant.id)).toEqual(merchant);
      await restarted.close();
    } finally {
      process.chdir(cwd);
      await rm(scratch, { recursive: true, force: true });
    }
  }, 60_000);

  it("throws at boot when given both a storage and a dataDir for the default one", () => {
    expect(() => createPaymentRouter({ storage: memoryStorage(), dataDir: "/tmp/x" })).toThrow(/dataDir .* pass one or the other/);
  });

  it("throws at boot on a publicUrl that is not an absolute http(s) URL", () => {
    expect(() => createPaymentRouter({ publicUrl: "shop.example" })).toThrow(/publicUrl: must be an absolute http\(s\) URL/);
    expect(() => createPaymentRouter({ publicUrl: "ftp://shop.example" })).toThrow(/publicUrl/);
    expect(() => createPaymentRouter({ publicUrl: "https://shop.example/?a=1" })).toThrow(/query or fragment/);
  });

  it("throws at boot on an unknown option, naming it", () => {
    expect(() => createPaymentRouter({ storge: memoryStorage() } as never)).toThrow(/unknown option\(s\) storge/);
  });

  it("throws at boot on an adapter that lacks its methods", () => {
    expect(() => createPaymentRouter({ pricing: {} as never })).toThrow(/pricing\.getRate: must have a getRate\(\) method/);
    expect(() => createPaymentRouter({ chain: { supports: () => true } as never })).toThrow(/chain\.createAddress/);
  });

  it("throws at boot on bad numbers", () => {
    expect(() => createPaymentRouter({ backgroundIntervalMs: 0 })).toThrow(/backgroundIntervalMs/);
    expect(() => createPaymentRouter({ lateWindowMinutes: -1 })).toThrow(/lateWindowMinutes/);
    expect(() => createPaymentRouter({ bodyLimit: "lots" })).toThrow(/bodyLimit/);
    expect(() => createPaymentRouter({ bodyTimeoutMs: 0 })).toThrow(/bodyTimeoutMs/);
    expect(() => createPaymentRouter({ bodyTimeoutMs: 1.5 })).toThrow(/bodyTimeoutMs/);
    expect(() => createPaymentRouter({ bodyTimeoutMs: "30s" as never })).toThrow(/bodyTimeoutMs/);
  });

  it("throws at boot on a currency list with a mistake, naming the entry", () => {
    const twice = [...DEFAULT_CURRENCIES, DEFAULT_CURRENCIES[0]!] as CurrencyConfig[];
    expect(() => createPaymentRouter({ currencies: twice })).toThrow(/"BTC" is listed twice/);
    const badFee = [{ ...DEFAULT_CURRENCIES[0]!, networks: [{ ...DEFAULT_CURRENCIES[0]!.networks[0]!, withdrawFee: "0.000000001" }] }];
    expect(() => createPaymentRouter({ currencies: badFee })).toThrow(/BTC: BTC\.withdrawFee "0\.000000001"/);
    expect(() => createPaymentRouter({ fiat: { BTC: 2 } })).toThrow(/"BTC" is also a crypto currency/);
  });

  it("serves a configured currency list and prices invoices with a configured pricing adapter", async () => {
    const currencies: CurrencyConfig[] = [
      {
        symbol: "DOGE",
        name: "Dogecoin",
        decimals: 8,
        quoteDecimals: 8,
        exchangeMin: "10",
        networks: [{ network: "DOGE", name: "Dogecoin", minConfirm: 6, withdrawFee: "2", withdrawMin: "20", depositMin: "1", staticFixedFee: "0" }],
      },
    ];
    const h = await setup({ currencies, pricing: staticPricing({ usdPrices: { DOGE: "0.25" } }) });
    const list = await h.post("/api/v1/currencies");
    expect(list.body).toEqual([
      {
        symbol: "DOGE",
        name: "Dogecoin",
        networks: [{ network: "DOGE", name: "Dogecoin", minConfirm: 6, withdrawFee: 2, withdrawMin: 20, depositMin: 1, staticFixedFee: 0 }],
      },
    ]);
    const invoice = await h.post("/api/v1/merchants/whitelabel/create", { amount: 10, payCurrency: "DOGE" });
    expect(invoice.body).toMatchObject({ rate: 0.25, payAmount: 40, network: { network: "DOGE" } });
    const btc = await h.post("/api/v1/merchants/whitelabel/create", { amount: 10, payCurrency: "BTC" });
    expect(btc.body.error).toBe(40005);
  });

  it("honours lateWindowMinutes", async () => {
    const h = await setup({ lateWindowMinutes: 5 });
    const invoice = (await h.post("/api/v1/merchants/whitelabel/create", { amount: 10, payCurrency: "USDT", network: "TRX", lifeTime: 10 })).body;
    h.clock.advanceMinutes(16); // expired 6 minutes ago: past a 5-minute window
    await h.router.tick();
    await h.post("/api/v1/sandbox/deposit/create", { address: invoice.address, amount: 10 });
    const after = (await h.post("/api/v1/merchants/invoice/fetch", { invoiceId: invoice.id })).body;
    expect(after).toMatchObject({ status: "EXPIRED", receivedAmount: 10 });
  });

  it("runs the background loops on their own every backgroundIntervalMs, and close() stops them", async () => {
    const h = await setup({ backgroundIntervalMs: 20 });
    const invoice = (await h.post("/api/v1/merchants/whitelabel/create", { amount: 10, payCurrency: "USDT", network: "TRX" })).body;
    // Straight on the sandbox chain, not through the endpoint (which would sync at once): only
    // the background loop can bring this deposit in.
    h.router.sandbox.createDeposit({ coin: "USDT", network: "TRX", address: invoice.address, amount: 10_000_000n, confirmations: 19 });
    await expect
      .poll(async () => (await h.post("/api/v1/merchants/invoice/fetch", { invoiceId: invoice.id })).body.status, { timeout: 2000, interval: 20 })
      .toBe("PAID");
    const second = (await h.post("/api/v1/merchants/whitelabel/create", { amount: 10, payCurrency: "USDT", network: "TRX" })).body;
    await h.router.close();
    h.router.sandbox.createDeposit({ coin: "USDT", network: "TRX", address: second.address, amount: 10_000_000n, confirmations: 19 });
    await new Promise((resolve) => setTimeout(resolve, 150));
    // The router answers nothing once closed; the memory storage still reads (its close keeps the data).
    expect((await h.post("/api/v1/merchants/invoice/fetch", { invoiceId: second.id })).status).toBe(503);
    expect((await h.router.storage.getInvoice({ merchantId: h.merchant.id, mode: "test" }, second.id))?.status).toBe("PENDING");
  });
});
