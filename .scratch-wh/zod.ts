import { z } from "zod";
const data = { id: "inv_abc", object: "payment", livemode: false, status: "PAID", amount: "25", amountCurrency: "USD", currency: "USDT", chain: "TRX", address: "TXYZabc", rate: "1", payAmount: "25", receivedAmount: "25", txHash: "0xabc", feePaidByPayer: false, underPaidCover: "0", isWhiteLabel: true, checkoutUrl: "http://x/pay/inv_abc", returnUrl: null, metadata: { orderId: "o-1", note: "x".repeat(300) }, failureReason: null, expiresAt: new Date().toISOString(), createdAt: new Date().toISOString(), updatedAt: new Date().toISOString() };
const json = { type: "payment.completed", timestamp: new Date().toISOString(), data };
const mk = (iso: z.ZodType, dec: z.ZodType, loose: boolean) => { const o = loose ? z.looseObject : z.object; const ns = z.string().nullable(); return o({ type: z.enum(["payment.completed","payment.failed"]), timestamp: iso, data: o({
  id: z.string(), object: z.literal("payment"), livemode: z.boolean(), status: z.enum(["PAID","PENDING"]), amount: dec, amountCurrency: z.string(), currency: ns, chain: ns, address: ns, rate: dec.nullable(), payAmount: dec.nullable(), receivedAmount: dec, txHash: ns, feePaidByPayer: z.boolean(), underPaidCover: dec, isWhiteLabel: z.boolean(), checkoutUrl: z.string(), returnUrl: ns, metadata: z.record(z.string(), z.unknown()).nullable(), failureReason: ns, expiresAt: iso, createdAt: iso, updatedAt: iso }) }); };
const decR = z.string().regex(/^-?\d+(\.\d+)?$/);
const variants: Record<string, z.ZodType> = {
  full: mk(z.iso.datetime({ offset: true }), decR, true),
  strictobj: mk(z.iso.datetime({ offset: true }), decR, false),
  noiso: mk(z.string(), decR, true),
  nodec: mk(z.iso.datetime({ offset: true }), z.string(), true),
  plain: mk(z.string(), z.string(), true),
  isoRefine: mk(z.string().regex(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/), decR, true),
};
for (let r = 0; r < 2; r++) for (const [n, s] of Object.entries(variants)) { const t = performance.now(); let i = 0; while (performance.now() - t < 500) { for (let j = 0; j < 100; j++) s.parse(json); i += 100; } console.log(n, (500000 / i).toFixed(2), "us"); }
