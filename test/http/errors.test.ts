import request from "supertest";
import { describe, expect, it } from "vitest";
import type { PricingAdapter } from "../../src/core/ports/pricing";
import { memoryStorage } from "../../src/adapters/storage/memory/index";
import type { Storage, StorageTransaction } from "../../src/core/ports/storage/index";
import type { InvoiceRecord } from "../../src/core/invoices/records";
import { expectErrorObject, setup, type Harness } from "../helpers";

const CREATE = "/api/v1/merchants/invoice/create";
const WHITELABEL = "/api/v1/merchants/whitelabel/create";
const SECRET_DETAIL = "disk on fire at /var/lib/secret-db";

/**
 * Memory storage whose transactions fail, once `failing` is set, after the invoice was written
 * inside them: the rollback must leave nothing behind. Records the invoices it was asked to
 * insert so the test can look for them afterwards.
 */
function breakableStorage() {
  const inner = memoryStorage();
  const state = { failing: false, attempted: [] as InvoiceRecord[] };
  const storage: Storage = {
    ...inner,
    transaction<T>(work: (tx: StorageTransaction) => Promise<T>): Promise<T> {
      if (!state.failing) return inner.transaction(work);
      return inner.transaction((tx) =>
        work({
          ...tx,
          insertInvoice: async (invoice) => {
            state.attempted.push(invoice);
            await tx.insertInvoice(invoice);
          },
          appendEvents: async () => {
            throw new Error(SECRET_DETAIL);
          },
        }),
      );
    },
  };
  return { storage, state };
}

function scope(h: Harness, mode: "test" | "live" = "test") {
  return { merchantId: h.merchant.id, mode };
}

describe("request body errors", () => {
  it("answers malformed JSON with 400 (40004) as a JSON error object, never HTML", async () => {
    const h = await setup();
    const res = await h.post(CREATE).set("Content-Type", "application/json").send('{"amount": 10,');
    expectErrorObject(res, 400, 40004);
    expect(res.text).not.toMatch(/<html|<pre|SyntaxError/i);
  });

  it("does not echo the raw body or the parser's stack in the malformed JSON message", async () => {
    const h = await setup();
    const res = await h.post(CREATE).set("Content-Type", "application/json").send("{'amount': <script>}");
    expectErrorObject(res, 400, 40004);
    expect(res.body.message).not.toContain("<script>");
    expect(res.body).not.toHaveProperty("stack");
  });

  it("answers a body over the limit with 413 (41301)", async () => {
    const h = await setup({ bodyLimit: "1kb" });
    const res = await h.post(CREATE, { amount: 10, metadata: { note: "x".repeat(2048) } });
    expectErrorObject(res, 413, 41301);
    expect(res.body.message).toContain("1024");
  });

  it("accepts a body under the limit", async () => {
    const h = await setup({ bodyLimit: "1kb" });
    const res = await h.post(CREATE, { amount: 10, metadata: { note: "x".repeat(500) } });
    expect(res.status).toBe(200);
  });

  it("answers a form-encoded body with 415 (41501)", async () => {
    const h = await setup();
    const res = await h.post(CREATE).type("form").send("amount=10");
    expectErrorObject(res, 415, 41501);
    expect(res.body.message).toContain("application/json");
  });

  it("answers a text/plain body with 415 (41501)", async () => {
    const h = await setup();
    const res = await h.post(CREATE).set("Content-Type", "text/plain").send('{"amount":10}');
    expectErrorObject(res, 415, 41501);
  });

  it("answers a JSON body without a Content-Type with 415 (41501)", async () => {
    const h = await setup();
    const res = await request(h.app).post(CREATE).set("Authorization", `Bearer ${h.testKey}`).set("Content-Type", "").send(Buffer.from('{"amount":10}'));
    expectErrorObject(res, 415, 41501);
  });

  it("accepts application/json with a UTF-8 charset", async () => {
    const h = await setup();
    const res = await h.post(CREATE).set("Content-Type", "application/json; charset=utf-8").send('{"amount":10}');
    expect(res.status).toBe(200);
  });

  it("parses a +json body it lets through the media type check instead of ignoring it", async () => {
    const h = await setup();
    const res = await h.post(CREATE).set("Content-Type", "application/vnd.api+json").send('{"amount":10}');
    // Either parse it (200) or refuse it as an unsupported type (415); never report "amount is required".
    expect([200, 415]).toContain(res.status);
  });

  it("answers a non-UTF-8 charset with 415 (41501)", async () => {
    const h = await setup();
    const res = await h.post(CREATE).set("Content-Type", "application/json; charset=koi8-r").send('{"amount":10}');
    expectErrorObject(res, 415, 41501);
  });

  it("accepts a reference endpoint called without any body", async () => {
    const h = await setup();
    const res = await h.post("/api/v1/currencies");
    expect(res.status).toBe(200);
  });

  it("rejects fields sent to a reference endpoint", async () => {
    const h = await setup();
    const res = await h.post("/api/v1/currencies", { symbol: "BTC" });
    expectErrorObject(res, 400, 40001);
    expect(res.body.message).toContain("symbol");
  });
});

