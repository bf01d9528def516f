import request from "supertest";
import { afterEach, describe, expect, it } from "vitest";
import type { Harness } from "../helpers";
import { ADDRESS, balances, createPayment, deposit, get, paidPayment } from "../http/v1/support";
import { dashboardHost } from "./host";

/**
 * The payouts, refunds, conversions and payment links pages over HTTP: the approval queue and
 * its decisions (changing what the API then answers, and the balance), the payout form, and who
 * may not act or see.
 */

let h: Harness;
afterEach(async () => h?.router.close());

const page = (path: string, login = "admin") => request(h.app).get(`/admin${path}`).set("x-login", login);
const form = (path: string, fields: Record<string, string>, login = "admin") =>
  request(h.app).post(`/admin${path}`).set("x-login", login).type("form").send(fields);
/** The CSRF token of a page's first form. */
const tokenOf = (html: string) => /name="_csrf" value="([^"]+)"/.exec(html)![1]!;
const ids = (html: string, attribute: string) => [...html.matchAll(new RegExp(`${attribute}="([^"]+)"`, "g"))].map((match) => match[1]!);
const withdrawal = async (id: string, key = h.testKey) => (await get(h, `/v1/withdrawals/${id}`, key)).body as Record<string, unknown>;
const available = async (key = h.testKey) => (await balances(h, key)).USDT!.available;

/** A dashboard host whose merchants' payouts above 50 USDT wait for approval, the first with 99.5 USDT. */
async function heldHost(): Promise<Harness> {
  h = await dashboardHost();
  for (const merchant of [h.merchant, h.other]) await h.router.admin.setPayoutApproval(merchant.id, { above: "50", currency: "USDT" });
  await paidPayment(h, "100");
  return h;
}

/** Asks for a payout through the dashboard's form as `login`; answers the redirect's payout id. */
async function requestPayout(amount: string, login = "admin"): Promise<string> {
  const token = tokenOf((await page(`/m/${h.merchant.id}/payouts`, login)).text);
  const res = await form(`/m/${h.merchant.id}/payouts`, { _csrf: token, mode: "test", coin: "USDT/TRX", amount, address: ADDRESS }, login);
  expect(res.status, res.text).toBe(303);
  const id = /\/payouts\/(po_[A-Za-z0-9]+)\?requested=1$/.exec(res.headers.location as string)![1]!;
  expect(res.headers.location).toBe(`/admin/m/${h.merchant.id}/payouts/${id}?requested=1`);
  return id;
}

