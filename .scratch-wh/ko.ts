import { createHmac, createSecretKey } from "node:crypto";
const key = Buffer.from("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "base64");
const ko = createSecretKey(key);
const body = Buffer.alloc(900, 97);
const fns: Record<string, () => unknown> = {
  buf: () => createHmac("sha256", key).update("msg_1.1234567890.").update(body).digest(),
  ko: () => createHmac("sha256", ko).update("msg_1.1234567890.").update(body).digest(),
  bufB64: () => createHmac("sha256", key).update("msg_1.1234567890.").update(body).digest("base64"),
  koB64: () => createHmac("sha256", ko).update("msg_1.1234567890.").update(body).digest("base64"),
};
const best: Record<string, number> = {};
for (let r = 0; r < 8; r++) for (const [n, f] of Object.entries(fns)) { const t = performance.now(); let i = 0; while (performance.now() - t < 150) { for (let k = 0; k < 100; k++) f(); i += 100; } const us = (performance.now() - t) * 1000 / i; best[n] = Math.min(best[n] ?? Infinity, us); }
for (const [n, us] of Object.entries(best)) console.log(n.padEnd(8), us.toFixed(3), "us");