describe("routing errors", () => {
  it("answers an unknown path under /api/v1 with 404 (40402) as JSON", async () => {
    const h = await setup();
    const res = await h.post("/api/v1/merchants/invoice/delete", { invoiceId: "x" });
    expectErrorObject(res, 404, 40402);
    expect(res.body.message).toContain("/api/v1/merchants/invoice/delete");
  });

  it("answers an unknown path under /api/v1 with 404 JSON even without a key", async () => {
    const h = await setup();
    const res = await request(h.app).get("/api/v1/nothing");
    expectErrorObject(res, 404, 40402);
  });

  it("answers GET on a POST route with 405 (40501)", async () => {
    const h = await setup();
    const res = await request(h.app).get(CREATE).set("Authorization", `Bearer ${h.testKey}`);
    expectErrorObject(res, 405, 40501);
    expect(res.body.message).toContain("POST");
  });

  it("names the allowed method in an Allow header on 405", async () => {
    const h = await setup();
    const res = await request(h.app).get("/api/v1/currencies").set("Authorization", `Bearer ${h.testKey}`);
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe("POST");
  });

  it("answers 404 JSON under a mount prefix too", async () => {
    const h = await setup({ mountPath: "/payments" });
    const res = await h.post("/api/v1/unknown", {});
    expectErrorObject(res, 404, 40402);
    expect(res.body.message).toContain("/payments/api/v1/unknown");
  });

  it("leaves a host route outside its prefix to the host app", async () => {
    const h = await setup();
    const res = await request(h.app).get("/host-route");
    expect(res.status).toBe(200);
    expect(res.text).toBe("host");
  });

  it("leaves an unknown path outside its prefix to Express's default 404", async () => {
    const h = await setup();
    const res = await request(h.app).post("/elsewhere").set("Authorization", `Bearer ${h.testKey}`).send({ amount: 1 });
    expect(res.status).toBe(404);
    expect(res.headers["content-type"]).toMatch(/text\/html/);
    expect(res.text).toContain("Cannot POST /elsewhere");
  });

  it("does not parse or authenticate requests outside its prefix", async () => {
    const h = await setup();
    h.app.post("/host-json", (req, res) => {
      res.json({ body: req.body ?? null });
    });
    // Malformed JSON and no key: the router must not answer for the host.
    const res = await request(h.app).post("/host-json").set("Content-Type", "application/json").send("{oops");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ body: null });
  });

  it("leaves the root-level /api/v1 paths to the host when mounted under a prefix", async () => {
    const h = await setup({ mountPath: "/payments" });
    const res = await request(h.app).post(CREATE).set("Authorization", `Bearer ${h.testKey}`).send({ amount: 10 });
    expect(res.status).toBe(404);
    expect(res.text).toContain(`Cannot POST ${CREATE}`);
  });
});

