import request from "supertest";
import { describe, expect, it } from "vitest";
import { setup } from "../../helpers";
import { expectError, get } from "./support";
import { createSubscription, DAY, fetchSubscription, later, payPayment } from "./subscription-support";

/**
 * /v1/subscriptions through HTTP: creation with its first payment (or a trial), the schedule of
 * payments on the background work under a test clock, past_due and cancellation for an unpaid
 * period, a late payment, cancelling now and at period end, updates, lists, isolation.
 */

describe("POST /v1/subscriptions", () => {
  it("starts now: active in period 0, whose payment is made at once and carries the subscription", async () => {
    const h = await setup();
    const sub = await createSubscription(h, { metadata: { plan: "pro" } });
    expect(sub).toMatchObject({
      object: "subscription",
      livemode: false,
      customer: "cus_1",
      status: "active",
      amount: "10",
      currency: "USDT",
      interval: "month",
      currentPeriodStart: "2026-03-01T12:00:00.000Z",
      currentPeriodEnd: "2026-04-01T12:00:00.000Z",
      cancelAtPeriodEnd: false,
      trialEnd: null,
      gracePeriodDays: 3,
      renewBeforeDays: 3,
      payerCanCancel: false,
      metadata: { plan: "pro" },
    });
    expect(sub.id).toMatch(/^sub_/);
    expect(sub.payerUrl).toMatch(/\/pay\/subscription\/[A-Za-z0-9]{40}$/);
    const payment = await get(h, `/v1/payments/${sub.openPaymentId}`);
    expect(payment.body).toMatchObject({ status: "PENDING", amount: "10", metadata: { plan: "pro", subscriptionId: sub.id, subscriptionPeriod: 0 } });
    // Payable until the period ends, when an unpaid period cancels the subscription.
    expect(payment.body.expiresAt).toBe("2026-04-01T12:00:00.000Z");
    // Fetching never shows the payer link again.
    expect((await fetchSubscription(h, sub.id)).payerUrl).toBeUndefined();
  });

  it("with a trial: no payment until renewBeforeDays before the trial ends, then the first period", async () => {
    const h = await setup();
    const sub = await createSubscription(h, { trialDays: 14, renewBeforeDays: 2 });
    expect(sub).toMatchObject({ status: "active", trialEnd: "2026-03-15T12:00:00.000Z", currentPeriodStart: "2026-03-01T12:00:00.000Z", openPaymentId: null });
    await later(h, 11 * DAY);
    expect((await fetchSubscription(h, sub.id)).openPaymentId).toBeNull();
    await later(h, 1 * DAY);
    const invoiced = await fetchSubscription(h, sub.id);
    expect(invoiced.openPaymentId).toMatch(/^inv_/);
    await payPayment(h, invoiced.openPaymentId!);
    await later(h, 2 * DAY);
    expect(await fetchSubscription(h, sub.id)).toMatchObject({
      status: "active",
      openPaymentId: null,
      currentPeriodStart: "2026-03-15T12:00:00.000Z",
      currentPeriodEnd: "2026-04-15T12:00:00.000Z",
    });
  });

  it("refuses bad settings with the error object", async () => {
    const h = await setup();
    const refuse = async (body: Record<string, unknown>, message: RegExp) =>
      expectError(await h.post("/v1/subscriptions", { customer: "c", amount: "10", currency: "USDT", interval: "week", ...body }), 400, 40001, message);
    await refuse({ interval: "fortnight" }, /interval/);
    await refuse({ renewBeforeDays: 7 }, /renewBeforeDays: must be less than the shortest period/);
    await refuse({ interval: { days: 2 }, gracePeriodDays: 2, renewBeforeDays: 1 }, /gracePeriodDays/);
    await refuse({ startAt: "2026-02-01T00:00:00Z" }, /startAt: must not be in the past/);
    await refuse({ amount: "0" }, /amount: must be greater than 0/);
    await refuse({ customer: "" }, /customer/);
    expectError(await h.post("/v1/subscriptions", { customer: "c", amount: "10", currency: "NOPE", interval: "week" }), 400, 40005);
  });
});

