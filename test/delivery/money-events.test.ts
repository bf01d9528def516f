import { afterEach, describe, expect, expectTypeOf, it } from "vitest";
import { IN_PROCESS_ENDPOINT } from "../../src/storage";
import { verifyWebhook, type ServiceEvent } from "../../src/index";
import type { OrOtherStatus } from "../../src/webhooks/index";
import { ADDRESS, get as getV1, paidPayment } from "../http/v1/support";
import { closeDeliveryTests, createEndpoint, drain, FAST, get, harness, listDeliveries, startReceiver } from "./receiver";

/**
 * Withdrawal, refund and conversion events take the payment events' road: the outbox, the
 * endpoints' event-type filters, signed deliveries, the delivery log, redelivery and the host's
 * own `on:` handlers.
 */

afterEach(closeDeliveryTests);

describe("events of money leaving or changing coin", () => {
  it("reach the endpoints subscribed to their types, signed, with the /v1 resource as data", async () => {
    const h = await harness({ webhooks: FAST });
    const receiver = await startReceiver();
    const other = await startReceiver();
    const endpoint = await createEndpoint(h, receiver.url, { events: ["payout.processing", "payout.completed", "refund.completed", "conversion.completed"] });
    await createEndpoint(h, other.url, { events: ["payment.completed"] });
    const payment = await paidPayment(h, "100");
    const withdrawal = (await h.post("/v1/withdrawals", { currency: "USDT", chain: "TRX", amount: "10", address: ADDRESS })).body;
    const refund = (await h.post("/v1/refunds", { paymentId: payment.id, amount: "5", address: ADDRESS })).body;
    const conversion = (await h.post("/v1/conversions", { fromCurrency: "USDT", toCurrency: "TRX", amount: "12" })).body;
    h.clock.advanceMinutes(1);
    await h.router.tick(); // the chain confirms the payouts
    await drain(h);

    const received = receiver.requests.map((request) =>
      verifyWebhook(request.body, request.headers as Record<string, string>, endpoint.secret, { now: () => h.clock.ms }),
    );
    expect(received.map((event) => event.type).sort()).toEqual(["conversion.completed", "payout.completed", "payout.processing", "refund.completed"]);
    const byType = Object.fromEntries(received.map((event) => [event.type, event]));
    expect(byType["payout.completed"]!.data).toEqual((await getV1(h, `/v1/withdrawals/${withdrawal.id}`)).body);
    expect(byType["refund.completed"]!.data).toEqual((await getV1(h, `/v1/refunds/${refund.id}`)).body);
    expect(byType["conversion.completed"]!.data).toEqual(conversion);
    expect(byType["payout.processing"]!.data).toMatchObject({ id: withdrawal.id, object: "withdrawal", status: "PROCESSING", txHash: null });
    // The other endpoint asked for payment.completed only.
    expect(other.events().map((event) => event.type)).toEqual(["payment.completed"]);

    // The delivery log filters by the new types, and a delivery of one is redelivered as it was.
    const logged = await listDeliveries(h, { eventType: "payout.completed" });
    expect(logged.map((delivery) => delivery.eventType)).toEqual(["payout.completed"]);
    const again = await h.post(`/v1/webhook-deliveries/${logged[0]!.id}/redeliver`, {});
    expect(again.status, again.text).toBe(200);
    await drain(h);
    const last = receiver.requests.at(-1)!;
    expect(last.headers["webhook-id"]).toBe(logged[0]!.id);
    expect(JSON.parse(last.body).type).toBe("payout.completed");
  });

  it("refuses an event type nobody sends in an endpoint's filter, naming the known ones", async () => {
    const h = await harness();
    const res = await h.post("/v1/webhook-endpoints", { url: "http://127.0.0.1:9/hook", events: ["payout.sent"] });
    expect(res.status).toBe(400);
    expect(res.body.message).toContain("refund.failed");
    expect((await get(h, "/v1/webhook-deliveries?eventType=conversion.completed")).status).toBe(200);
  });

  it("run the host's on: handlers, narrowed to their type", async () => {
    const seen: string[] = [];
    const h = await harness({
      webhooks: FAST,
      on: {
        "payout.completed": (event) => {
          expectTypeOf(event).toEqualTypeOf<ServiceEvent<"payout.completed">>();
          expectTypeOf(event.data.status).toEqualTypeOf<OrOtherStatus<"COMPLETED">>();
          seen.push(`${event.type} ${event.data.id} ${event.data.status} ${event.data.amount}`);
        },
        "refund.processing": (event) => void seen.push(`${event.type} ${event.data.paymentId}`),
      },
    });
    const payment = await paidPayment(h, "100");
    const withdrawal = (await h.post("/v1/withdrawals", { currency: "USDT", chain: "TRX", amount: "10", address: ADDRESS })).body;
    await h.post("/v1/refunds", { paymentId: payment.id, amount: "5", address: ADDRESS });
    h.clock.advanceMinutes(1);
    await h.router.tick();
    await drain(h);
    expect(seen.sort()).toEqual([`payout.completed ${withdrawal.id} COMPLETED 10`, `refund.processing ${payment.id}`]);
    const log = await listDeliveries(h, { endpointId: IN_PROCESS_ENDPOINT });
    expect(log.map((delivery) => `${delivery.eventType} ${delivery.status}`).sort()).toEqual(["payout.completed succeeded", "refund.processing succeeded"]);
  });
});
