import { createPaymentRouter } from "../src/index";
import { invoiceCreateRequest } from "../src/schemas/merchant";
import { parseBody } from "../src/http/validate";
const payments = createPaymentRouter({ backgroundIntervalMs: false });
const merchant = await payments.admin.createMerchant({ name: "Bench" });
const { key } = await payments.admin.issueApiKey(merchant.id, { mode: "test" });
const body = { amount: 25, amountCurrency: "USD", acceptedCoins: ["USDT", "BTC"], lifeTime: 60 };
async function time(name: string, n: number, fn: () => unknown) {
  for (let i = 0; i < 2000; i++) await fn();
  const t = performance.now();
  for (let i = 0; i < n; i++) await fn();
  console.log(name, (((performance.now() - t) / n) * 1000).toFixed(1), "us");
}
await time("zod parse", 20000, () => parseBody(invoiceCreateRequest, body));
const { authenticate } = await import("../src/core/merchants");
const { createInvoice } = await import("../src/core/invoices");
// reach context via a throwaway: rebuild one like the router does
import { memoryStorage } from "../src/adapters/storage/memory";
import { staticPricing } from "../src/adapters/pricing/static";
import { sandboxChain } from "../src/adapters/chain/sandbox";
import { CurrencyCatalog, DEFAULT_CURRENCIES, DEFAULT_FIAT } from "../src/core/currencies";
import { Presenter } from "../src/http/present";
const ctx = { storage: memoryStorage(), pricing: staticPricing(), currencies: new CurrencyCatalog(DEFAULT_CURRENCIES, DEFAULT_FIAT), chains: { test: sandboxChain(), live: null }, now: Date.now, lateWindowMs: 3600000, logger: console };
const { createMerchant, issueApiKey } = await import("../src/core/merchants");
const m = await createMerchant(ctx as any, { name: "x" });
const k = await issueApiKey(ctx as any, m.id, { mode: "test" });
await time("authenticate", 20000, () => authenticate(ctx as any, k.key));
const scope = { merchantId: m.id, mode: "test" as const };
const input = { amount: "25", amountCurrency: "USD", acceptedCoins: ["USDT", "BTC"], whiteLabel: null, underPaidCoverTenths: 0, feePaidByPayer: false, lifeTimeMinutes: 60, returnUrl: null, metadata: null, paymentUrlFor: (id: string) => `http://x/pay/${id}` };
await time("createInvoice", 20000, () => createInvoice(ctx as any, scope, input));
const inv = await createInvoice(ctx as any, scope, input);
const p = new Presenter(ctx.currencies);
await time("present", 20000, () => p.invoice(inv));
await time("JSON.stringify", 20000, () => JSON.stringify(p.invoice(inv)));
await time("tx empty", 20000, () => ctx.storage.transaction(async () => 1));
