import request from "supertest";
import { describe, expect, it } from "vitest";
import { setup, type Harness, simulatedLiveChain } from "../../helpers";
import { expectError, get, scopeOf, walk } from "./support";

/**
 * /v1/payment-links (create, get, list, deactivate) and the link's public URL: opening it shows
 * the link's page and creates nothing; the page's form (a POST) creates a fresh hosted invoice
 * and sends the payer to its page with a 303.
 */

async function createLink(h: Harness, body: Record<string, unknown> = {}, key?: string) {
  const res = await h.post("/v1/payment-links", { amount: "25", ...body }, key);
  expect(res.status, res.text).toBe(200);
  return res.body as { id: string; url: string; active: boolean; [field: string]: unknown };
}

/** Opens a link's public URL (no key), as a browser or a crawler does. */
const visit = (h: Harness, url: string) => request(h.app).get(new URL(url).pathname);

/** Submits the link page's form (no key, no fields) without following the redirect. */
const pay = (h: Harness, url: string) => request(h.app).post(new URL(url).pathname).type("form").send("");

/** A link with its URL reduced to the path: supertest serves every request on a new port. */
const portless = ({ url, ...rest }: { url: string }) => ({ ...rest, path: new URL(url).pathname });

/** The invoice id a visit redirected to. */
function invoiceIdOf(location: string | undefined): string {
  const match = /\/pay\/(inv_[A-Za-z0-9]+)$/.exec(location ?? "");
  expect(match, location).not.toBeNull();
  return match![1]!;
}

