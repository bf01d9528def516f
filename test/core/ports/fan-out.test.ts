import { describe, expect, it } from "vitest";
import { fanOut, webhookDeliveryId, webhookPayload } from "../../../src/core/ports/fan-out";
import type { EventRecord, WebhookEndpointRecord } from "../../../src/core/webhooks/records";

const T0 = Date.UTC(2026, 10, 21, 10, 0, 0);

const event = (over: Partial<EventRecord> = {}): EventRecord => ({
  id: "evt_1",
  merchantId: "m_1",
  mode: "test",
  type: "payment.completed",
  invoiceId: "inv_1",
  data: { id: "inv_1", amount: "25.00", metadata: { orderId: 'o"1\\ \u2028 ✓', nested: [1, null, { a: "\n" }] } },
  createdAt: T0,
  ...over,
});

const endpoint = (over: Partial<WebhookEndpointRecord> = {}): WebhookEndpointRecord => ({
  id: "we_1",
  merchantId: "m_1",
  mode: "test",
  url: "https://shop.example/hooks",
  events: null,
  secrets: [],
  status: "enabled",
  disabledReason: null,
  createdAt: T0,
  updatedAt: T0,
  ...over,
});

describe("webhook payloads", () => {
  it("is the JSON of { type, timestamp, data }, byte for byte, whether or not the data's JSON is passed in", () => {
    const e = event();
    const expected = JSON.stringify({ type: e.type, timestamp: new Date(T0).toISOString(), data: e.data });
    expect(webhookPayload(e)).toBe(expected);
    expect(webhookPayload(e, JSON.stringify(e.data))).toBe(expected);
    expect(JSON.parse(webhookPayload(e))).toEqual({ type: "payment.completed", timestamp: "2026-11-21T10:00:00.000Z", data: e.data });
  });
});

describe("fanOut", () => {
  it("gives each subscribed, enabled endpoint of the event's scope one delivery, oldest endpoint first, with an id derived from both", () => {
    const endpoints = [
      endpoint({ id: "we_b", createdAt: T0 + 1 }),
      endpoint({ id: "we_a", createdAt: T0 + 1, events: ["payment.created"] }),
      endpoint({ id: "we_c" }),
      endpoint({ id: "we_off", status: "disabled" }),
    ];
    const deliveries = fanOut([event(), event({ id: "evt_2", type: "payment.created" })], () => endpoints, T0 + 5);
    expect(deliveries.map((d) => `${d.eventId}>${d.endpointId}`)).toEqual(["evt_1>we_c", "evt_1>we_b", "evt_2>we_c", "evt_2>we_a", "evt_2>we_b"]);
    expect(deliveries[0]).toEqual({
      id: webhookDeliveryId("evt_1", "we_c"),
      merchantId: "m_1",
      mode: "test",
      endpointId: "we_c",
      eventId: "evt_1",
      eventType: "payment.completed",
      payload: webhookPayload(event()),
      status: "pending",
      attempts: 0,
      nextAttemptAt: T0 + 5,
      leaseUntil: null,
      lastStatusCode: null,
      lastError: null,
      createdAt: T0 + 5,
      updatedAt: T0 + 5,
    });
    expect(endpoints.map((e) => e.id)).toEqual(["we_b", "we_a", "we_c", "we_off"]); // the input is not reordered
  });

  it("derives ids that differ per event and per endpoint and look like every other id (msg_ and 32 hex digits)", () => {
    const ids = new Set([webhookDeliveryId("evt_1", "we_1"), webhookDeliveryId("evt_1", "we_2"), webhookDeliveryId("evt_2", "we_1")]);
    expect(ids.size).toBe(3);
    for (const id of ids) expect(id).toMatch(/^msg_[0-9a-f]{32}$/);
    expect(webhookDeliveryId("evt_1", "we_1")).toBe(webhookDeliveryId("evt_1", "we_1"));
  });
});
