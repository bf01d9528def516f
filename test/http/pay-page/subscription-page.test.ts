import request from "supertest";
import { describe, expect, it } from "vitest";
import { setup, type Harness } from "../../helpers";
import { expectError } from "../v1/support";
import { createSubscription, DAY, fetchSubscription, later, payPayment } from "../v1/subscription-support";

/**
 * The payer's page of a subscription over HTTP: the secret link shows it (anything else is our 404
 * page), with the strict CSP of the hosted pages; the payment due links to its hosted page; the
 * cancel form appears only when the merchant allows it, needs its CSRF token, and cancels at the
 * end of the period.
 */

const pathOf = (url: string) => new URL(url).pathname;
const open = (h: Harness, url: string, lang?: string) => request(h.app).get(pathOf(url) + (lang ? `?lang=${lang}` : ""));

/** The cancel form's action and token, read from the page as a browser would. */
function cancelForm(text: string): { action: string; csrf: string } | null {
  const action = /<form method="post" action="([^"]+)">/.exec(text)?.[1];
  const csrf = /name="csrf" value="([^"]+)"/.exec(text)?.[1];
  return action && csrf ? { action: action.replace(/&amp;/g, "&"), csrf } : null;
}

describe("the payer's subscription page", () => {
  it("shows the price, the status, the period and the payment due with its pay button, under the hosted pages' CSP", async () => {
    const h = await setup({ payPage: { merchantName: "Gym & Co" } });
    const sub = await createSubscription(h, {
      amount: "9.5",
      currency: "USDT",
      interval: "month",
      customer: "secret-customer-ref",
      metadata: { internal: "x" },
    });
    const res = await open(h, sub.payerUrl!);
    expect(res.status).toBe(200);
    expect(res.headers["content-security-policy"]).toContain("script-src 'nonce-");
    expect(res.headers["content-security-policy"]).toContain("form-action 'self'");
    expect(res.headers["content-security-policy"]).toContain("frame-ancestors 'none'");
    expect(res.text).toContain("Gym &amp; Co");
    expect(res.text).toContain("9.500000 USDT a month");
    expect(res.text).toContain('data-status="active"');
    expect(res.text).toContain("2026-03-01 to 2026-04-01");
    expect(res.text).toMatch(new RegExp(`<a class="button block" href="[^"]*/pay/${sub.openPaymentId}" data-pay>Pay 9.500000 USDT</a>`));
    // The merchant's own references stay off the payer's page.
    expect(res.text).not.toContain("secret-customer-ref");
    expect(res.text).not.toContain("internal");
    // No cancel form unless the merchant allows it.
    expect(cancelForm(res.text)).toBeNull();
  });

  it("answers a wrong, malformed or rotated link with the 404 page", async () => {
    const h = await setup();
    const sub = await createSubscription(h);
    const token = pathOf(sub.payerUrl!).split("/").pop()!;
    const wrong = `${token.slice(0, -1)}${token.endsWith("a") ? "b" : "a"}`;
    for (const path of [`/pay/subscription/${wrong}`, "/pay/subscription/short", `/pay/subscription/${token}x`]) {
      const res = await request(h.app).get(path);
      expect(res.status, path).toBe(404);
      expect(res.text).toContain("Subscription not found");
    }
    await h.post(`/v1/subscriptions/${sub.id}/payer-link`, {});
    expect((await open(h, sub.payerUrl!)).status).toBe(404);
  });

  it("speaks the payer's language", async () => {
    const h = await setup();
    const sub = await createSubscription(h, { interval: { days: 10 } });
    const de = await open(h, sub.payerUrl!, "de");
    expect(de.text).toContain("10.000000 USDT alle 10 Tage");
    expect(de.text).toContain('<html lang="de">');
    const zh = await request(h.app).get(pathOf(sub.payerUrl!)).set("Accept-Language", "zh-CN");
    expect(zh.text).toContain("订阅");
  });

  it("lists paid periods and shows nothing due once paid", async () => {
    const h = await setup();
    const sub = await createSubscription(h, { interval: "week" });
    await payPayment(h, sub.openPaymentId!);
    await later(h, 1);
    const res = await open(h, sub.payerUrl!);
    expect(res.text).toContain("data-nothing-due");
    expect(res.text).toMatch(/<dt data-period="0">Paid<\/dt>/);
  });

  it("cancels at period end with the form's CSRF token, and refuses a post without it", async () => {
    const h = await setup();
    const sub = await createSubscription(h, { interval: "week", payerCanCancel: true });
    await payPayment(h, sub.openPaymentId!);
    const page = await open(h, sub.payerUrl!, "fr");
    const form = cancelForm(page.text)!;
    expect(form.action).toBe(`${pathOf(sub.payerUrl!)}/cancel?lang=fr`);

    const forged = await request(h.app)
      .post(`${pathOf(sub.payerUrl!)}/cancel`)
      .type("form")
      .send({ csrf: "1.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA" });
    expect(forged.status).toBe(403);
    expect((await fetchSubscription(h, sub.id)).cancelAtPeriodEnd).toBe(false);
    const none = await request(h.app)
      .post(`${pathOf(sub.payerUrl!)}/cancel`)
      .type("form")
      .send("");
    expect(none.status).toBe(403);

    const done = await request(h.app).post(form.action).type("form").send({ csrf: form.csrf });
    expect(done.status).toBe(303);
    expect(done.headers.location).toBe(`${pathOf(sub.payerUrl!)}?lang=fr`);
    expect(await fetchSubscription(h, sub.id)).toMatchObject({ status: "active", cancelAtPeriodEnd: true, cancellationReason: "payer" });
    const after = await open(h, sub.payerUrl!, "fr");
    expect(after.text).toContain("Se termine le 2026-03-08");
    expect(cancelForm(after.text)).toBeNull();
    await later(h, 7 * DAY);
    expect(await fetchSubscription(h, sub.id)).toMatchObject({ status: "cancelled", cancellationReason: "payer" });
  });

  it("refuses the cancel when the merchant turned it off after the page was shown (42221 on the page)", async () => {
    const h = await setup();
    const sub = await createSubscription(h, { payerCanCancel: true });
    const form = cancelForm((await open(h, sub.payerUrl!)).text)!;
    await h.post(`/v1/subscriptions/${sub.id}`, { payerCanCancel: false });
    const refused = await request(h.app).post(form.action).type("form").send({ csrf: form.csrf });
    expect(refused.status).toBe(422);
    expect(refused.text).toContain("cannot be cancelled here");
    expect((await fetchSubscription(h, sub.id)).cancelAtPeriodEnd).toBe(false);
  });

  it("a token from another hour past the form's lifetime is refused", async () => {
    const h = await setup();
    const sub = await createSubscription(h, { payerCanCancel: true, interval: "month" });
    const form = cancelForm((await open(h, sub.payerUrl!)).text)!;
    h.clock.advanceMinutes(12 * 60);
    expect((await request(h.app).post(form.action).type("form").send({ csrf: form.csrf })).status).toBe(403);
    h.clock.advanceMinutes(-60);
    expect((await request(h.app).post(form.action).type("form").send({ csrf: form.csrf })).status).toBe(303);
  });

  it("a cancelled subscription shows that it ended and offers nothing", async () => {
    const h = await setup();
    const sub = await createSubscription(h, { payerCanCancel: true });
    await h.post(`/v1/subscriptions/${sub.id}/cancel`, {});
    const res = await open(h, sub.payerUrl!);
    expect(res.text).toContain('data-status="cancelled"');
    expect(res.text).toContain("This subscription has ended");
    expect(res.text).not.toContain("data-pay");
    expect(cancelForm(res.text)).toBeNull();
    expectError(await h.post(`/v1/subscriptions/${sub.id}/cancel`, { atPeriodEnd: true }), 409, 40931);
  });
});
