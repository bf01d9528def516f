import express from "express";
import request from "supertest";
import { afterEach, describe, expect, it } from "vitest";
import type { Harness } from "../helpers";
import { createPayment, deposit, get, paidPayment } from "../http/v1/support";
import { dashboardHost } from "./host";

/**
 * The dashboard over HTTP, as the host's users reach it: who may see what, what a viewer and a
 * forged form cannot do, and that its actions change what the API answers.
 */

const REFUND_TO = "TQjw9LfWkygUMPoV5tvokXQX2YLdStctTe";
let h: Harness;
afterEach(async () => h?.router.close());

const page = (path: string, login: string | null = "admin") => {
  const call = request(h.app).get(`/admin${path}`);
  return login ? call.set("x-login", login) : call;
};
const form = (path: string, fields: Record<string, string>, login = "admin") =>
  request(h.app).post(`/admin${path}`).set("x-login", login).type("form").send(fields);
/** The CSRF token of a page's first form. */
const tokenOf = (html: string) => /name="_csrf" value="([^"]+)"/.exec(html)![1]!;

/**
 * The payments search box and a payment's event timeline, shared by the list and refund tests:
 * `paid` (the harness merchant's, paid) is found by its deposit address and transaction hash, an
 * order id finds one payment or lists several, another merchant's payments are never found.
 * Answers `paid`'s page.
 */
async function findsAndShows(paid: Awaited<ReturnType<typeof paidPayment>>) {
  // Search by deposit address finds the payment it was issued for; another merchant's address finds nothing.
  const byAddress = await page(`/m/${h.merchant.id}/payments?q=${paid.address}`);
  expect(byAddress.status).toBe(303);
  expect(byAddress.headers.location).toBe(`/admin/m/${h.merchant.id}/payments/${paid.id}`);
  const theirs = await createPayment(h, { amount: "3", currency: "USDT", chain: "TRX" }, h.otherTestKey);
  const notMine = await page(`/m/${h.merchant.id}/payments?q=${theirs.address}`);
  expect(notMine.status).toBe(200);
  expect(notMine.text).toContain(`No payment ${theirs.address}`);
  // By transaction hash, and by order id: one match opens it, several are listed, another merchant's are not.
  const txHash = (await get(h, `/v1/payments/${paid.id}`)).body.deposits[0].txHash as string;
  expect((await page(`/m/${h.merchant.id}/payments?q=${txHash}`)).headers.location).toBe(`/admin/m/${h.merchant.id}/payments/${paid.id}`);
  const first7 = await createPayment(h, { amount: "7", currency: "USDT", chain: "TRX", metadata: { orderId: "A-7" } });
  expect((await page(`/m/${h.merchant.id}/payments?q=A-7`)).headers.location).toBe(`/admin/m/${h.merchant.id}/payments/${first7.id}`);
  const second7 = await createPayment(h, { amount: "7", currency: "USDT", chain: "TRX", metadata: { orderId: "A-7" } });
  await createPayment(h, { amount: "7", currency: "USDT", chain: "TRX", metadata: { orderId: "A-7" } }, h.otherTestKey);
  const both = await page(`/m/${h.merchant.id}/payments?q=A-7`);
  expect(both.status).toBe(200);
  expect(both.text).toContain("Payments matching A-7");
  expect([...both.text.matchAll(/data-payment="([^"]+)"/g)].map((match) => match[1]).sort()).toEqual([first7.id, second7.id].sort());
  const detail = await page(`/m/${h.merchant.id}/payments/${paid.id}`);
  expect([...detail.text.matchAll(/data-event="([^"]+)"/g)].map((match) => match[1])).toEqual([
    "payment.created",
    "payment.confirming",
    "payment.confirmed",
    "payment.completed",
  ]);
  return detail;
}

