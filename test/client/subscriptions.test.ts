import { describe, expect, expectTypeOf, it } from "vitest";
import { IdempotencyError, InvalidRequestError, PaymentError, type Subscription } from "../../src/index";
import { CARRIER_NAMES, CARRIERS, PUBLIC_URL } from "./carriers";

/**
 * `subscriptions` of the typed client, through both carriers (the HTTP client and the in-process
 * API): create with its payer link, retrieve, list and iterate with filters, update, cancel at
 * period end and now, a new payer link, the refusals as typed errors, and a replayed create.
 */
describe.each(CARRIER_NAMES)("subscriptions through %s", (carrier) => {
  it("creates, reads, lists, updates and cancels a subscription", async () => {
    const { h, api, other } = await CARRIERS[carrier]();
    const created = await api.subscriptions.create({ customer: "cus_7", amount: "20", currency: "USD", interval: { days: 30 }, metadata: { plan: "team" } });
    expectTypeOf(created.payerUrl).toEqualTypeOf<string>();
    // Under the public URL, and the path the router is mounted at (/shop over HTTP).
    const base = created.payerUrl.slice(0, created.payerUrl.indexOf("/pay/subscription/"));
    expect([PUBLIC_URL, `${PUBLIC_URL}/shop`]).toContain(base);
    expect(created).toMatchObject({
      object: "subscription",
      status: "active",
      amount: "20",
      currency: "USD",
      interval: { days: 30 },
      cancelAtPeriodEnd: false,
    });
    expect(created.openPaymentId).toMatch(/^inv_/);
    // Its payment's page is under the public URL too (the background work has no request to build it from).
    expect((await api.payments.retrieve(created.openPaymentId!)).checkoutUrl).toBe(`${base}/pay/${created.openPaymentId}`);

    const retrieved = await api.subscriptions.retrieve(created.id);
    expect("payerUrl" in retrieved).toBe(false);
    h.clock.advanceMinutes(1);
    const second = await api.subscriptions.create({ customer: "cus_8", amount: "5", currency: "USDT", interval: "year", trialDays: 30 });
    expect((await api.subscriptions.list({ customer: "cus_7" })).data.map((row) => row.id)).toEqual([created.id]);
    const all: Subscription[] = [];
    for await (const row of api.subscriptions.list({ limit: 1 })) all.push(row);
    expect(all.map((row) => row.id)).toEqual([second.id, created.id]);

    expect(await api.subscriptions.update(created.id, { amount: "25", payerCanCancel: true })).toMatchObject({ amount: "25", payerCanCancel: true });
    expect(await api.subscriptions.cancel(second.id, { atPeriodEnd: true })).toMatchObject({ status: "active", cancelAtPeriodEnd: true });
    expect(await api.subscriptions.update(second.id, { cancelAtPeriodEnd: false })).toMatchObject({ cancelAtPeriodEnd: false, cancellationReason: null });
    expect(await api.subscriptions.cancel(created.id)).toMatchObject({ status: "cancelled", cancellationReason: "requested" });
    const again = await api.subscriptions.cancel(created.id).catch((error: unknown) => error);
    expect(again).toBeInstanceOf(PaymentError);
    expect(again).toMatchObject({ status: 409, code: 40931 });
    expect((await api.subscriptions.list({ status: "cancelled" })).data.map((row) => row.id)).toEqual([created.id]);

    const fresh = await api.subscriptions.newPayerLink(second.id);
    expect(fresh.payerUrl).toMatch(/\/pay\/subscription\/[A-Za-z0-9]{40}$/);

    // Another merchant's subscription is unknown, exactly like a missing id.
    const foreign = await other.subscriptions.retrieve(second.id).catch((error: unknown) => error);
    expect(foreign).toBeInstanceOf(InvalidRequestError);
    expect(foreign).toMatchObject({ status: 404, code: 40401 });
    await expect(other.subscriptions.cancel(second.id)).rejects.toMatchObject({ code: 40401 });
  });

  it("refuses bad settings as InvalidRequestError, and a replayed create naming newPayerLink", async () => {
    const { api } = await CARRIERS[carrier]();
    await expect(api.subscriptions.create({ customer: "c", amount: "1", currency: "USD", interval: "week", gracePeriodDays: 7 })).rejects.toMatchObject({
      status: 400,
      code: 40001,
    });
    const created = await api.subscriptions.create({ customer: "c", amount: "1", currency: "USD", interval: "week" }, { idempotencyKey: "sub-boot" });
    const replayed = await api.subscriptions
      .create({ customer: "c", amount: "1", currency: "USD", interval: "week" }, { idempotencyKey: "sub-boot" })
      .catch((error: unknown) => error);
    expect(replayed).toBeInstanceOf(IdempotencyError);
    expect((replayed as Error).message).toContain(`subscriptions.newPayerLink("${created.id}")`);
  });
});