describe("payouts in the dashboard", () => {
  it("asks for a payout as the dashboard user, refuses that user's approval (403, the API's message), and sends it once another admin approves", async () => {
    await heldHost();
    const id = await requestPayout("60");
    const shown = await page(`/m/${h.merchant.id}/payouts/${id}?requested=1`);
    expect(shown.text).toContain("Payout requested: it waits for approval.");
    expect(shown.text).toContain("<dd data-requested-by>dashboard:ada@shop.example</dd>");
    expect(shown.text).toContain("<dd data-debited>62 USDT</dd>");
    expect(shown.text).toMatch(/href="https:\/\/tronscan.example\/#\/address\/TCUmA2JEPuSiBFmNGRiVktBZKbLB89JnSq"/);
    expect(await withdrawal(id)).toMatchObject({ status: "AWAITING_APPROVAL", amount: "60", fee: "2", txHash: null });
    expect(await available()).toBe("37.5");

    const token = tokenOf(shown.text);
    const refused = await form(`/m/${h.merchant.id}/payouts/${id}/approve`, { _csrf: token });
    expect(refused.status).toBe(403);
    expect(refused.text).toContain(`Payout ${id} was asked for by dashboard:ada@shop.example; someone else must approve or reject it.`);
    expect((await withdrawal(id)).status).toBe("AWAITING_APPROVAL");

    const limitedToken = tokenOf((await page(`/m/${h.merchant.id}/payouts/${id}`, "limited")).text);
    const approved = await form(`/m/${h.merchant.id}/payouts/${id}/approve`, { _csrf: limitedToken }, "limited");
    expect(approved.status, approved.text).toBe(200);
    expect(approved.text).toContain("Approved: the payout is sent in the next round.");
    expect(approved.text).toContain("<dd data-reviewed-by>dashboard:lee@shop.example</dd>");
    expect((await withdrawal(id)).status).toBe("PROCESSING");
    // A second decision is refused: it was decided once.
    const again = await form(`/m/${h.merchant.id}/payouts/${id}/reject`, { _csrf: limitedToken }, "limited");
    expect(again.status).toBe(409);
    expect((await withdrawal(id)).status).toBe("PROCESSING");
    for (let round = 0; round < 2; round++) {
      h.clock.advanceMinutes(1);
      await h.router.tick();
    }
    const done = await withdrawal(id);
    expect(done).toMatchObject({ status: "COMPLETED" });
    expect(done.txHash).toMatch(/^0x/);
    expect(await available()).toBe("37.5");
    const detail = await page(`/m/${h.merchant.id}/payouts/${id}`);
    expect(ids(detail.text, "data-event")).toEqual(["payout.awaiting_approval", "payout.processing", "payout.completed"]);
    expect(detail.text).toContain(`href="https://tronscan.example/#/transaction/${done.txHash}"`);
    const audit = (await h.router.admin.listAuditLog({ merchantId: h.merchant.id })).entries.filter((entry) => entry.recordId === id);
    expect(audit.map((entry) => [entry.action, entry.actor])).toEqual([["payout.approved", "dashboard:lee@shop.example"]]);
  });

  it("rejects a held payout with a reason, giving back exactly amount and fee, which the API then answers", async () => {
    await heldHost();
    const held = (await h.post("/v1/withdrawals", { currency: "USDT", chain: "TRX", amount: "70.25", address: ADDRESS })).body;
    expect(held.status).toBe("AWAITING_APPROVAL");
    expect(await available()).toBe("27.25"); // 99.5 - 70.25 - 2
    const detail = await page(`/m/${h.merchant.id}/payouts/${held.id}`);
    const rejected = await form(`/m/${h.merchant.id}/payouts/${held.id}/reject`, { _csrf: tokenOf(detail.text), reason: "Unknown <address>" });
    expect(rejected.status, rejected.text).toBe(200);
    expect(rejected.text).toContain("Rejected: 72.25 USDT went back to the balance.");
    expect(rejected.text).toContain("<dd data-reason>Unknown &lt;address&gt;</dd>");
    expect(await withdrawal(held.id)).toMatchObject({ status: "REJECTED", failureReason: "Unknown <address>", txHash: null });
    expect(await available()).toBe("99.5");
    const tooLong = await form(`/m/${h.merchant.id}/payouts/${held.id}/reject`, { _csrf: tokenOf(detail.text), reason: "x".repeat(201) });
    expect(tooLong.status).toBe(400);
    expect(await available()).toBe("99.5");
  });

  it("shows withdrawals and refunds awaiting approval first, counts them on the overview, and decides a held refund on its page", async () => {
    h = await heldHost();
    const paid = await paidPayment(h, "100"); // 199 USDT available
    const small = (await h.post("/v1/withdrawals", { currency: "USDT", chain: "TRX", amount: "10", address: ADDRESS })).body;
    expect(small.status).toBe("PROCESSING");
    h.clock.advanceMinutes(1);
    const heldPayout = (await h.post("/v1/withdrawals", { currency: "USDT", chain: "TRX", amount: "55", address: ADDRESS })).body;
    h.clock.advanceMinutes(1);
    const paymentPage = await page(`/m/${h.merchant.id}/payments/${paid.id}`);
    const refund = await form(`/m/${h.merchant.id}/payments/${paid.id}/refund`, { _csrf: tokenOf(paymentPage.text), amount: "80", address: ADDRESS });
    const refundId = /Refund (po_[A-Za-z0-9]+) of 80 USDT started\./.exec(refund.text)![1]!;
    expect((await get(h, `/v1/refunds/${refundId}`)).body.status).toBe("AWAITING_APPROVAL");

    const listing = await page(`/m/${h.merchant.id}/payouts`);
    expect(listing.status).toBe(200);
    expect(ids(listing.text, "data-held")).toEqual([refundId, heldPayout.id]);
    expect(ids(listing.text, "data-payout")).toEqual([heldPayout.id, small.id]);
    expect(listing.text.indexOf("Awaiting approval")).toBeLessThan(listing.text.indexOf('id="list-title"'));
    const queueOnly = await page(`/m/${h.merchant.id}/payouts?status=AWAITING_APPROVAL`);
    expect(ids(queueOnly.text, "data-payout")).toEqual([heldPayout.id]);
    expect(ids((await page(`/m/${h.merchant.id}/payouts?mode=live`)).text, "data-payout")).toEqual([]);
    expect((await page(`/m/${h.merchant.id}/payouts?status=LOST`)).status).toBe(400);

    const overview = await page(`/m/${h.merchant.id}`);
    expect(overview.text).toContain(
      `<li data-held-count="2"><a href="/admin/m/${h.merchant.id}/payouts#approval-queue">2 payouts awaiting approval</a> (1 of them a refund).</li>`,
    );

    const refunds = await page(`/m/${h.merchant.id}/refunds`);
    expect(ids(refunds.text, "data-refund")).toEqual([refundId]);
    expect(refunds.text).toContain(`href="/admin/m/${h.merchant.id}/payments/${paid.id}"`);
    expect(refunds.text).toContain(`href="/admin/m/${h.merchant.id}/payouts/${refundId}"`);
    expect(ids((await page(`/m/${h.merchant.id}/refunds?paymentId=${paid.id}&mode=test`)).text, "data-refund")).toEqual([refundId]);
    expect(ids((await page(`/m/${h.merchant.id}/refunds?mode=live`)).text, "data-refund")).toEqual([]);

    // The refund was asked for by this admin: another one approves it.
    const refundPage = await page(`/m/${h.merchant.id}/payouts/${refundId}`, "limited");
    expect(refundPage.text).toContain("<dd data-status>AWAITING_APPROVAL</dd>");
    expect(ids(refundPage.text, "data-event")).toEqual(["refund.awaiting_approval"]);
    const approved = await form(`/m/${h.merchant.id}/payouts/${refundId}/approve`, { _csrf: tokenOf(refundPage.text) }, "limited");
    expect(approved.status, approved.text).toBe(200);
    expect((await get(h, `/v1/refunds/${refundId}`)).body.status).toBe("PROCESSING");
    const after = await page(`/m/${h.merchant.id}`);
    expect(after.text).toContain("1 payout awaiting approval</a>.");
  });

  it("pages the withdrawals of both modes with a cursor", async () => {
    h = await dashboardHost();
    await paidPayment(h, "300");
    const made: string[] = [];
    for (let index = 0; index < 26; index++) {
      h.clock.advanceMinutes(1);
      made.push((await h.post("/v1/withdrawals", { currency: "USDT", chain: "TRX", amount: "5", address: ADDRESS })).body.id);
    }
    const first = await page(`/m/${h.merchant.id}/payouts`);
    const next = /href="([^"]+)" rel="next"/.exec(first.text)![1]!.replace(/&amp;/g, "&");
    const second = await request(h.app).get(next).set("x-login", "viewer");
    expect([...ids(first.text, "data-payout"), ...ids(second.text, "data-payout")]).toEqual([...made].reverse());
    expect(second.text).toContain("End of the list.");
    expect(first.text).toContain("Nothing is waiting for approval.");
  });

  it("refuses a viewer's and a tokenless post with 403, changing nothing", async () => {
    await heldHost();
    const held = (await h.post("/v1/withdrawals", { currency: "USDT", chain: "TRX", amount: "60", address: ADDRESS })).body;
    const link = (await h.post("/v1/payment-links", { amount: "25" })).body;
    const viewerPage = await page(`/m/${h.merchant.id}/payouts/${held.id}`, "viewer");
    expect(viewerPage.status).toBe(200);
    expect(viewerPage.text).not.toContain("_csrf");
    expect((await page(`/m/${h.merchant.id}/payouts`, "viewer")).text).toContain("Viewers cannot request payouts.");
    const token = tokenOf((await page(`/m/${h.merchant.id}/payouts`)).text);
    const posts: Array<[string, Record<string, string>]> = [
      [`/m/${h.merchant.id}/payouts/${held.id}/approve`, {}],
      [`/m/${h.merchant.id}/payouts/${held.id}/reject`, { reason: "no" }],
      [`/m/${h.merchant.id}/payouts`, { mode: "test", coin: "USDT/TRX", amount: "10", address: ADDRESS }],
      [`/m/${h.merchant.id}/links/${link.id}/deactivate`, {}],
    ];
    for (const [path, fields] of posts) {
      expect((await form(path, { ...fields, _csrf: token }, "viewer")).status, path).toBe(403);
      const tokenless = await form(path, fields);
      expect(tokenless.status, path).toBe(403);
      expect(tokenless.text).toContain("This form expired or did not come from this dashboard");
    }
    expect((await withdrawal(held.id)).status).toBe("AWAITING_APPROVAL");
    expect((await get(h, "/v1/withdrawals")).body.data).toHaveLength(1);
    expect(await available()).toBe("37.5");
    expect((await get(h, `/v1/payment-links/${link.id}`)).body.active).toBe(true);
  });

  it("answers 404 for another merchant's payout, refund or link, in a URL or a posted id, and changes nothing", async () => {
    await heldHost();
    const otherPaid = await createPayment(h, { amount: "100", currency: "USDT", chain: "TRX" }, h.otherTestKey);
    await deposit(h, otherPaid.address!, "100", 19, h.otherTestKey);
    const theirs = (await h.post("/v1/withdrawals", { currency: "USDT", chain: "TRX", amount: "60", address: ADDRESS }, h.otherTestKey)).body;
    expect(theirs.status).toBe("AWAITING_APPROVAL");
    const theirRefund = (await h.post("/v1/refunds", { paymentId: otherPaid.id, amount: "10", address: ADDRESS }, h.otherTestKey)).body;
    const theirLink = (await h.post("/v1/payment-links", { amount: "25" }, h.otherTestKey)).body;
    const otherBalance = await available(h.otherTestKey);

    for (const path of [
      `/m/${h.merchant.id}/payouts/${theirs.id}`,
      `/m/${h.merchant.id}/payouts/${theirRefund.id}`,
      `/m/${h.other.id}/payouts`,
      `/m/${h.other.id}/refunds`,
      `/m/${h.other.id}/links`,
    ]) {
      const res = await page(path, "limited");
      expect(res.status, path).toBe(404);
      expect(res.text).not.toContain(theirs.id);
      expect(res.text).not.toContain("Other shop");
    }
    expect(ids((await page(`/m/${h.merchant.id}/payouts`, "limited")).text, "data-held")).not.toContain(theirs.id);
    const token = tokenOf((await page(`/m/${h.merchant.id}/payouts`, "limited")).text);
    for (const path of [
      `/m/${h.merchant.id}/payouts/${theirs.id}/approve`,
      `/m/${h.merchant.id}/payouts/${theirs.id}/reject`,
      `/m/${h.other.id}/payouts/${theirs.id}/approve`,
      `/m/${h.merchant.id}/links/${theirLink.id}/deactivate`,
    ]) {
      expect((await form(path, { _csrf: token }, "limited")).status, path).toBe(404);
    }
    expect((await withdrawal(theirs.id, h.otherTestKey)).status).toBe("AWAITING_APPROVAL");
    expect(await available(h.otherTestKey)).toBe(otherBalance);
    expect((await get(h, `/v1/payment-links/${theirLink.id}`, h.otherTestKey)).body.active).toBe(true);
    // The admin who may see every merchant decides it on that merchant's pages only.
    expect((await form(`/m/${h.merchant.id}/payouts/${theirs.id}/approve`, { _csrf: tokenOf((await page(`/m/${h.merchant.id}/payouts`)).text) })).status).toBe(
      404,
    );
    expect((await page(`/m/${h.other.id}/payouts/${theirs.id}`)).status).toBe(200);
  });

  it("lists held payouts of every merchant the user may see at /approvals, longest waiting first, linking to each merchant's page", async () => {
    await heldHost();
    const mine = (await h.post("/v1/withdrawals", { currency: "USDT", chain: "TRX", amount: "60", address: ADDRESS })).body;
    h.clock.advanceMinutes(1);
    const otherPaid = await createPayment(h, { amount: "200", currency: "USDT", chain: "TRX" }, h.otherTestKey);
    await deposit(h, otherPaid.address!, "200", 19, h.otherTestKey);
    const theirs = (await h.post("/v1/withdrawals", { currency: "USDT", chain: "TRX", amount: "70", address: ADDRESS }, h.otherTestKey)).body;
    h.clock.advanceMinutes(1);
    const theirRefund = (await h.post("/v1/refunds", { paymentId: otherPaid.id, amount: "60", address: ADDRESS }, h.otherTestKey)).body;
    expect(theirRefund.status).toBe("AWAITING_APPROVAL");

    for (const login of ["admin", "both"]) {
      const all = await page("/approvals", login);
      expect(all.status).toBe(200);
      expect(ids(all.text, "data-held"), login).toEqual([mine.id, theirs.id, theirRefund.id]);
      expect(all.text).toContain(`href="/admin/m/${h.other.id}/payouts/${theirs.id}"`);
      expect(all.text).toContain("<td>Other shop</td>");
    }
    const limited = await page("/approvals", "limited");
    expect(ids(limited.text, "data-held")).toEqual([mine.id]);
    expect(limited.text).not.toContain("Other shop");
    expect((await page("/approvals", "none")).text).toContain("Nothing is waiting for approval.");
    // Linked from the merchant's queue for users who see more than one merchant.
    expect((await page(`/m/${h.merchant.id}/payouts`, "both")).text).toContain('href="/admin/approvals"');
    expect((await page(`/m/${h.merchant.id}/payouts`, "limited")).text).not.toContain('href="/admin/approvals"');
    // Decided on the merchant's page, it leaves the queue.
    const token = tokenOf((await page(`/m/${h.other.id}/payouts/${theirs.id}`)).text);
    expect((await form(`/m/${h.other.id}/payouts/${theirs.id}/reject`, { _csrf: token })).status).toBe(200);
    expect(ids((await page("/approvals")).text, "data-held")).toEqual([mine.id, theirRefund.id]);
    expect((await request(h.app).get("/admin/approvals")).status).toBe(403);
  });

  it("keeps the payout form's values and shows the API's message when it refuses a payout", async () => {
    await heldHost();
    const token = tokenOf((await page(`/m/${h.merchant.id}/payouts`)).text);
    const tooMuch = await form(`/m/${h.merchant.id}/payouts`, { _csrf: token, mode: "test", coin: "USDT/TRX", amount: "98", address: ADDRESS });
    expect(tooMuch.status).toBe(422);
    expect(tooMuch.text).toContain('class="notice error"');
    expect(tooMuch.text).toContain('value="98"');
    expect(tooMuch.text).toContain('<option value="USDT/TRX" selected>');
    const badCoin = await form(`/m/${h.merchant.id}/payouts`, { _csrf: token, mode: "test", coin: "DOGE/DOGE", amount: "1", address: ADDRESS });
    expect(badCoin.status).toBe(400);
    const badMode = await form(`/m/${h.merchant.id}/payouts`, { _csrf: token, mode: "gold", coin: "USDT/TRX", amount: "10", address: ADDRESS });
    expect(badMode.status).toBe(400);
    expect((await get(h, "/v1/withdrawals")).body.data).toEqual([]);
    expect(await available()).toBe("99.5");
  });
  it("acts once when the same payout or refund form is sent twice (a double click), answering the first result again", async () => {
    await heldHost();
    const shown = (await page(`/m/${h.merchant.id}/payouts`)).text;
    const once = /name="_once" value="([0-9a-f-]{36})"/.exec(shown)![1]!;
    const fields = { _csrf: tokenOf(shown), _once: once, mode: "test", coin: "USDT/TRX", amount: "10", address: ADDRESS };
    const first = await form(`/m/${h.merchant.id}/payouts`, fields);
    const second = await form(`/m/${h.merchant.id}/payouts`, fields);
    expect([first.status, second.status]).toEqual([303, 303]);
    expect(second.headers.location).toBe(first.headers.location);
    expect((await get(h, "/v1/withdrawals")).body.data).toHaveLength(1);
    expect(await available()).toBe("87.5");
    // Each rendering carries a new key: the same form loaded again asks for a new payout.
    const again = (await page(`/m/${h.merchant.id}/payouts`)).text;
    expect(/name="_once" value="([0-9a-f-]{36})"/.exec(again)![1]).not.toBe(once);

    const payment = (await get(h, "/v1/payments")).body.data[0] as { id: string };
    const detail = (await page(`/m/${h.merchant.id}/payments/${payment.id}`)).text;
    const refund = { _csrf: tokenOf(detail), _once: /name="_once" value="([0-9a-f-]{36})"/.exec(detail)![1]!, address: ADDRESS, amount: "5" };
    const refunds = [
      await form(`/m/${h.merchant.id}/payments/${payment.id}/refund`, refund),
      await form(`/m/${h.merchant.id}/payments/${payment.id}/refund`, refund),
    ];
    expect(refunds.map((res) => res.status)).toEqual([200, 200]);
    const started = refunds.map((res) => /Refund (\S+) of 5 USDT started/.exec(res.text)?.[1]);
    expect(started[0]).toBeDefined();
    expect(started[1]).toBe(started[0]);
    expect((await get(h, "/v1/refunds")).body.data).toHaveLength(1);
  });
});