describe("merchant dashboard", () => {
  it("answers 403 when authorize says no one is signed in, and sets its security headers", async () => {
    h = await dashboardHost();
    const refused = await page(`/m/${h.merchant.id}`, null);
    expect(refused.status).toBe(403);
    expect(refused.text).toContain("You are not allowed to use this dashboard.");
    expect(refused.text).not.toContain(h.merchant.name);
    const ok = await page(`/m/${h.merchant.id}`);
    expect(ok.status).toBe(200);
    const csp = ok.headers["content-security-policy"] as string;
    expect(csp).toMatch(/script-src 'nonce-[A-Za-z0-9+/=]+'/);
    expect(csp).not.toContain("unsafe-inline");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(ok.headers["x-frame-options"]).toBe("DENY");
    expect(ok.headers["cache-control"]).toBe("no-store");
  });

  it("refuses bad options when created, and answers 500 when authorize answers a malformed user", async () => {
    h = await dashboardHost();
    expect(() => h.router.dashboard({} as never)).toThrow(/authorize must be a function/);
    expect(() => h.router.dashboard({ authorize: () => null, csrfSecret: "short" })).toThrow(/at least 32 bytes/);
    expect(() => h.router.dashboard({ authorize: () => null, explorers: { ETH: { tx: "https://etherscan.io/tx/" } } })).toThrow(/explorers\.ETH\.tx/);
    const app = express();
    app.use("/bad", h.router.dashboard({ authorize: () => ({ user: "x", role: "owner", merchants: "all" }) as never }));
    const res = await request(app).get(`/bad/m/${h.merchant.id}`);
    expect(res.status).toBe(500);
    expect(res.text).not.toContain(h.merchant.name);
    expect(h.logger.lines.some((line) => line.includes("authorize must answer null or"))).toBe(true);
  });

  it("shows balances of both modes, recent payments marked by mode, and escapes every value", async () => {
    h = await dashboardHost();
    await paidPayment(h, "100");
    await createPayment(h, { amount: "5", currency: "USDT", chain: "TRX", metadata: { orderId: "<script>alert(1)</script>" } });
    const overview = await page(`/m/${h.merchant.id}`);
    expect(overview.status).toBe(200);
    expect(overview.text).toMatch(/data-balance="test:USDT"><td>USDT<\/td><td><span class="tag test">test<\/span><\/td><td class="num">99.5<\/td>/);
    expect(overview.text).toContain('data-balance="live:USDT"');
    expect(overview.text).toContain("Recent payments");
    expect(overview.text).toMatch(/<span class="tag test">test<\/span>[\s\S]*PAID/);
    expect(overview.text).not.toContain("<script>alert(1)</script>");
    expect(overview.text).toContain("<td>&lt;script&gt;alert(1)&lt;/script&gt;</td>");
  });

  it("lists, filters by mode and status, pages with a cursor, finds by id, and shows a payment's deposits with explorer links", async () => {
    h = await dashboardHost();
    const paid = await paidPayment(h, "100");
    const ids = [paid.id];
    for (let index = 0; index < 3; index++) {
      h.clock.advanceMinutes(1);
      ids.push((await createPayment(h, { amount: String(10 + index), currency: "USDT", chain: "TRX" })).id);
    }
    const all = await page(`/m/${h.merchant.id}/payments`);
    expect(all.status).toBe(200);
    const listed = [...all.text.matchAll(/data-payment="([^"]+)"/g)].map((match) => match[1]);
    expect(listed).toEqual([...ids].reverse());
    const paidOnly = await page(`/m/${h.merchant.id}/payments?status=PAID&mode=test`);
    expect([...paidOnly.text.matchAll(/data-payment="([^"]+)"/g)].map((match) => match[1])).toEqual([paid.id]);
    const liveOnly = await page(`/m/${h.merchant.id}/payments?mode=live`);
    expect(liveOnly.text).toContain("No payments.");

    // Cursor pagination through the page's own "Older payments" link (25 a page: make 26).
    for (let index = 0; index < 22; index++) await createPayment(h, { amount: "1", currency: "USDT", chain: "TRX" });
    const first = await page(`/m/${h.merchant.id}/payments`);
    const next = /href="([^"]+)" rel="next"/.exec(first.text)![1]!.replace(/&amp;/g, "&");
    const second = await request(h.app).get(next).set("x-login", "admin");
    const seen = [...first.text.matchAll(/data-payment="([^"]+)"/g), ...second.text.matchAll(/data-payment="([^"]+)"/g)].map((match) => match[1]);
    expect(seen).toHaveLength(26);
    expect(new Set(seen).size).toBe(26);
    expect(second.text).toContain("End of the list.");

    const found = await page(`/m/${h.merchant.id}/payments?q=${paid.id}`);
    expect(found.status).toBe(303);
    expect(found.headers.location).toBe(`/admin/m/${h.merchant.id}/payments/${paid.id}`);
    const detail = await findsAndShows(paid);
    expect(detail.status).toBe(200);
    expect(detail.text).toContain("<dd data-status>PAID</dd>");
    expect(detail.text).toMatch(/href="https:\/\/tronscan.example\/#\/transaction\/[^"]+"/);
    expect(detail.text).toMatch(/<td class="num">19<\/td>/);
    const bad = await page(`/m/${h.merchant.id}/payments?status=BOGUS`);
    expect(bad.status).toBe(400);
    expect(bad.text).toContain("status: must be one of");
  });

  it("never shows a limited user another merchant: pages, payments and forms answer 404", async () => {
    h = await dashboardHost();
    const theirs = await createPayment(h, { amount: "10", currency: "USDT", chain: "TRX" }, h.otherTestKey);
    const mine = await page(`/m/${h.merchant.id}`, "limited");
    expect(mine.status).toBe(200);
    expect(mine.text).not.toContain("Other shop");
    for (const path of [
      `/m/${h.other.id}`,
      `/m/${h.other.id}/payments`,
      `/m/${h.other.id}/keys`,
      `/m/${h.other.id}/payments/${theirs.id}`,
      `/m/${h.merchant.id}/payments/${theirs.id}`,
    ]) {
      const res = await page(path, "limited");
      expect(res.status, path).toBe(404);
      expect(res.text).not.toContain(theirs.id);
      expect(res.text).not.toContain("Other shop");
    }
    // Revoking the other merchant's key through this merchant's form: unknown, nothing revoked.
    const otherKey = (await h.router.admin.listApiKeys(h.other.id))[0]!;
    const token = tokenOf((await page(`/m/${h.merchant.id}/keys`, "limited")).text);
    expect((await form(`/m/${h.merchant.id}/keys/${otherKey.id}/revoke`, { _csrf: token }, "limited")).status).toBe(404);
    expect((await form(`/m/${h.other.id}/keys/${otherKey.id}/revoke`, { _csrf: token }, "limited")).status).toBe(404);
    expect((await get(h, "/v1/balances", h.otherTestKey)).status).toBe(200);
    // The admin with "all" sees both.
    expect((await page(`/m/${h.other.id}/payments/${theirs.id}`)).status).toBe(200);
  });

  it("starts a user at their first merchant, switches only among their merchants, and lets an 'all' user pick from every merchant or open one by id", async () => {
    h = await dashboardHost();
    const start = await page("/", "both");
    expect(start.status).toBe(303);
    expect(start.headers.location).toBe(`/admin/m/${h.other.id}`);
    const overview = await page(`/m/${h.merchant.id}`, "both");
    const options = [...overview.text.matchAll(/<option value="([^"]+)"( selected)?>([^<]+)<\/option>/g)].map((match) => [
      match[1],
      match[3],
      Boolean(match[2]),
    ]);
    expect(options).toEqual([
      [h.other.id, "Other shop", false],
      [h.merchant.id, "Shop", true],
    ]);
    expect((await page(`/switch?merchant=${h.other.id}`, "both")).headers.location).toBe(`/admin/m/${h.other.id}`);
    expect((await page(`/m/${h.merchant.id}`, "limited")).text).not.toContain('<select id="merchant-switch"');
    const none = await page("/", "none");
    expect(none.status).toBe(200);
    expect(none.text).toContain("You have no merchant to see.");
    expect((await page(`/m/${h.merchant.id}`, "none")).status).toBe(404);
    const all = await page("/");
    expect(all.text).toContain('action="/admin/switch"');
    // A user who may see every merchant picks from all of them while the list is short.
    const allOverview = await page(`/m/${h.merchant.id}`);
    expect(
      [...allOverview.text.matchAll(/<option value="([^"]+)"( selected)?>([^<]+)<\/option>/g)].map((match) => [match[1], match[3], Boolean(match[2])]),
    ).toEqual([
      [h.other.id, "Other shop", false],
      [h.merchant.id, "Shop", true],
    ]);
    const opened = await page(`/switch?merchant=${encodeURIComponent(h.merchant.id)}`);
    expect(opened.headers.location).toBe(`/admin/m/${h.merchant.id}`);
    expect((await page("/m/mch_doesNotExist")).status).toBe(404);
  });

  it("refuses a viewer's actions with 403 and changes nothing", async () => {
    h = await dashboardHost();
    const paid = await paidPayment(h, "100");
    const viewerPage = await page(`/m/${h.merchant.id}/payments/${paid.id}`, "viewer");
    expect(viewerPage.status).toBe(200);
    expect(viewerPage.text).not.toContain("_csrf");
    // Even with an admin's valid token.
    const token = tokenOf((await page(`/m/${h.merchant.id}/keys`)).text);
    const keysBefore = await h.router.admin.listApiKeys(h.merchant.id);
    expect((await form(`/m/${h.merchant.id}/keys`, { _csrf: token, mode: "test" }, "viewer")).status).toBe(403);
    expect((await form(`/m/${h.merchant.id}/keys/${keysBefore[0]!.id}/revoke`, { _csrf: token }, "viewer")).status).toBe(403);
    expect((await form(`/m/${h.merchant.id}/payments/${paid.id}/refund`, { _csrf: token, address: REFUND_TO }, "viewer")).status).toBe(403);
    expect(await h.router.admin.listApiKeys(h.merchant.id)).toEqual(keysBefore);
    expect((await get(h, `/v1/payments/${paid.id}`)).status).toBe(200);
    expect((await get(h, "/v1/balances")).body.data.find((row: { currency: string }) => row.currency === "USDT").available).toBe("99.5");
  });

  it("refuses a form without its CSRF token, or with another user's, and changes nothing", async () => {
    h = await dashboardHost();
    const keysBefore = await h.router.admin.listApiKeys(h.merchant.id);
    const limitedToken = tokenOf((await page(`/m/${h.merchant.id}/keys`, "limited")).text);
    for (const fields of [
      { mode: "test" } as Record<string, string>,
      { mode: "test", _csrf: "" },
      { mode: "test", _csrf: "1.AAAA" },
      { mode: "test", _csrf: limitedToken },
    ]) {
      const res = await form(`/m/${h.merchant.id}/keys`, fields);
      expect(res.status).toBe(403);
      expect(res.text).toContain("This form expired or did not come from this dashboard");
    }
    expect(await h.router.admin.listApiKeys(h.merchant.id)).toEqual(keysBefore);
    // A token expires after 12 hours.
    const token = tokenOf((await page(`/m/${h.merchant.id}/keys`)).text);
    h.clock.advanceMinutes(12 * 60);
    expect((await form(`/m/${h.merchant.id}/keys`, { _csrf: token, mode: "test" })).status).toBe(403);
  });

  it("issues a key shown once that the API then accepts, and revokes it so the API refuses it, both audited under the dashboard user", async () => {
    h = await dashboardHost();
    const token = tokenOf((await page(`/m/${h.merchant.id}/keys`)).text);
    const issued = await form(`/m/${h.merchant.id}/keys`, { _csrf: token, mode: "test" });
    expect(issued.status).toBe(200);
    const key = /data-issued-key>(sk_test_[A-Za-z0-9]+)</.exec(issued.text)![1]!;
    expect((await get(h, "/v1/balances", key)).status).toBe(200);
    const listing = await page(`/m/${h.merchant.id}/keys`);
    expect(listing.text).not.toContain(key);
    const id = (await h.router.admin.listApiKeys(h.merchant.id)).find((entry) => key.startsWith(entry.prefix) && !entry.revokedAt)!.id;
    const revoked = await form(`/m/${h.merchant.id}/keys/${id}/revoke`, { _csrf: token });
    expect(revoked.status).toBe(200);
    expect(revoked.text).toContain("revoked");
    expect((await get(h, "/v1/balances", key)).status).toBe(401);
    expect((await form(`/m/${h.merchant.id}/keys`, { _csrf: token, mode: "gold" })).status).toBe(400);
    // The audit log names the dashboard user for both.
    const audit = (await h.router.admin.listAuditLog({ merchantId: h.merchant.id })).entries.filter((entry) => entry.recordId === id);
    expect(audit.map((entry) => [entry.action, entry.actor]).sort()).toEqual([
      ["api_key.issued", "dashboard:ada@shop.example"],
      ["api_key.revoked", "dashboard:ada@shop.example"],
    ]);
  });

  it("refunds a payment from its page, which the API then lists, and shows a refused refund's reason", async () => {
    h = await dashboardHost();
    await paidPayment(h, "400");
    const paid = await paidPayment(h, "100");
    const detail = await findsAndShows(paid);
    const token = tokenOf(detail.text);
    const done = await form(`/m/${h.merchant.id}/payments/${paid.id}/refund`, { _csrf: token, amount: "30", address: REFUND_TO });
    expect(done.status, done.text).toBe(200);
    const refundId = /Refund (po_[A-Za-z0-9]+) of 30 USDT started\./.exec(done.text)![1]!;
    const fetched = await get(h, `/v1/refunds/${refundId}`);
    expect(fetched.body).toMatchObject({ paymentId: paid.id, amount: "30", address: REFUND_TO });
    // The dashboard user is the refund's requester (who may then not approve it, were it held).
    expect((await h.router.storage.getPayout({ merchantId: h.merchant.id, mode: "test" }, refundId))?.requestedBy).toBe("dashboard:ada@shop.example");
    const tooMuch = await form(`/m/${h.merchant.id}/payments/${paid.id}/refund`, { _csrf: token, amount: "500", address: REFUND_TO });
    expect(tooMuch.status).toBe(400);
    expect(tooMuch.text).toContain('class="notice error"');
    // A pending payment with a deposit seen but unconfirmed has nothing to refund yet.
    const pending = await createPayment(h, { amount: "10", currency: "USDT", chain: "TRX" });
    await deposit(h, pending.address!, "10", 0);
    expect((await page(`/m/${h.merchant.id}/payments/${pending.id}`)).text).toContain("Nothing confirmed to refund.");
  });

  it("lists webhook endpoints and deliveries of both modes, and redelivers for admins only, within the merchant", async () => {
    h = await dashboardHost();
    const receiver = express().post("/hook", (_req, res) => void res.status(204).end());
    const server = receiver.listen(0, "127.0.0.1");
    await new Promise((resolve) => server.once("listening", resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/hook`;
      for (const key of [h.testKey, h.otherTestKey]) expect((await h.post("/v1/webhook-endpoints", { url }, key)).status).toBe(200);
      const paid = await paidPayment(h, "100");
      await h.router.tick();
      const listing = await page(`/m/${h.merchant.id}/webhooks`);
      expect(listing.status).toBe(200);
      expect(listing.text).toContain(url);
      const deliveries = [...listing.text.matchAll(/data-delivery="([^"]+)"/g)].map((match) => match[1]!);
      expect(deliveries.length).toBeGreaterThan(0);
      // The payment's page shows the same deliveries under the events that made them.
      const detail = await page(`/m/${h.merchant.id}/payments/${paid.id}`);
      expect([...detail.text.matchAll(/data-event-delivery="([^"]+)"/g)].map((match) => match[1]).sort()).toEqual([...deliveries].sort());
      expect(detail.text).toContain("succeeded, 1 attempt");
      const id = deliveries[0]!;
      expect((await get(h, `/v1/webhook-deliveries/${id}`)).body.status).toBe("succeeded");
      const token = tokenOf(listing.text);
      expect((await form(`/m/${h.merchant.id}/webhooks/deliveries/${id}/redeliver`, { _csrf: token }, "viewer")).status).toBe(403);
      expect((await get(h, `/v1/webhook-deliveries/${id}`)).body.status).toBe("succeeded");
      const done = await form(`/m/${h.merchant.id}/webhooks/deliveries/${id}/redeliver`, { _csrf: token });
      expect(done.status).toBe(200);
      expect(done.text).toContain("The delivery was queued again.");
      expect((await get(h, `/v1/webhook-deliveries/${id}`)).body.status).toBe("pending");
      // The other merchant's delivery, through this merchant's pages: unknown.
      await createPayment(h, { amount: "5", currency: "USDT", chain: "TRX" }, h.otherTestKey);
      await h.router.tick();
      const otherDeliveries = ((await get(h, "/v1/webhook-deliveries", h.otherTestKey)).body.data as Array<{ id: string }>).map((entry) => entry.id);
      expect(otherDeliveries.length).toBeGreaterThan(0);
      const limitedToken = tokenOf((await page(`/m/${h.merchant.id}/keys`, "limited")).text);
      expect((await form(`/m/${h.merchant.id}/webhooks/deliveries/${otherDeliveries[0]}/redeliver`, { _csrf: limitedToken }, "limited")).status).toBe(404);
      expect((await page(`/m/${h.merchant.id}/webhooks`, "limited")).text).not.toContain(otherDeliveries[0]!);
      expect((await page(`/m/${h.merchant.id}/webhooks?status=nope`)).status).toBe(400);
    } finally {
      server.close();
    }
  });
});
