import { timingSafeEqual } from "node:crypto";
const sig = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=";
const V1 = /^[A-Za-z0-9+/]{43}=$/;
const a = Buffer.from(sig.slice(3), "base64"), b = Buffer.from(sig.slice(3), "base64");
const json = { id: "inv_abc", object: "payment", livemode: false, status: "PAID", amount: "25", amountCurrency: "USD", currency: "USDT", chain: "TRX", address: "TXYZabc", rate: "1", payAmount: "25", receivedAmount: "25", txHash: "0xabc", feePaidByPayer: false, underPaidCover: "0", isWhiteLabel: true, checkoutUrl: "http://x/pay/inv_abc", returnUrl: null, metadata: { orderId: "o-1" }, failureReason: null, expiresAt: new Date().toISOString(), createdAt: new Date().toISOString(), updatedAt: new Date().toISOString() };
const j = JSON.parse(JSON.stringify(json));
const S = new Set(["PAID","PENDING"]);
const DEC = /^-?\d+(\.\d+)?$/;
const ISO = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])T([01]\d|2[0-3]):[0-5]\d:[0-5]\d(\.\d{1,9})?(Z|[+-]([01]\d|2[0-3]):[0-5]\d)$/;
const str = (v: unknown) => typeof v === "string"; const ns = (v: unknown) => v === null || typeof v === "string";
const dec = (v: unknown) => typeof v === "string" && DEC.test(v); const iso = (v: unknown) => typeof v === "string" && ISO.test(v);
function direct(v: any) { return str(v.id) && v.object === "payment" && typeof v.livemode === "boolean" && S.has(v.status) && dec(v.amount) && str(v.amountCurrency) && ns(v.currency) && ns(v.chain) && ns(v.address) && (v.rate === null || dec(v.rate)) && (v.payAmount === null || dec(v.payAmount)) && dec(v.receivedAmount) && ns(v.txHash) && typeof v.feePaidByPayer === "boolean" && dec(v.underPaidCover) && typeof v.isWhiteLabel === "boolean" && str(v.checkoutUrl) && ns(v.returnUrl) && (v.metadata === null || (typeof v.metadata === "object" && !Array.isArray(v.metadata))) && ns(v.failureReason) && iso(v.expiresAt) && iso(v.createdAt) && iso(v.updatedAt); }
const tests = Object.entries({ id: str, object: (v: unknown) => v === "payment", livemode: (v: unknown) => typeof v === "boolean", status: (v: unknown) => S.has(v as string), amount: dec, amountCurrency: str, currency: ns, chain: ns, address: ns, rate: (v: unknown) => v === null || dec(v), payAmount: (v: unknown) => v === null || dec(v), receivedAmount: dec, txHash: ns, feePaidByPayer: (v: unknown) => typeof v === "boolean", underPaidCover: dec, isWhiteLabel: (v: unknown) => typeof v === "boolean", checkoutUrl: str, returnUrl: ns, metadata: (v: unknown) => v === null || (typeof v === "object" && !Array.isArray(v)), failureReason: ns, expiresAt: iso, createdAt: iso, updatedAt: iso });
function loop(v: any) { for (const [n, t] of tests) if (!t(v[n])) return false; return true; }
function loopI(v: any) { for (let i = 0; i < tests.length; i++) { const e = tests[i]!; if (!e[1](v[e[0]])) return false; } return true; }
const fns: Record<string, () => unknown> = {
  split: () => sig.split(" "),
  regex: () => V1.test(sig.slice(3)),
  b64: () => Buffer.from(sig.slice(3), "base64"),
  tse: () => timingSafeEqual(a, b),
  set: () => new Set<string>(),
  direct: () => direct(j),
  loop: () => loop(j),
  loopI: () => loopI(j),
  iso3: () => iso(j.expiresAt) && iso(j.createdAt) && iso(j.updatedAt),
};
const best: Record<string, number> = {};
for (let r = 0; r < 6; r++) for (const [n, f] of Object.entries(fns)) { const t = performance.now(); let i = 0; while (performance.now() - t < 100) { for (let k = 0; k < 100; k++) f(); i += 100; } const us = (performance.now() - t) * 1000 / i; best[n] = Math.min(best[n] ?? Infinity, us); }
for (const [n, us] of Object.entries(best)) console.log(n.padEnd(10), us.toFixed(3), "us");