describe("failures inside the service", () => {
  it("answers a pricing adapter that throws with 503 (50302) and stores nothing", async () => {
    const pricing: PricingAdapter = {
      getRate: async () => {
        throw new Error(SECRET_DETAIL);
      },
    };
    const h = await setup({ pricing });
    const res = await h.post(WHITELABEL, { amount: 100, payCurrency: "BTC" });
    expectErrorObject(res, 503, 50302);
    expect(res.body.message).not.toContain(SECRET_DETAIL);
    expect(await h.router.storage.listEvents(scope(h))).toEqual([]);
  });

  it("answers a pricing adapter that knows no rate with 400 (40005)", async () => {
    const pricing: PricingAdapter = { getRate: async () => null };
    const h = await setup({ pricing });
    const res = await h.post(WHITELABEL, { amount: 100, payCurrency: "BTC" });
    expectErrorObject(res, 400, 40005);
  });

  it("answers a pricing adapter that returns nonsense with 503 (50302) and logs it", async () => {
    const pricing: PricingAdapter = { getRate: async () => ({ rate: "not-a-number", at: new Date() }) };
    const h = await setup({ pricing });
    const res = await h.post(WHITELABEL, { amount: 100, payCurrency: "BTC" });
    expectErrorObject(res, 503, 50302);
    expect(h.logger.lines.some((line) => line.startsWith("error") && line.includes("BTC/USD"))).toBe(true);
  });

  it("answers an unexpected error with 500 (50001) that does not leak its text, and logs it", async () => {
    const { storage, state } = breakableStorage();
    const h = await setup({ storage });
    state.failing = true;
    const res = await h.post(CREATE, { amount: 10 });
    expectErrorObject(res, 500, 50001);
    expect(res.text).not.toContain(SECRET_DETAIL);
    expect(res.text).not.toContain("disk");
    expect(h.logger.lines.some((line) => line.startsWith("error") && line.includes(CREATE))).toBe(true);
  });

  it("never writes the API key to the log of a failed request", async () => {
    const { storage, state } = breakableStorage();
    const h = await setup({ storage });
    state.failing = true;
    await h.post(CREATE, { amount: 10 });
    expect(h.logger.lines.join("\n")).not.toContain(h.testKey);
  });

  it("rolls back a failed hosted invoice: no invoice and no event stored", async () => {
    const { storage, state } = breakableStorage();
    const h = await setup({ storage });
    state.failing = true;
    const res = await h.post(CREATE, { amount: 10 });
    expect(res.status).toBe(500);
    expect(state.attempted).toHaveLength(1);
    const attempted = state.attempted[0]!;
    expect(await h.router.storage.getInvoice(scope(h), attempted.id)).toBeNull();
    expect(await h.router.storage.listEvents(scope(h))).toEqual([]);

    state.failing = false;
    const fetched = await h.post("/api/v1/merchants/invoice/fetch", { invoiceId: attempted.id });
    expect(fetched.status).toBe(404);
  });

  it("rolls back a failed whitelabel invoice: no invoice, no address, no event stored", async () => {
    const { storage, state } = breakableStorage();
    const h = await setup({ storage });
    state.failing = true;
    const res = await h.post(WHITELABEL, { amount: 100, payCurrency: "USDT", network: "TRX" });
    expectErrorObject(res, 500, 50001);
    const attempted = state.attempted[0]!;
    expect(attempted.address).toMatch(/^sbx_trx_/);
    expect(await h.router.storage.getInvoice(scope(h), attempted.id)).toBeNull();
    expect(await h.router.storage.findAddress("test", "TRX", attempted.address!)).toBeNull();
    expect(await h.router.storage.listEvents(scope(h))).toEqual([]);
  });

  it("keeps working after an internal error", async () => {
    const { storage, state } = breakableStorage();
    const h = await setup({ storage });
    state.failing = true;
    expect((await h.post(CREATE, { amount: 10 })).status).toBe(500);
    state.failing = false;
    const res = await h.post(CREATE, { amount: 10 });
    expect(res.status).toBe(200);
    const events = await h.router.storage.listEvents(scope(h));
    expect(events.map((event) => [event.type, event.invoiceId])).toEqual([["payment.created", res.body.id]]);
  });

  it("stores nothing for any rejected create", async () => {
    const h = await setup();
    const rejected = [
      await h.post(CREATE, { amount: -1 }),
      await h.post(CREATE, { amount: 10, acceptedCoins: ["DOGE"] }),
      await h.post(CREATE, { amount: 10.001 }),
      await h.post(WHITELABEL, { amount: 100, payCurrency: "USDT" }),
      await h.post(WHITELABEL, { amount: 1, payCurrency: "BTC" }),
      await h.post(CREATE, { amount: 10 }, h.liveKey),
      await h.post("/api/v1/merchants/payout/create", { currency: "USDT", network: "TRX", amount: 10, address: "TCUmA2JEPuSiBFmNGRiVktBZKbLB89JnSq" }),
      await h.post("/api/v1/merchants/exchange/create", { fromCurrency: "USDT", toCurrency: "BTC", amount: 10 }),
    ];
    for (const res of rejected) expect(res.status).toBeGreaterThanOrEqual(400);
    expect(await h.router.storage.listEvents(scope(h))).toEqual([]);
    expect(await h.router.storage.listEvents(scope(h, "live"))).toEqual([]);
    expect(await h.router.storage.listLedgerEntries(scope(h))).toEqual([]);
  });
});
