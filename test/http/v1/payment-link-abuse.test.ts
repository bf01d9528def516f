import request from "supertest";
import { describe, expect, it } from "vitest";
import { createPaymentRouter } from "../../../src/index";
import { setup, type Harness } from "../../helpers";
import { scopeOf } from "./support";

/**
 * A payment link's public POST needs no key, so anyone can repeat it: each new invoice sends
 * payment.created to the merchant and may later take a deposit address. These tests flood it
 * through HTTP and check what is left: at most the limits' worth of invoices, a returning
 * visitor sent back to the invoice it has, and refusals as pages with Retry-After.
 */

async function createLink(h: Harness, body: Record<string, unknown> = {}) {
  const res = await h.post("/v1/payment-links", { amount: "25", ...body });
  expect(res.status, res.text).toBe(200);
  return { id: res.body.id as string, path: new URL(res.body.url as string).pathname };
}

/** The link page's form post, from the client `ip` (seen only when the app trusts the proxy's X-Forwarded-For). */
const pay = (h: Harness, path: string, ip?: string) => {
  const req = request(h.app).post(path);
  if (ip) req.set("X-Forwarded-For", ip);
  return req.type("form").send("");
};

async function invoiceCount(h: Harness): Promise<number> {
  return (await h.router.storage.listInvoices(scopeOf(h), {}, { limit: 100 })).length;
}

async function createdEvents(h: Harness): Promise<number> {
  return (await h.router.storage.listEvents(scopeOf(h))).filter((event) => event.type === "payment.created").length;
}

function invoiceIdOf(location: string | undefined): string {
  const match = /\/pay\/(inv_[A-Za-z0-9]+)$/.exec(location ?? "");
  expect(match, location).not.toBeNull();
  return match![1]!;
}

describe("rate limits of POST /pay/link/:id", () => {
  it("lets one client create 10 invoices in 10 minutes by default: 50 posts leave 10 invoices and 10 payment.created, the rest get a 429 page with Retry-After", async () => {
    const h = await setup();
    const link = await createLink(h);
    const answers = [];
    for (let i = 0; i < 50; i++) answers.push(await pay(h, link.path));
    expect(answers.filter((res) => res.status === 303)).toHaveLength(10);
    const refused = answers.filter((res) => res.status === 429);
    expect(refused).toHaveLength(40);
    for (const res of refused) {
      expect(res.headers["content-type"]).toMatch(/^text\/html/);
      expect(res.headers["cache-control"]).toBe("no-store");
      // One creation comes back every 60 s (10 per 600 s): the wait is named in whole seconds.
      expect(res.headers["retry-after"]).toBe("60");
      expect(res.text).toContain("Too many payments started");
      expect(res.text).toContain("try again in 1 minute");
    }
    expect(await invoiceCount(h)).toBe(10);
    expect(await createdEvents(h)).toBe(10);

    // Retry-After is honest: a second early, still refused; once it has passed, one more.
    h.clock.ms += 59_000;
    expect((await pay(h, link.path)).status).toBe(429);
    h.clock.ms += 1_000;
    expect((await pay(h, link.path)).status).toBe(303);
    expect((await pay(h, link.path)).status).toBe(429);
    expect(await invoiceCount(h)).toBe(11);
  });

  it("counts clients by req.ip: behind a trusted proxy each X-Forwarded-For client has its own limit, otherwise the header is ignored", async () => {
    const h = await setup({ paymentLinks: { perClient: { limit: 2, windowSeconds: 60 }, perLink: false } });
    const link = await createLink(h);
    // Not trusted (Express's default): a client cannot escape its limit by inventing addresses.
    const spoofed = [];
    for (let i = 0; i < 5; i++) spoofed.push((await pay(h, link.path, `198.51.100.${i}`)).status);
    expect(spoofed).toEqual([303, 303, 429, 429, 429]);

    h.app.set("trust proxy", "loopback");
    expect((await pay(h, link.path, "203.0.113.7")).status).toBe(303);
    expect((await pay(h, link.path, "203.0.113.7")).status).toBe(303);
    expect((await pay(h, link.path, "203.0.113.7")).status).toBe(429);
    expect((await pay(h, link.path, "203.0.113.8")).status).toBe(303);
    // IPv6: one /64 is one client (a subscriber holds a whole /64).
    expect((await pay(h, link.path, "2001:db8:1:2::1")).status).toBe(303);
    expect((await pay(h, link.path, "2001:db8:1:2:ffff::9")).status).toBe(303);
    expect((await pay(h, link.path, "2001:db8:1:2::abcd")).status).toBe(429);
    expect((await pay(h, link.path, "2001:db8:1:3::1")).status).toBe(303);
    expect(await invoiceCount(h)).toBe(2 + 2 + 1 + 2 + 1);
  });

  it("limits one link across all clients, and leaves the merchant's other links alone", async () => {
    const h = await setup({ paymentLinks: { perClient: false, perLink: { limit: 3, windowSeconds: 300 } } });
    h.app.set("trust proxy", "loopback");
    const busy = await createLink(h);
    const quiet = await createLink(h);
    const statuses = [];
    for (let i = 0; i < 6; i++) statuses.push((await pay(h, busy.path, `192.0.2.${i}`)).status);
    expect(statuses).toEqual([303, 303, 303, 429, 429, 429]);
    const refused = await pay(h, busy.path, "192.0.2.200");
    expect(refused.headers["retry-after"]).toBe("100");
    expect((await pay(h, quiet.path, "192.0.2.0")).status).toBe(303);
    expect(await invoiceCount(h)).toBe(4);
  });

  it("takes its limits from createPaymentRouter({ paymentLinks }) and refuses malformed ones at start-up", async () => {
    for (const paymentLinks of [{ perClient: { limit: 0, windowSeconds: 60 } }, { perLink: { limit: 5 } }, { perClient: true }, { perLinks: false }]) {
      expect(() => createPaymentRouter({ paymentLinks: paymentLinks as never, backgroundIntervalMs: false })).toThrow(/paymentLinks|perLinks/);
    }
  });
});

