import request from "supertest";
import { describe, expect, it } from "vitest";
import { setup, type Harness, simulatedLiveChain } from "../helpers";
import { expectError, get, scopeOf, walk } from "./support";

/**
 * /v1/payment-links (create, get, list, deactivate) and the public visit URL, which creates a
 * fresh hosted invoice per visit and sends the payer to its page with a 303.
 */

async function createLink(h: Harness, body: Record<string, unknown> = {}, key?: string) {
  const res = await h.post("/v1/payment-links", { amount: "25", ...body }, key);
  expect(res.status, res.text).toBe(200);
  return res.body as { id: string; url: string; active: boolean; [field: string]: unknown };
}

/** Visits a link's public URL (no key) without following the redirect. */
const visit = (h: Harness, url: string) => request(h.app).get(new URL(url).pathname);

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
    const res = await visit(h, link.url);
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
      expect(await h.router.storage.listPaymentLinks(scopeOf(h), { limit: 10 })).toEqual([]);
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

describe("visiting a payment link", () => {
  it("creates a fresh hosted invoice on each visit and redirects to its page with 303", async () => {
    const h = await setup();
    const link = await createLink(h, { amount: "25", acceptedCoins: ["BTC", "USDT"], metadata: { orderId: "tier-gold" }, lifeTime: 60 });
    const first = await visit(h, link.url);
    const second = await visit(h, link.url);
    for (const res of [first, second]) {
      expect(res.status).toBe(303);
      expect(res.headers["cache-control"]).toBe("no-store");
    }
    const ids = [invoiceIdOf(first.headers.location), invoiceIdOf(second.headers.location)];
    expect(ids[0]).not.toBe(ids[1]);

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

  it("answers 410 in plain text once the link is deactivated, and keeps the invoices it made", async () => {
    const h = await setup();
    const link = await createLink(h);
    const before = invoiceIdOf((await visit(h, link.url)).headers.location);

    h.clock.advanceMinutes(1);
    const deactivated = await h.post(`/v1/payment-links/${link.id}/deactivate`, {});
    expect(deactivated.status, deactivated.text).toBe(200);
    expect(deactivated.body).toMatchObject({ id: link.id, active: false, updatedAt: new Date(h.clock.ms).toISOString() });
    // Deactivating again changes nothing.
    const again = await h.post(`/v1/payment-links/${link.id}/deactivate`);
    expect(again.status).toBe(200);
    expect(portless(again.body)).toEqual(portless(deactivated.body));
    expect((await get(h, `/v1/payment-links/${link.id}`)).body.active).toBe(false);

    const gone = await visit(h, link.url);
    expect(gone.status).toBe(410);
    expect(gone.headers["content-type"]).toMatch(/^text\/plain/);
    expect(gone.text).toMatch(/no longer active/);
    expect((await get(h, `/v1/payments/${before}`)).status).toBe(200);
    expect((await get(h, "/v1/payments")).body.data).toHaveLength(1);
  });

  it("answers 404 in plain text for an unknown link", async () => {
    const h = await setup();
    const res = await request(h.app).get("/pay/link/plink_doesnotexist");
    expect(res.status).toBe(404);
    expect(res.headers["content-type"]).toMatch(/^text\/plain/);
    expect(res.text).toMatch(/does not exist/);
  });

  it("answers 503 for a live link when no live chain is configured", async () => {
    const h = await setup();
    const link = await createLink(h, {}, h.liveKey);
    expect(link.livemode).toBe(true);
    const res = await visit(h, link.url);
    expect(res.status).toBe(503);
    expect(res.headers["content-type"]).toMatch(/^text\/plain/);
    expect(res.text).toMatch(/unavailable/);
    expect(await h.router.storage.listInvoices(scopeOf(h, "live"), {}, { limit: 10 })).toEqual([]);
  });

  it("creates a live invoice for a live link when a live chain is configured", async () => {
    const h = await setup({ liveChain: simulatedLiveChain() });
    const link = await createLink(h, {}, h.liveKey);
    const id = invoiceIdOf((await visit(h, link.url)).headers.location);
    expect((await get(h, `/v1/payments/${id}`, h.liveKey)).body).toMatchObject({ livemode: true, metadata: { paymentLinkId: link.id } });
    expectError(await get(h, `/v1/payments/${id}`), 404, 40401);
  });

  it("passes the link's settleCurrency to the invoices it creates", async () => {
    const h = await setup();
    const link = await createLink(h, { settleCurrency: "USDT" });
    const id = invoiceIdOf((await visit(h, link.url)).headers.location);
    expect((await h.router.storage.getInvoice(scopeOf(h), id))?.settleCurrency).toBe("USDT");
  });

  it("refuses to deactivate another merchant's link or an unknown one", async () => {
    const h = await setup();
    const link = await createLink(h);
    expectError(await h.post(`/v1/payment-links/${link.id}/deactivate`, {}, h.otherTestKey), 404, 40401);
    expectError(await h.post("/v1/payment-links/plink_unknown/deactivate", {}), 404, 40401);
    expectError(await h.post(`/v1/payment-links/${link.id}/deactivate`, { reason: "x" }), 400, 40001, /unknown field/);
    expect((await get(h, `/v1/payment-links/${link.id}`)).body.active).toBe(true);
  });
});
