import express from "express";
import request from "supertest";
import { describe, expect, it } from "vitest";
import { createPaymentRouter, createPaymentService, memoryStorage, type PaymentEvent, type PaymentService } from "../../src/index";
import { recordingLogger } from "../helpers";

/**
 * `createPaymentService(options)`: the service without HTTP (a worker process), and
 * `createPaymentRouter(service)`: HTTP mounted on a service the host made.
 */
const PUBLIC_URL = "https://shop.example";

/** A decimal amount ("12.5") in base units of a coin with `decimals` decimals. */
function baseUnits(amount: string, decimals: number): bigint {
  const [whole, fraction = ""] = amount.split(".");
  return BigInt(whole!) * 10n ** BigInt(decimals) + BigInt(fraction.padEnd(decimals, "0") || "0");
}

describe("a payment service without HTTP", () => {
  it("takes a payment in process, credits it on tick, hands the event to its handler, and closes", async () => {
    const completed: Array<PaymentEvent<"payment.completed">> = [];
    const service = createPaymentService({
      storage: memoryStorage(),
      publicUrl: PUBLIC_URL,
      backgroundIntervalMs: false,
      webhooks: { intervalMs: false },
      on: { "payment.completed": (event) => void completed.push(event) },
    });
    const merchant = await service.admin.createMerchant({ name: "Worker shop" });
    const api = service.forMerchant(merchant.id, "test");
    const payment = await api.payments.create({ amount: "10", currency: "TRX", chain: "TRX", metadata: { orderId: "7" } });
    expect(payment).toMatchObject({ object: "payment", status: "PENDING", livemode: false });
    expect(payment.checkoutUrl).toBe(`${PUBLIC_URL}/pay/${payment.id}`);

    // The payer pays on the simulated chain; the next rounds credit it and deliver its event.
    service.sandbox.createDeposit({ coin: "TRX", network: "TRX", address: payment.address!, amount: baseUnits(payment.payAmount!, 6), confirmations: 19 });
    await service.tick();
    await service.tick();
    expect((await api.payments.retrieve(payment.id)).status).toBe("PAID");
    expect(completed).toHaveLength(1);
    expect(completed[0]).toMatchObject({ type: "payment.completed", data: { id: payment.id, status: "PAID", metadata: { orderId: "7" } } });

    expect((await service.health()).status).not.toBe("unhealthy");
    await service.close();
    // Closed: in-process calls are turned away with nothing done, and a second close is the same one.
    await expect(api.payments.list()).rejects.toMatchObject({ code: 50321 });
    await expect(service.close()).resolves.toBeUndefined();
  });

  it("checks its options once, naming createPaymentService", () => {
    expect(() => createPaymentService({ mountPath: "payments" } as never)).toThrow(/^createPaymentService: mountPath: /);
  });
});

describe("a router mounted on a service", () => {
  /** A service with a merchant and a test key issued through its admin. */
  async function serviceWithKey(): Promise<{ service: PaymentService; merchantId: string; key: string }> {
    const service = createPaymentService({
      storage: memoryStorage(),
      publicUrl: PUBLIC_URL,
      backgroundIntervalMs: false,
      webhooks: { intervalMs: false },
      logger: recordingLogger(),
    });
    const merchant = await service.admin.createMerchant({ name: "Shop" });
    const { key } = await service.admin.issueApiKey(merchant.id, { mode: "test" });
    return { service, merchantId: merchant.id, key };
  }

  it("answers /v1 with a key the service issued, and its close() closes the service", async () => {
    const { service, merchantId, key } = await serviceWithKey();
    const router = createPaymentRouter(service);
    expect(router.admin).toBe(service.admin);
    expect(router.storage).toBe(service.storage);
    const app = express().use("/payments", router);

    const created = await request(app).post("/payments/v1/payments").set("Authorization", `Bearer ${key}`).send({ amount: "10", currency: "TRX" });
    expect(created.status, created.text).toBe(200);
    // Links start at publicUrl and where this router is mounted.
    expect(created.body.checkoutUrl).toBe(`${PUBLIC_URL}/payments/pay/${created.body.id}`);
    const listed = await request(app).get("/payments/v1/payments").set("Authorization", `Bearer ${key}`);
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((row: { id: string }) => row.id)).toEqual([created.body.id]);
    // What HTTP created, the service reads in process.
    expect((await service.forMerchant(merchantId, "test").payments.list()).data.map((row) => row.id)).toEqual([created.body.id]);

    await router.close();
    const after = await request(app).get("/payments/v1/payments").set("Authorization", `Bearer ${key}`);
    expect(after.status).toBe(503);
    expect(after.body).toMatchObject({ error: 50321 });
  });

  it("mounts several routers on one service, sharing its doors: closing one closes all", async () => {
    const { service, key } = await serviceWithKey();
    const first = createPaymentRouter(service);
    const second = createPaymentRouter(service);
    const app = express().use("/a", first).use("/b", second);
    for (const prefix of ["/a", "/b"]) {
      const res = await request(app).get(`${prefix}/v1/balances`).set("Authorization", `Bearer ${key}`);
      expect(res.status, res.text).toBe(200);
    }
    await first.close();
    const res = await request(app).get("/b/v1/balances").set("Authorization", `Bearer ${key}`);
    expect(res.status).toBe(503);
    await expect(second.close()).resolves.toBeUndefined();
  });

  it("serves the service's metrics read as the scrape endpoint, 501 when metrics are off", async () => {
    const service = createPaymentService({ storage: memoryStorage(), backgroundIntervalMs: false, metrics: false });
    expect(await service.metrics()).toEqual({ unavailable: expect.stringMatching(/turned off/) });
    const router = createPaymentRouter(service);
    const res = await request(express().get("/metrics", router.metricsHandler)).get("/metrics");
    expect(res.status).toBe(501);
    expect(res.text).toMatch(/turned off/);
    await router.close();
  });
});
