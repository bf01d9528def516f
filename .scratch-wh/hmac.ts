import { createHash, createHmac, timingSafeEqual } from "node:crypto";
const key = Buffer.from("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "base64");
const body = Buffer.alloc(900, 97);
const pad = (b: number) => { const k = Buffer.alloc(64); key.copy(k); for (let i = 0; i < 64; i++) k[i]! ^= b; return k; };
const inner = createHash("sha256").update(pad(0x36));
const outer = createHash("sha256").update(pad(0x5c));
const a = createHmac("sha256", key).update("msg_1.1234567890.").update(body).digest();
const b = outer.copy().update(inner.copy().update("msg_1.1234567890.").update(body).digest()).digest();
console.log(a.equals(b));
const fns: Record<string, () => unknown> = {
  hmac: () => createHmac("sha256", key).update("msg_1.1234567890.").update(body).digest(),
  hmacB64: () => createHmac("sha256", key).update("msg_1.1234567890.").update(body).digest("base64"),
  copy: () => outer.copy().update(inner.copy().update("msg_1.1234567890.").update(body).digest()).digest(),
  tse: () => timingSafeEqual(a, b),
  b64dec: () => Buffer.from("g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=", "base64"),
  toString: () => body.toString(),
};
for (let r = 0; r < 2; r++) for (const [n, f] of Object.entries(fns)) { const t = performance.now(); let i = 0; while (performance.now() - t < 500) { for (let j = 0; j < 100; j++) f(); i += 100; } console.log(n, (500000 / i).toFixed(3), "us"); }