describe("the schedule of payments", () => {
  it("makes each next payment renewBeforeDays before its period, once, and renews when it is paid", async () => {
    const h = await setup();
    const events: string[] = [];
    const sub = await createSubscription(h, { interval: { days: 10 }, renewBeforeDays: 3, gracePeriodDays: 2 });
    await payPayment(h, sub.openPaymentId!);
    await later(h, 6 * DAY);
    expect((await fetchSubscription(h, sub.id)).openPaymentId).toBeNull();
    await later(h, 1 * DAY);
    const second = (await fetchSubscription(h, sub.id)).openPaymentId!;
    expect(second).toMatch(/^inv_/);
    // Rounds after it make no other payment for that period.
    await later(h, 60);
    await later(h, 60);
    expect((await fetchSubscription(h, sub.id)).openPaymentId).toBe(second);
    const payments = await get(h, "/v1/payments?limit=100");
    expect(payments.body.data.filter((payment: { metadata: { subscriptionId?: string } }) => payment.metadata?.subscriptionId === sub.id)).toHaveLength(2);
    await payPayment(h, second);
    await later(h, 1);
    const renewed = await fetchSubscription(h, sub.id);
    expect(renewed).toMatchObject({ status: "active", openPaymentId: null });
    const log = await get(h, "/v1/events?limit=100");
    for (const event of log.body.data) events.push(event.type);
    expect(events.filter((type) => type.startsWith("subscription."))).toEqual(["subscription.created", "subscription.renewed"]);
  });

  it("past_due after the grace days, active again when paid late", async () => {
    const h = await setup();
    const sub = await createSubscription(h, { interval: "week", gracePeriodDays: 2, renewBeforeDays: 1 });
    await later(h, 2 * DAY - 1);
    expect((await fetchSubscription(h, sub.id)).status).toBe("active");
    await later(h, 1);
    expect((await fetchSubscription(h, sub.id)).status).toBe("past_due");
    await payPayment(h, sub.openPaymentId!);
    await later(h, 1);
    expect(await fetchSubscription(h, sub.id)).toMatchObject({ status: "active", openPaymentId: null });
  });

  it("cancelled when a period is still unpaid as the next begins", async () => {
    const h = await setup();
    const sub = await createSubscription(h, { interval: "week" });
    await later(h, 3 * DAY);
    expect((await fetchSubscription(h, sub.id)).status).toBe("past_due");
    await later(h, 4 * DAY);
    const ended = await fetchSubscription(h, sub.id);
    expect(ended).toMatchObject({ status: "cancelled", cancellationReason: "unpaid", cancelledAt: "2026-03-08T12:00:00.000Z" });
    // Nothing more happens to it.
    await later(h, 30 * DAY);
    expect((await fetchSubscription(h, sub.id)).updatedAt).toBe(ended.updatedAt);
  });

  it("monthly from the 31st: renews on the last day of shorter months and on the 31st after", async () => {
    const h = await setup();
    h.clock.ms = Date.parse("2026-01-31T09:00:00.000Z");
    const sub = await createSubscription(h, { renewBeforeDays: 0, gracePeriodDays: 1 });
    const starts: string[] = [];
    await payPayment(h, sub.openPaymentId!);
    for (const next of ["2026-02-28T09:00:00.000Z", "2026-03-31T09:00:00.000Z", "2026-04-30T09:00:00.000Z", "2026-05-31T09:00:00.000Z"]) {
      h.clock.ms = Date.parse(next);
      await h.router.tick({ mode: "test" });
      const current = await fetchSubscription(h, sub.id);
      starts.push(current.currentPeriodStart!);
      await payPayment(h, current.openPaymentId!);
    }
    expect(starts).toEqual(["2026-02-28T09:00:00.000Z", "2026-03-31T09:00:00.000Z", "2026-04-30T09:00:00.000Z", "2026-05-31T09:00:00.000Z"]);
  });
});