describe("a returning visitor of a payment link", () => {
  it("is sent back to its open invoice: one invoice and one payment.created however often it posts, and no limit is spent", async () => {
    const h = await setup({ paymentLinks: { perClient: { limit: 1, windowSeconds: 600 } } });
    const link = await createLink(h);
    const visitor = request.agent(h.app);
    const first = await visitor.post(link.path).type("form").send("");
    expect(first.status).toBe(303);
    const id = invoiceIdOf(first.headers.location);
    const cookie = (first.headers["set-cookie"] as unknown as string[]).find((line) => line.startsWith("ecp_link_invoice="));
    expect(cookie).toBeDefined();
    expect(cookie).toContain(`Path=/pay/link/${link.id}`);
    expect(cookie).toContain("HttpOnly");
    expect(cookie).toContain("SameSite=Lax");
    expect(cookie).not.toContain("Secure"); // plain HTTP without an https publicUrl
    expect(cookie).toMatch(/Max-Age=86400/); // the invoice's lifetime (the link's default, 1440 minutes)
    for (let i = 0; i < 20; i++) {
      const again = await visitor.post(link.path).type("form").send("");
      expect(again.status).toBe(303);
      expect(again.headers.location).toBe(first.headers.location);
    }
    expect(await invoiceCount(h)).toBe(1);
    expect(await createdEvents(h)).toBe(1);

    // After choosing a coin the invoice is still open (PENDING): still the same one.
    const chosen = await visitor.post(`/pay/${id}/method`).set("Sec-Fetch-Site", "same-origin").type("form").send({ coin: "BTC", network: "BTC" });
    expect(chosen.status).toBe(303);
    expect(invoiceIdOf((await visitor.post(link.path).type("form").send("")).headers.location)).toBe(id);
  });

  it("gets a new invoice once its invoice is paid, being paid or expired, and never another link's", async () => {
    const h = await setup();
    const link = await createLink(h, { lifeTime: 30 });
    const other = await createLink(h);
    const visitor = request.agent(h.app);
    const post = async (path: string) => invoiceIdOf((await visitor.post(path).type("form").send("")).headers.location);

    const first = await post(link.path);
    // Each link has its own cookie (scoped to its path): the other link makes its own invoice.
    const ofOther = await post(other.path);
    expect(ofOther).not.toBe(first);
    expect(await post(link.path)).toBe(first);
    expect(await post(other.path)).toBe(ofOther);

    // Being paid (a deposit seen: CONFIRMING): a visitor posting again wants another payment.
    await visitor.post(`/pay/${first}/method`).set("Sec-Fetch-Site", "same-origin").type("form").send({ coin: "LTC", network: "LTC" });
    const address = (await h.router.storage.findInvoice(first))!.address!;
    expect((await h.post("/api/v1/sandbox/deposit/create", { address, amount: 0.001 })).status).toBe(200);
    await h.router.tick();
    expect((await h.router.storage.findInvoice(first))!.status).toBe("CONFIRMING");
    const second = await post(link.path);
    expect(second).not.toBe(first);
    expect(await post(link.path)).toBe(second);

    // Expired (its 30 minutes passed, even before the background loop marked it).
    h.clock.advanceMinutes(31);
    const third = await post(link.path);
    expect([first, second]).not.toContain(third);
    expect(await post(link.path)).toBe(third);
  });

  it("ignores a cookie whose signature does not hold, or that names an invoice of another link", async () => {
    const h = await setup();
    const link = await createLink(h);
    const other = await createLink(h);
    const first = await request(h.app).post(link.path).type("form").send("");
    const cookie = (first.headers["set-cookie"] as unknown as string[])[0]!.split(";")[0]!;
    const id = invoiceIdOf(first.headers.location);
    const [, signature] = cookie.split(".");
    const forged = [`ecp_link_invoice=${id}.${signature!.slice(0, -2)}xx`, `ecp_link_invoice=${id}`, "ecp_link_invoice=inv_x.y", "ecp_link_invoice="];
    for (const value of forged) {
      const res = await request(h.app).post(link.path).set("Cookie", value).type("form").send("");
      expect(invoiceIdOf(res.headers.location)).not.toBe(id);
    }
    // The genuine cookie works when sent by hand, but not on another link's URL.
    expect(invoiceIdOf((await request(h.app).post(link.path).set("Cookie", cookie).type("form").send("")).headers.location)).toBe(id);
    expect(invoiceIdOf((await request(h.app).post(other.path).set("Cookie", cookie).type("form").send("")).headers.location)).not.toBe(id);
  });

  it("sets the cookie Secure when publicUrl is https", async () => {
    const h = await setup({ publicUrl: "https://shop.example" });
    const link = await createLink(h);
    const res = await request(h.app).post(link.path).type("form").send("");
    expect(res.status).toBe(303);
    expect((res.headers["set-cookie"] as unknown as string[])[0]).toContain("Secure");
  });
});