describe("POST /v1/payment-links", () => {
  it("creates an active link with its public URL and the defaults", async () => {
    const h = await setup();
    const link = await createLink(h, { metadata: { orderId: "tier-gold" } });
    expect(link).toMatchObject({
      object: "payment_link",
      livemode: false,
      active: true,
      amount: "25",
      amountCurrency: "USD",
      acceptedCoins: null,
      feePaidByPayer: false,
      underPaidCover: "0",
      lifeTime: 1440,
      returnUrl: null,
      metadata: { orderId: "tier-gold" },
      settleCurrency: null,
      createdAt: new Date(h.clock.ms).toISOString(),
    });
    expect(link.id).toMatch(/^plink_/);
    expect(link.url).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:\\d+/pay/link/${link.id}$`));
  });

  it("keeps the settings it was given", async () => {
    const h = await setup();
    const link = await createLink(h, {
      amount: "0.5",
      amountCurrency: "eur",
      acceptedCoins: ["btc", "USDT", "BTC"],
      feePaidByPayer: true,
      underPaidCover: "1.5",
      lifeTime: 60,
      returnUrl: "https://shop.example/done",
      settleCurrency: "usdt",
    });
    expect(link).toMatchObject({
      amount: "0.5",
      amountCurrency: "EUR",
      acceptedCoins: ["BTC", "USDT"],
      feePaidByPayer: true,
      underPaidCover: "1.5",
      lifeTime: 60,
      returnUrl: "https://shop.example/done",
      settleCurrency: "USDT",
    });
  });

  it("builds the public URL from the mount path", async () => {
    const h = await setup({ mountPath: "/shop" });
    const link = await createLink(h);
    expect(new URL(link.url).pathname).toBe(`/shop/pay/link/${link.id}`);
    expect((await visit(h, link.url)).text).toContain(`<form method="post" action="/shop/pay/link/${link.id}">`);
    const res = await pay(h, link.url);
    expect(res.status).toBe(303);
    expect(new URL(res.headers.location!).pathname).toMatch(/^\/shop\/pay\/inv_/);
  });

  describe("refusals", () => {
    it.each([
      ["a negative amount", { amount: "-1" }, 40001, /amount/],
      ["an exponent", { amount: "1e5" }, 40001, /amount/],
      ["an empty amount", { amount: "" }, 40001, /amount/],
      ["a JSON number amount", { amount: 25 }, 40001, /amount/],
      ["an amount of zero", { amount: "0" }, 40001, /greater than 0/],
      ["more decimals than the currency has", { amount: "25.001" }, 40001, /more than 2 decimal places/],
      ["an unknown amountCurrency", { amountCurrency: "XYZ" }, 40005, /XYZ/],
      ["an unknown accepted coin", { acceptedCoins: ["BTC", "DOGE"] }, 40005, /DOGE/],
      ["an empty acceptedCoins", { acceptedCoins: [] }, 40001, /acceptedCoins/],
      ["an unknown settleCurrency", { settleCurrency: "DOGE" }, 40005, /DOGE/],
      ["an unknown field", { chain: "TRX" }, 40001, /unknown field "chain"/],
      ["a returnUrl that is not http(s)", { returnUrl: "javascript:alert(1)" }, 40001, /returnUrl/],
    ])("refuses %s", async (_name, change, code, message) => {
      const h = await setup();
      expectError(await h.post("/v1/payment-links", { amount: "25", ...change }), 400, code, message);
      expect(await h.router.storage.listPaymentLinks!(scopeOf(h), { limit: 10 })).toEqual([]);
    });
  });
});

describe("GET /v1/payment-links", () => {
  it("fetches a link and answers 404 for an unknown id, another merchant and the other mode", async () => {
    const h = await setup();
    const link = await createLink(h);
    const fetched = await get(h, `/v1/payment-links/${link.id}`);
    expect(fetched.status).toBe(200);
    expect(portless(fetched.body)).toEqual(portless(link));
    expectError(await get(h, "/v1/payment-links/plink_unknown"), 404, 40401);
    expectError(await get(h, `/v1/payment-links/${link.id}`, h.otherTestKey), 404, 40401);
    expectError(await get(h, `/v1/payment-links/${link.id}`, h.liveKey), 404, 40401);
  });

  it("lists links newest first with a cursor", async () => {
    const h = await setup();
    const made: string[] = [];
    for (let index = 0; index < 5; index++) {
      made.push((await createLink(h, { amount: String(index + 1) })).id);
      if (index % 2 === 0) h.clock.ms += 1;
    }
    const pages = await walk(h, "/v1/payment-links", "limit=2");
    expect(pages.map((page) => page.data.length)).toEqual([2, 2, 1]);
    const seen = pages.flatMap((page) => page.data.map((row) => row.id));
    expect([...seen].sort()).toEqual([...made].sort());
    expect(seen[seen.length - 1]).toBe(made[0]);
    expect((await get(h, "/v1/payment-links", h.otherTestKey)).body.data).toEqual([]);
    expectError(await get(h, "/v1/payment-links?cursor=plink_unknown"), 400, 40001, /cursor/);
    expectError(await get(h, "/v1/payment-links?active=true"), 400, 40001, /unknown field/);
  });
});

describe("opening a payment link", () => {
  it("shows the link's page with the amount, the accepted coins and a form that posts to the link", async () => {
    const h = await setup();
    const link = await createLink(h, { amount: "25", acceptedCoins: ["BTC", "USDT"], metadata: { orderId: "tier-gold", secret: "internal-note" } });
    const res = await visit(h, link.url);
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toMatch(/^text\/html/);
    expect(res.headers["cache-control"]).toBe("no-store");
    expect(res.headers["content-security-policy"]).toMatch(/form-action 'self'/);
    expect(res.text).toContain("<title>Pay 25.00 USD</title>");
    expect(res.text).toContain("Bitcoin (BTC), Tether (USDT)");
    expect(res.text).toContain("Shop"); // the merchant's name
    expect(res.text).toContain("Test mode");
    expect(res.text).toContain(`<form method="post" action="/pay/link/${link.id}">`);
    expect(res.text).toMatch(/<button[^>]*type="submit"[^>]*>Continue to payment<\/button>/);
    expect(res.text).not.toMatch(/tier-gold|internal-note/); // metadata is the merchant's, not the payer's
  });

  it("creates nothing however often it is opened: 100 GETs and HEADs leave no invoice and no event", async () => {
    const h = await setup();
    const link = await createLink(h);
    for (let i = 0; i < 100; i++) expect((await visit(h, link.url)).status).toBe(200);
    expect((await request(h.app).head(new URL(link.url).pathname)).status).toBe(200);
    expect(await h.router.storage.listInvoices(scopeOf(h), {}, { limit: 10 })).toEqual([]);
    expect(await h.router.storage.listEvents(scopeOf(h))).toEqual([]);
    expect((await get(h, "/v1/payments")).body.data).toEqual([]);
  });

  it("escapes the merchant's name on the page", async () => {
    const h = await setup();
    const merchant = await h.router.admin.createMerchant({ name: '<img src=x onerror="alert(1)">' });
    const { key } = await h.router.admin.issueApiKey(merchant.id, { mode: "test" });
    const link = await createLink(h, {}, key);
    const res = await visit(h, link.url);
    expect(res.text).not.toContain("<img src=x");
    expect(res.text).toContain("&lt;img src=x onerror=&quot;alert(1)&quot;&gt;");
  });

  it("answers 404 with our page for an unknown link, to a GET and to a POST", async () => {
    const h = await setup();
    for (const res of [await request(h.app).get("/pay/link/plink_doesnotexist"), await request(h.app).post("/pay/link/plink_doesnotexist")]) {
      expect(res.status).toBe(404);
      expect(res.headers["content-type"]).toMatch(/^text\/html/);
      expect(res.text).toMatch(/does not exist/);
    }
  });
});

describe("paying through a payment link", () => {
  it("creates exactly one fresh hosted invoice per POST and redirects to its page with 303", async () => {
    const h = await setup();
    const link = await createLink(h, { amount: "25", acceptedCoins: ["BTC", "USDT"], metadata: { orderId: "tier-gold" }, lifeTime: 60 });
    const first = await pay(h, link.url);
    expect(first.status).toBe(303);
    expect(first.headers["cache-control"]).toBe("no-store");
    expect(await h.router.storage.listInvoices(scopeOf(h), {}, { limit: 10 })).toHaveLength(1);
    const second = await pay(h, link.url);
    expect(second.status).toBe(303);
    const ids = [invoiceIdOf(first.headers.location), invoiceIdOf(second.headers.location)];
    expect(ids[0]).not.toBe(ids[1]);
    expect((await h.router.storage.listInvoices(scopeOf(h), {}, { limit: 10 })).map((invoice) => invoice.id).sort()).toEqual([...ids].sort());

    for (const [index, id] of ids.entries()) {
      const payment = await get(h, `/v1/payments/${id}`);
      expect(payment.status).toBe(200);
      expect(payment.body).toMatchObject({
        status: "PENDING",
        amount: "25",
        amountCurrency: "USD",
        isWhiteLabel: false,
        address: null,
        metadata: { orderId: "tier-gold", paymentLinkId: link.id },
        expiresAt: new Date(h.clock.ms + 60 * 60_000).toISOString(),
      });
      expect(payment.body.checkoutUrl).toBe([first, second][index]!.headers.location);
      const stored = await h.router.storage.getInvoice(scopeOf(h), id);
      expect(stored).toMatchObject({ paymentLinkId: link.id, acceptedCoins: ["BTC", "USDT"] });
    }
    // The page the payer lands on exists.
    const page = await request(h.app).get(new URL(first.headers.location!).pathname);
    expect(page.status).toBe(200);
  });

  it("creates the invoice from a post sent from another site too: the link is public, so that gives nobody anything", async () => {
    const h = await setup();
    const link = await createLink(h);
    const res = await request(h.app)
      .post(new URL(link.url).pathname)
      .set("Sec-Fetch-Site", "cross-site")
      .set("Origin", "https://elsewhere.example")
      .type("form")
      .send("");
    expect(res.status).toBe(303);
    invoiceIdOf(res.headers.location);
  });

  it.each([
    ["an oversized body", `a=${"x".repeat(4000)}`, 413],
    ["too many fields", Array.from({ length: 20 }, (_, i) => `f${i}=1`).join("&"), 413],
  ])("answers %s with our error page and creates nothing", async (_what, body, status) => {
    const h = await setup();
    const link = await createLink(h);
    const res = await request(h.app).post(new URL(link.url).pathname).type("form").send(body);
    expect(res.status).toBe(status);
    expect(res.headers["content-type"]).toMatch(/^text\/html/);
    expect(res.text).toMatch(/could not be read/);
    expect(await h.router.storage.listInvoices(scopeOf(h), {}, { limit: 10 })).toEqual([]);
  });

  it("answers 410 with our page once the link is deactivated, and keeps the invoices it made", async () => {
    const h = await setup();
    const link = await createLink(h);
    const before = invoiceIdOf((await pay(h, link.url)).headers.location);

    h.clock.advanceMinutes(1);
    const deactivated = await h.post(`/v1/payment-links/${link.id}/deactivate`, {});
    expect(deactivated.status, deactivated.text).toBe(200);
    expect(deactivated.body).toMatchObject({ id: link.id, active: false, updatedAt: new Date(h.clock.ms).toISOString() });
    // Deactivating again changes nothing.
    const again = await h.post(`/v1/payment-links/${link.id}/deactivate`);
    expect(again.status).toBe(200);
    expect(portless(again.body)).toEqual(portless(deactivated.body));
    expect((await get(h, `/v1/payment-links/${link.id}`)).body.active).toBe(false);

    for (const gone of [await visit(h, link.url), await pay(h, link.url)]) {
      expect(gone.status).toBe(410);
      expect(gone.headers["content-type"]).toMatch(/^text\/html/);
      expect(gone.text).toMatch(/no longer active/);
    }
    expect((await get(h, `/v1/payments/${before}`)).status).toBe(200);
    expect((await get(h, "/v1/payments")).body.data).toHaveLength(1);
  });

  it("answers 503 with our page for a live link when no live chain is configured", async () => {
    const h = await setup();
    const link = await createLink(h, {}, h.liveKey);
    expect(link.livemode).toBe(true);
    const res = await pay(h, link.url);
    expect(res.status).toBe(503);
    expect(res.headers["content-type"]).toMatch(/^text\/html/);
    expect(res.text).toMatch(/unavailable/);
    expect(await h.router.storage.listInvoices(scopeOf(h, "live"), {}, { limit: 10 })).toEqual([]);
  });

  it("creates a live invoice for a live link when a live chain is configured", async () => {
    const h = await setup({ liveChain: simulatedLiveChain() });
    const link = await createLink(h, {}, h.liveKey);
    expect((await visit(h, link.url)).text).not.toContain("Test mode");
    const id = invoiceIdOf((await pay(h, link.url)).headers.location);
    expect((await get(h, `/v1/payments/${id}`, h.liveKey)).body).toMatchObject({ livemode: true, metadata: { paymentLinkId: link.id } });
    expectError(await get(h, `/v1/payments/${id}`), 404, 40401);
  });

  it("passes the link's settleCurrency to the invoices it creates", async () => {
    const h = await setup();
    const link = await createLink(h, { settleCurrency: "USDT" });
    const id = invoiceIdOf((await pay(h, link.url)).headers.location);
    expect((await h.router.storage.getInvoice(scopeOf(h), id))?.settleCurrency).toBe("USDT");
  });
});

describe("deactivating a payment link", () => {
  it("refuses to deactivate another merchant's link or an unknown one", async () => {
    const h = await setup();
    const link = await createLink(h);
    expectError(await h.post(`/v1/payment-links/${link.id}/deactivate`, {}, h.otherTestKey), 404, 40401);
    expectError(await h.post("/v1/payment-links/plink_unknown/deactivate", {}), 404, 40401);
    expectError(await h.post(`/v1/payment-links/${link.id}/deactivate`, { reason: "x" }), 400, 40001, /unknown field/);
    expect((await get(h, `/v1/payment-links/${link.id}`)).body.active).toBe(true);
  });
});