describe("conversions and payment links in the dashboard", () => {
  it("lists conversions of both modes, and payment links with a deactivate button that the API and the link follow", async () => {
    h = await dashboardHost();
    await paidPayment(h, "100");
    const conversion = (await h.post("/v1/conversions", { fromCurrency: "USDT", toCurrency: "TRX", amount: "10" })).body;
    const conversions = await page(`/m/${h.merchant.id}/conversions`, "viewer");
    expect(conversions.status).toBe(200);
    expect(ids(conversions.text, "data-conversion")).toEqual([conversion.id]);
    expect(conversions.text).toContain(`${conversion.toAmount} TRX`);
    expect(ids((await page(`/m/${h.merchant.id}/conversions?mode=live`)).text, "data-conversion")).toEqual([]);

    const first = (await h.post("/v1/payment-links", { amount: "25" })).body;
    h.clock.advanceMinutes(1);
    const live = (await h.post("/v1/payment-links", { amount: "9" }, h.liveKey)).body;
    const links = await page(`/m/${h.merchant.id}/links`);
    expect(ids(links.text, "data-link")).toEqual([live.id, first.id]);
    expect(links.text).toMatch(new RegExp(`data-link="${live.id}">[^]*?<span class="tag live">live</span>`));
    expect(ids((await page(`/m/${h.merchant.id}/links`, "viewer")).text, "data-link")).toEqual([live.id, first.id]);
    expect((await page(`/m/${h.merchant.id}/links`, "viewer")).text).not.toContain("Deactivate");

    const done = await form(`/m/${h.merchant.id}/links/${first.id}/deactivate`, { _csrf: tokenOf(links.text) });
    expect(done.status, done.text).toBe(200);
    expect(done.text).toContain(`Link ${first.id} deactivated`);
    expect((await get(h, `/v1/payment-links/${first.id}`)).body.active).toBe(false);
    expect((await request(h.app).get(`/pay/link/${first.id}`)).status).toBe(410);
    expect((await get(h, `/v1/payment-links/${live.id}`, h.liveKey)).body.active).toBe(true);
    expect(done.text).toMatch(new RegExp(`data-link="${first.id}">[^]*?<td data-link-state>Deactivated</td>`));
    expect((await form(`/m/${h.merchant.id}/links/lnk_doesNotExist/deactivate`, { _csrf: tokenOf(links.text) })).status).toBe(404);
  });
});