describe("cancel and update", () => {
  it("cancels now: cancelled, and the unpaid payment expired", async () => {
    const h = await setup();
    const sub = await createSubscription(h);
    const res = await h.post(`/v1/subscriptions/${sub.id}/cancel`, {});
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ status: "cancelled", cancellationReason: "requested", cancelledAt: "2026-03-01T12:00:00.000Z" });
    expect((await get(h, `/v1/payments/${sub.openPaymentId}`)).body.status).toBe("EXPIRED");
    expectError(await h.post(`/v1/subscriptions/${sub.id}/cancel`, {}), 409, 40931);
    expectError(await h.post(`/v1/subscriptions/${sub.id}`, { amount: "5" }), 409, 40931);
  });

  it("cancels at period end: active with no further payment, cancelled when the period ends", async () => {
    const h = await setup();
    const sub = await createSubscription(h, { interval: "week" });
    await payPayment(h, sub.openPaymentId!);
    const res = await h.post(`/v1/subscriptions/${sub.id}/cancel`, { atPeriodEnd: true });
    expect(res.body).toMatchObject({ status: "active", cancelAtPeriodEnd: true });
    await later(h, 6 * DAY + 23 * 60);
    expect(await fetchSubscription(h, sub.id)).toMatchObject({ status: "active", openPaymentId: null });
    await later(h, 60);
    expect(await fetchSubscription(h, sub.id)).toMatchObject({ status: "cancelled", cancellationReason: "requested", cancelledAt: "2026-03-08T12:00:00.000Z" });
  });

  it("a new amount applies from the next payment made; the one made keeps its amount", async () => {
    const h = await setup();
    const sub = await createSubscription(h, { interval: "week", renewBeforeDays: 1 });
    const updated = await h.post(`/v1/subscriptions/${sub.id}`, { amount: "12.5", metadata: { plan: "max" } });
    expect(updated.status, updated.text).toBe(200);
    expect(updated.body).toMatchObject({ amount: "12.5", metadata: { plan: "max" } });
    expect((await get(h, `/v1/payments/${sub.openPaymentId}`)).body.amount).toBe("10");
    await payPayment(h, sub.openPaymentId!);
    await later(h, 6 * DAY);
    const next = await fetchSubscription(h, sub.id);
    expect((await get(h, `/v1/payments/${next.openPaymentId}`)).body).toMatchObject({ amount: "12.5", metadata: { plan: "max", subscriptionPeriod: 1 } });
  });
});

describe("GET /v1/subscriptions", () => {
  it("pages newest first and filters by status and customer, in the key's merchant and mode", async () => {
    const h = await setup();
    const a = await createSubscription(h, { customer: "alice" });
    h.clock.advanceMinutes(1);
    const b = await createSubscription(h, { customer: "bob" });
    h.clock.advanceMinutes(1);
    const c = await createSubscription(h, { customer: "alice" });
    await h.post(`/v1/subscriptions/${b.id}/cancel`, {});
    const first = await get(h, "/v1/subscriptions?limit=2");
    expect(first.body.data.map((row: { id: string }) => row.id)).toEqual([c.id, b.id]);
    expect(first.body.hasMore).toBe(true);
    const second = await get(h, `/v1/subscriptions?limit=2&cursor=${first.body.nextCursor}`);
    expect(second.body.data.map((row: { id: string }) => row.id)).toEqual([a.id]);
    expect((await get(h, "/v1/subscriptions?customer=alice")).body.data.map((row: { id: string }) => row.id)).toEqual([c.id, a.id]);
    expect((await get(h, "/v1/subscriptions?status=cancelled")).body.data.map((row: { id: string }) => row.id)).toEqual([b.id]);
    expectError(await get(h, "/v1/subscriptions?status=paused"), 400, 40001);
    // Another merchant and the live mode see none of them.
    expect((await get(h, "/v1/subscriptions", h.otherTestKey)).body.data).toEqual([]);
    expectError(await get(h, `/v1/subscriptions/${a.id}`, h.otherTestKey), 404, 40401);
    expectError(await get(h, `/v1/subscriptions/${a.id}`, h.liveKey), 404, 40401);
    expectError(await h.post(`/v1/subscriptions/${a.id}/cancel`, {}, h.otherTestKey), 404, 40401);
    expectError(await h.post(`/v1/subscriptions/${a.id}`, { amount: "1" }, h.otherTestKey), 404, 40401);
  });

  it("a new payer link replaces the old one", async () => {
    const h = await setup();
    const sub = await createSubscription(h);
    const rotated = await h.post(`/v1/subscriptions/${sub.id}/payer-link`, {});
    expect(rotated.status, rotated.text).toBe(200);
    expect(rotated.body.payerUrl).not.toBe(sub.payerUrl);
    expect((await request(h.app).get(new URL(sub.payerUrl!).pathname)).status).toBe(404);
    expect((await request(h.app).get(new URL(rotated.body.payerUrl).pathname)).status).toBe(200);
  });
});
