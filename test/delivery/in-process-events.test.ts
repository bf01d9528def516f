import { describe, expect, expectTypeOf, it } from "vitest";
import { memoryStorage } from "../../src/adapters/storage/memory/index";
import { IN_PROCESS_ENDPOINT } from "../../src/storage";
import type { InProcessEventContext } from "../../src/operator";
import type { OrOtherStatus } from "../../src/webhooks/index";
import type { PaymentEvent } from "../../src/index";
import { setup } from "../helpers";
import { deposit, get, paidPayment } from "../http/v1/support";

/**
 * `createPaymentRouter({ on: { "payment.completed": handler } })`: events to the host's own code
 * through the webhook outbox: durable, retried on the schedule while the handler
 * throws, handled once when it returns, after a restart too, and in the delivery log.
 */
describe("in-process event handlers", () => {
  it("hands each event of a handled type to its handler once, narrowed to its type", async () => {
    const completed: Array<{ event: PaymentEvent<"payment.completed">; context: InProcessEventContext }> = [];
    const h = await setup({
      on: {
        "payment.completed": (event, context) => {
          // The type narrows: a payment.completed event's payment is PAID.
          expectTypeOf(event.data.status).toEqualTypeOf<OrOtherStatus<"PAID">>();
          completed.push({ event, context });
        },
      },
    });
    const payment = await paidPayment(h, "10", "USDT", "TRX", { metadata: { orderId: "1042" } });
    await h.router.tick();
    await h.router.tick();
    expect(completed).toHaveLength(1);
    const [{ event, context }] = completed as [(typeof completed)[number]];
    expect(event).toMatchObject({ type: "payment.completed", data: { id: payment.id, status: "PAID", metadata: { orderId: "1042" } } });
    expect(context).toMatchObject({ attempt: 1, merchantId: h.merchant.id, mode: "test" });
    expect(context.id).toMatch(/^msg_[0-9a-f]{32}$/);

    // Only the handled type is queued for the host, and the delivery log shows it.
    const log = await get(h, `/v1/webhook-deliveries?endpointId=${IN_PROCESS_ENDPOINT}`);
    expect(log.status, log.text).toBe(200);
    expect(log.body.data).toHaveLength(1);
    expect(log.body.data[0]).toMatchObject({ id: context.id, endpointId: IN_PROCESS_ENDPOINT, eventType: "payment.completed", status: "succeeded" });
  });

  it("retries a handler that throws on the webhook schedule, until it returns", async () => {
    let failures = 2;
    const seen: number[] = [];
    const ids: string[] = [];
    const h = await setup({
      webhooks: { retrySchedule: [60_000, 60_000, 60_000], jitter: 0 },
      on: {
        "payment.created": (event, { attempt }) => {
          seen.push(attempt);
          ids.push(event.data.id);
          if (failures-- > 0) throw new Error("orders database is down");
        },
      },
    });
    const created = await h.post("/v1/payments", { amount: "10", currency: "TRX" });
    await h.router.tick();
    expect(seen).toEqual([1]);
    const [delivery] = (await get(h, `/v1/webhook-deliveries?endpointId=${IN_PROCESS_ENDPOINT}`)).body.data;
    expect(delivery).toMatchObject({ status: "pending", lastError: "the in-process handler threw Error: orders database is down" });
    expect(delivery.attempts).toEqual([{ at: expect.any(String), durationMs: expect.any(Number), statusCode: null, error: delivery.lastError }]);
    // Not before its time.
    await h.router.tick();
    expect(seen).toEqual([1]);
    h.clock.advanceMinutes(1);
    await h.router.tick();
    h.clock.advanceMinutes(1);
    await h.router.tick();
    h.clock.advanceMinutes(5);
    await h.router.tick();
    expect(seen).toEqual([1, 2, 3]);
    const done = (await get(h, `/v1/webhook-deliveries/${delivery.id}`)).body;
    expect(done).toMatchObject({ status: "succeeded", eventType: "payment.created" });
    expect(done.attempts.map((attempt: { error: string | null }) => attempt.error)).toEqual([delivery.lastError, delivery.lastError, null]);
    expect(ids).toEqual([created.body.id, created.body.id, created.body.id]);
  });

  it("delivers what one instance queued after it stopped, from the next one on the same storage", async () => {
    const storage = memoryStorage();
    const first: string[] = [];
    const a = await setup({ storage, on: { "payment.created": (event) => void first.push(event.data.id) } });
    const payment = await a.post("/v1/payments", { amount: "10", currency: "TRX" });
    // The process stops before its sender ran.
    const later: string[] = [];
    const b = await setup({ storage, on: { "payment.created": (event) => void later.push(event.data.id) } });
    await b.router.tick();
    expect(first).toEqual([]);
    expect(later).toEqual([payment.body.id]);
    await a.router.tick();
    expect(first).toEqual([]);
  });

  it("is redeliverable from the log, and webhooks of the same event go out as before", async () => {
    const calls: string[] = [];
    const h = await setup({ on: { "payment.confirming": (event) => void calls.push(event.data.status) } });
    const payment = (await h.post("/v1/payments", { amount: "10", currency: "USDT", chain: "TRX" })).body;
    await deposit(h, payment.address, payment.payAmount, 1);
    await h.router.tick();
    expect(calls).toEqual(["CONFIRMING"]);
    const [delivery] = (await get(h, `/v1/webhook-deliveries?endpointId=${IN_PROCESS_ENDPOINT}`)).body.data;
    const again = await h.post(`/v1/webhook-deliveries/${delivery.id}/redeliver`, {});
    expect(again.status, again.text).toBe(200);
    await h.router.tick();
    expect(calls).toEqual(["CONFIRMING", "CONFIRMING"]);
  });

  it("counts a handler still running after timeoutMs as a failed attempt, retried later", async () => {
    let release!: () => void;
    const calls: number[] = [];
    const h = await setup({
      webhooks: { timeoutMs: 50, retrySchedule: [60_000], jitter: 0 },
      on: {
        "payment.created": (_event, { attempt }) => {
          calls.push(attempt);
          return attempt === 1 ? new Promise<void>((resolve) => (release = resolve)) : undefined;
        },
      },
    });
    await h.post("/v1/payments", { amount: "10", currency: "TRX" });
    await h.router.tick();
    const [delivery] = (await get(h, `/v1/webhook-deliveries?endpointId=${IN_PROCESS_ENDPOINT}`)).body.data;
    expect(delivery).toMatchObject({ status: "pending", lastError: "the in-process handler did not finish within 50 ms" });
    release();
    h.clock.advanceMinutes(2);
    await h.router.tick();
    expect(calls).toEqual([1, 2]);
    expect((await get(h, `/v1/webhook-deliveries/${delivery.id}`)).body.status).toBe("succeeded");
  });

  it("refuses an unknown event type or a handler that is not a function at start-up", async () => {
    await expect(setup({ on: { "payment.paid": () => {} } as never })).rejects.toThrow(/payment\.paid/);
    await expect(setup({ on: { "payment.completed": "notify" } as never })).rejects.toThrow(/on\.payment\.completed/);
  });
});
