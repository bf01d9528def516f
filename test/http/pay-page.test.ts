import express from "express";
import request from "supertest";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { httpUrlOrNull } from "../../src/core/views/payer";
import { escapeHtml, html, trustedHtml } from "../../src/html/escape";
import { createPaymentRouter } from "../../src/index";
import { setup, type Harness, simulatedLiveChain } from "../helpers";

/**
 * The hosted payment page (/pay/:id), through HTTP only: every state renders, the coin choice
 * works as a plain form post, the status JSON reveals nothing private, and nothing a merchant
 * supplied reaches the page unescaped.
 */

let h: Harness;

beforeEach(async () => {
  h = await setup();
});

afterEach(async () => {
  await h.router.close();
});

const USDT_TRX_CONFIRMATIONS = 19;
const HOSTILE_RETURN_URL = 'https://shop.example/done?x="><script>alert(1)</script>';

async function createHosted(body: Record<string, unknown> = {}, key = h.testKey) {
  const res = await h.post("/api/v1/merchants/invoice/create", { amount: 25, lifeTime: 30, ...body }, key);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as { id: string; paymentUrl: string };
}

async function createWhitelabel(body: Record<string, unknown> = {}) {
  const res = await h.post("/api/v1/merchants/whitelabel/create", { amount: 25, payCurrency: "USDT", network: "TRX", lifeTime: 30, ...body });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as { id: string; address: string; payAmount: number };
}

const page = (id: string) => request(h.app).get(`/pay/${id}`);
const status = (id: string) => request(h.app).get(`/pay/${id}/status`);
/** The page's form post, as a current browser sends it from the page. */
const choose = (id: string, form: Record<string, string>) =>
  request(h.app).post(`/pay/${id}/method`).set("Sec-Fetch-Site", "same-origin").type("form").send(form);
/** The same post with only the headers given (no Sec-Fetch-Site unless among them). */
const chooseWith = (id: string, headers: Record<string, string>) => {
  const req = request(h.app).post(`/pay/${id}/method`);
  for (const [name, value] of Object.entries(headers)) req.set(name, value);
  return req.type("form").send({ coin: "BTC", network: "BTC" });
};

async function deposit(address: string, amount: number, confirmations = 0): Promise<string> {
  const res = await h.post("/api/v1/sandbox/deposit/create", { address, amount, confirmations });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.txHash as string;
}

async function fetchInvoice(id: string) {
  const res = await h.post("/api/v1/merchants/invoice/fetch", { invoiceId: id });
  expect(res.status).toBe(200);
  return res.body as { status: string; address: string | null; cryptoCurrency: { symbol: string } | null; payAmount: number | null };
}

/** The page's visible text, roughly: tags, style and script dropped, entities left as they are. */
function textOf(markup: string): string {
  return markup
    .replace(/<style[\s\S]*?<\/style>/g, "")
    .replace(/<script[\s\S]*?<\/script>/g, "")
    .replace(/<[^>]+>/g, " ")
    .replace(/&nbsp;/g, " ")
    .replace(/\s+/g, " ");
}

describe("hosted invoice: choosing a coin", () => {
  it("lists every accepted coin on each of its networks, as forms that work without JavaScript", async () => {
    const invoice = await createHosted({ acceptedCoins: ["USDT", "BTC"] });
    const res = await page(invoice.id);
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toMatch(/^text\/html/);
    const options = [...res.text.matchAll(/data-option="([^"]+)"/g)].map((match) => match[1]);
    expect(options).toEqual(["USDT/TRX", "USDT/ETH", "USDT/BSC", "BTC/BTC"]);
    expect(res.text).toContain(`<form method="post" action="/pay/${invoice.id}/method">`);
    expect(textOf(res.text)).toContain("Choose how to pay");
    expect(textOf(res.text)).toContain("Order total 25.00 USD");
  });

  it("lists all coins when acceptedCoins is not set", async () => {
    const invoice = await createHosted();
    const res = await page(invoice.id);
    expect([...res.text.matchAll(/data-option="/g)]).toHaveLength(17);
    // The rollups' USDC is named with its network; their own coin is never called a token.
    const text = textOf(res.text);
    expect(text).toContain("USD Coin (USDC) Base network");
    expect(text).toContain("USD Coin (USDC) Arbitrum One network");
    expect(text).toContain("Ethereum (ETH) OP Mainnet network");
    expect(text).toContain("Polygon Ecosystem Token (POL) Polygon PoS network");
    expect(text).toContain("Monero (XMR)");
    expect(text).not.toMatch(/Ethereum \(ETH\) (Base|Arbitrum One|OP Mainnet) \(ERC20\)/);
  });

  it("chooses with a form post: 303 back to the page, which then shows amount, address and QR code", async () => {
    const invoice = await createHosted({ acceptedCoins: ["USDT"] });
    const chosen = await choose(invoice.id, { coin: "USDT", network: "TRX" });
    expect(chosen.status).toBe(303);
    expect(chosen.headers.location).toBe(`/pay/${invoice.id}`);

    const stored = await fetchInvoice(invoice.id);
    expect(stored.cryptoCurrency).toEqual({ symbol: "USDT" });
    const res = await page(invoice.id);
    expect(res.status).toBe(200);
    const text = textOf(res.text);
    expect(text).toContain("Pay with Tether (USDT)");
    expect(text).toContain("Amount to send 25 USDT");
    expect(text).toContain("Tron (TRC20)");
    expect(text).toContain("Waiting for payment");
    expect(res.text).toContain(`data-address>${stored.address}</code>`);
    expect(res.text).toMatch(/<div class="qr" role="img"[^>]*><svg aria-hidden="true"/);
  });

  it("accepts choosing the same method twice and refuses another one with 409", async () => {
    const invoice = await createHosted();
    expect((await choose(invoice.id, { coin: "BTC", network: "BTC" })).status).toBe(303);
    const address = (await fetchInvoice(invoice.id)).address;
    expect((await choose(invoice.id, { coin: "BTC", network: "BTC" })).status).toBe(303);
    expect((await fetchInvoice(invoice.id)).address).toBe(address);

    const other = await choose(invoice.id, { coin: "USDT", network: "TRX" });
    expect(other.status).toBe(409);
    expect(other.headers["content-type"]).toMatch(/^text\/html/);
    expect(textOf(other.text)).toContain("A payment method has already been chosen for this payment.");
    expect(textOf(other.text)).toContain("Pay with Bitcoin (BTC)");
  });

  it("re-renders the choice with 400 for an unknown, unaccepted or malformed coin", async () => {
    const invoice = await createHosted({ acceptedCoins: ["USDT"] });
    const forms: Array<Record<string, string>> = [
      { coin: "DOGE", network: "DOGE" },
      { coin: "BTC", network: "BTC" },
      { coin: "USDT", network: "SOL" },
      { coin: "<b>x</b>" },
      {},
    ];
    for (const form of forms) {
      const res = await choose(invoice.id, form);
      expect(res.status, JSON.stringify(form)).toBe(400);
      expect(res.headers["content-type"]).toMatch(/^text\/html/);
      expect(res.text).toContain('class="notice error" role="alert"');
      expect(res.text).not.toContain("<b>x</b>");
      expect(textOf(res.text)).toContain("Choose how to pay");
    }
    expect((await fetchInvoice(invoice.id)).cryptoCurrency).toBeNull();
  });

  it("shows an expired hosted invoice as expired, and refuses a choice with 409", async () => {
    const invoice = await createHosted();
    h.clock.advanceMinutes(31); // the background loop has not run: the page still knows
    const res = await page(invoice.id);
    expect(textOf(res.text)).toContain("This payment has expired");
    expect(res.text).not.toContain("data-option=");
    const chosen = await choose(invoice.id, { coin: "BTC", network: "BTC" });
    expect(chosen.status).toBe(409);
    expect(textOf(chosen.text)).toContain("This payment is no longer open");
    expect((await fetchInvoice(invoice.id)).cryptoCurrency).toBeNull();
  });

  it.each([
    ["Sec-Fetch-Site: cross-site", { "Sec-Fetch-Site": "cross-site" }],
    ["Sec-Fetch-Site: same-site (a sibling subdomain)", { "Sec-Fetch-Site": "same-site" }],
    ["Sec-Fetch-Site: none", { "Sec-Fetch-Site": "none" }],
    ["a foreign Origin", { Origin: "https://evil.example" }],
    ["Origin: null", { Origin: "null" }],
    ["a malformed Origin", { Origin: "not a url" }],
    ["neither header (a script, not a browser form)", {}],
  ])("refuses a choice with %s: no rate is locked and no address is issued", async (_name, headers) => {
    const invoice = await createHosted();
    const res = await chooseWith(invoice.id, headers);
    expect(res.status).toBe(403);
    expect(res.headers["content-type"]).toMatch(/^text\/html/);
    expect(textOf(res.text)).toContain("Your choice was not sent from this page");
    const after = await fetchInvoice(invoice.id);
    expect(after.cryptoCurrency).toBeNull();
    expect(after.address ?? null).toBeNull();
  });

  it("takes a choice whose Sec-Fetch-Site is same-origin, or, without it, whose Origin is this host", async () => {
    const first = await createHosted();
    // Sec-Fetch-Site decides when both are sent (a browser sends our page's real origin under Referrer-Policy: same-origin).
    expect((await chooseWith(first.id, { "Sec-Fetch-Site": "same-origin", Origin: "null" })).status).toBe(303);
    const second = await createHosted();
    expect((await chooseWith(second.id, { Host: "shop.example", Origin: "http://shop.example" })).status).toBe(303);
    expect((await fetchInvoice(second.id)).cryptoCurrency).toEqual({ symbol: "BTC" });
    const third = await createHosted();
    expect((await chooseWith(third.id, { Host: "shop.example", Origin: "http://other.example" })).status).toBe(403);
  });

  it("answers an oversized form with a 413 page, not JSON", async () => {
    const invoice = await createHosted();
    const res = await choose(invoice.id, { coin: "BTC", network: "BTC", padding: "x".repeat(5000) });
    expect(res.status).toBe(413);
    expect(res.headers["content-type"]).toMatch(/^text\/html/);
    expect(textOf(res.text)).toContain("Choose how to pay");
  });

  it("keeps working in live mode without a chain: the page renders and a choice says payments are unavailable", async () => {
    const withChain = await setup({ liveChain: simulatedLiveChain() });
    const created = await withChain.post("/api/v1/merchants/invoice/create", { amount: 25 }, withChain.liveKey);
    expect(created.status).toBe(200);
    const chainless = createPaymentRouter({
      storage: withChain.router.storage,
      backgroundIntervalMs: false,
      now: withChain.clock.now,
      logger: withChain.logger,
    });
    const app = express().use(chainless);
    try {
      const res = await request(app).get(`/pay/${created.body.id}`);
      expect(res.status).toBe(200);
      expect(res.text).not.toContain("Test mode");
      const chosen = await request(app)
        .post(`/pay/${created.body.id}/method`)
        .set("Sec-Fetch-Site", "same-origin")
        .type("form")
        .send({ coin: "BTC", network: "BTC" });
      expect(chosen.status).toBe(503);
      expect(chosen.headers["content-type"]).toMatch(/^text\/html/);
      expect(textOf(chosen.text)).toContain("cannot be taken right now");
      expect(withChain.logger.lines).toEqual([]);
    } finally {
      await chainless.close();
      await withChain.router.close();
    }
  });
});

describe("payment states", () => {
  it("whitelabel: amount with the fee line when the payer pays the fee", async () => {
    const invoice = await createWhitelabel({ amount: 100, feePaidByPayer: true });
    const text = textOf((await page(invoice.id)).text);
    // 100 USDT grossed up by 1000/995 and rounded up to 6 decimals; 0.5% of that, rounded down.
    expect(text).toContain("Amount to send 100.502513 USDT");
    expect(text).toContain("Includes the 0.5% payment fee of 0.502512 USDT.");
    expect(text).toContain(invoice.address);
  });

  it("has no fee line when the merchant pays the fee", async () => {
    const invoice = await createWhitelabel();
    expect((await page(invoice.id)).text).not.toContain("data-fee");
  });

  it("shows a seen deposit as waiting for confirmations", async () => {
    const invoice = await createWhitelabel();
    await deposit(invoice.address, 25);
    const text = textOf((await page(invoice.id)).text);
    expect(text).toContain("Confirming payment");
    expect(text).toContain("Payment detected.");
    expect(text).toContain("We have seen 25 USDT");
  });

  it("shows an underpayment with what is left to send, counting unconfirmed deposits", async () => {
    const invoice = await createWhitelabel();
    await deposit(invoice.address, 10, USDT_TRX_CONFIRMATIONS);
    let text = textOf((await page(invoice.id)).text);
    expect(text).toContain("Partially paid");
    expect(text).toContain("We received 10 USDT of 25 USDT");
    expect(text).toContain("Remaining to send 15 USDT");

    await deposit(invoice.address, 5);
    text = textOf((await page(invoice.id)).text);
    expect(text).toContain("We received 15 USDT of 25 USDT (waiting for confirmations)");
    expect(text).toContain("Remaining to send 10 USDT");
  });

  it("shows PAID with the return link, and an overpayment", async () => {
    const invoice = await createWhitelabel({ returnUrl: "https://shop.example/thanks?order=42&x=1" });
    await deposit(invoice.address, 26.5, USDT_TRX_CONFIRMATIONS);
    const res = await page(invoice.id);
    const text = textOf(res.text);
    expect(text).toContain("Payment received");
    expect(text).toContain("Received 26.5 USDT");
    expect(text).toContain("You sent 1.5 USDT more than the amount due.");
    expect(res.text).toContain('href="https://shop.example/thanks?order=42&amp;x=1"');
    expect(res.text).not.toMatch(/<main[^>]*data-status-url/); // nothing left to poll for
  });

  it("shows FAILED when the window closes on an underpayment", async () => {
    const invoice = await createWhitelabel();
    await deposit(invoice.address, 10, USDT_TRX_CONFIRMATIONS);
    h.clock.advanceMinutes(31);
    await h.router.tick();
    const text = textOf((await page(invoice.id)).text);
    expect(text).toContain("Payment incomplete");
    expect(text).toContain("We received 10 USDT of the 25 USDT due");
  });

  it("shows an invoice expired through the sandbox", async () => {
    const invoice = await createWhitelabel();
    expect((await h.post("/api/v1/sandbox/invoice/expire", { invoiceId: invoice.id })).status).toBe(200);
    const res = await page(invoice.id);
    expect(textOf(res.text)).toContain("This payment has expired");
    expect(res.text).not.toContain(invoice.address);
  });

  it("answers an unknown invoice with a 404 page that reveals nothing", async () => {
    const res = await page("inv_doesNotExist123");
    expect(res.status).toBe(404);
    expect(res.headers["content-type"]).toMatch(/^text\/html/);
    expect(textOf(res.text)).toContain("Payment not found");
    expect(res.text).not.toContain("inv_doesNotExist123");
    expect((await choose("inv_doesNotExist123", { coin: "BTC", network: "BTC" })).status).toBe(404);
  });

  it("leaves paths that are not invoice ids (such as /pay/link/:id) to the routes after it", async () => {
    h.app.get("/pay/receipt/:id", (req, res) => void res.send(`receipt ${req.params.id}`));
    const link = await request(h.app).get("/pay/receipt/abc");
    expect(link.status).toBe(200);
    expect(link.text).toBe("receipt abc");
    expect(link.headers["content-security-policy"]).toBeUndefined();
    expect((await request(h.app).get("/pay/something")).status).toBe(404);
  });

  it("builds its links from the mount path", async () => {
    await h.router.close();
    h = await setup({ mountPath: "/payments" });
    const invoice = await createHosted();
    expect(new URL(invoice.paymentUrl).pathname).toBe(`/payments/pay/${invoice.id}`);
    const res = await request(h.app).get(`/payments/pay/${invoice.id}`);
    expect(res.text).toContain(`action="/payments/pay/${invoice.id}/method"`);
    expect(res.text).toContain(`data-status-url="/payments/pay/${invoice.id}/status"`);
    const chosen = await request(h.app)
      .post(`/payments/pay/${invoice.id}/method`)
      .set("Sec-Fetch-Site", "same-origin")
      .type("form")
      .send({ coin: "LTC", network: "LTC" });
    expect(chosen.headers.location).toBe(`/payments/pay/${invoice.id}`);
  });
});

describe("safety", () => {
  it("sends a strict CSP whose nonce is on the inline style and script, and no-framing, no referrer to other sites, no-store", async () => {
    const invoice = await createHosted();
    const res = await page(invoice.id);
    const csp = res.headers["content-security-policy"] as string;
    const nonce = /script-src 'nonce-([^']+)'/.exec(csp)?.[1];
    expect(nonce).toBeTruthy();
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("img-src 'self' data:");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain("unsafe-inline");
    expect(res.text).toContain(`<style nonce="${nonce}">`);
    expect(res.text).toContain(`<script nonce="${nonce}">`);
    expect(res.headers["x-frame-options"]).toBe("DENY");
    expect(res.headers["referrer-policy"]).toBe("same-origin");
    expect(res.text).toContain('<meta name="referrer" content="same-origin">');
    expect(res.headers["cache-control"]).toBe("no-store");
    expect(/script-src 'nonce-([^']+)'/.exec((await page(invoice.id)).headers["content-security-policy"] as string)?.[1]).not.toBe(nonce);
    expect(res.text).not.toMatch(/https?:\/\/(?!www\.w3\.org\/2000\/svg)/); // no outside requests
  });

  it("escapes the return URL and never shows metadata", async () => {
    const invoice = await createWhitelabel({
      returnUrl: HOSTILE_RETURN_URL,
      metadata: { orderId: "<img src=x onerror=alert(1)>", note: "secret-note" },
    });
    const before = await page(invoice.id);
    expect(before.text).not.toContain("secret-note");
    expect(before.text).not.toContain("onerror");
    expect(before.text).not.toContain("alert(1)"); // the return link appears only once paid

    await deposit(invoice.address, 25, USDT_TRX_CONFIRMATIONS);
    const paid = await page(invoice.id);
    expect(textOf(paid.text)).toContain("Payment received");
    expect(paid.text).not.toContain('"><script>');
    expect(paid.text).toContain('href="https://shop.example/done?x=&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"');
    expect(paid.text).not.toContain("secret-note");
    expect(paid.text).not.toContain("<img");
  });

  it("escapes the merchant's name", async () => {
    await h.router.close();
    h = await setup();
    const merchant = await h.router.admin.createMerchant({ name: '<script>alert("m")</script>' });
    const key = (await h.router.admin.issueApiKey(merchant.id, { mode: "test" })).key;
    const invoice = await createHosted({}, key);
    const res = await page(invoice.id);
    expect(res.text).not.toContain('<script>alert("m")');
    expect(res.text).toContain("&lt;script&gt;alert(&quot;m&quot;)&lt;/script&gt;");
  });

  it("never links a return URL that is not http(s)", async () => {
    const invoice = await createWhitelabel({ returnUrl: "https://shop.example/ok" });
    await h.router.storage.transaction(async (tx) => {
      const record = (await tx.lockInvoice(invoice.id))!;
      await tx.updateInvoice({ ...record, returnUrl: "javascript:alert(1)" });
    });
    await deposit(invoice.address, 25, USDT_TRX_CONFIRMATIONS);
    const res = await page(invoice.id);
    expect(textOf(res.text)).toContain("Payment received");
    expect(res.text).not.toContain("data-return-link");
    expect(res.text).not.toContain("javascript:");
    expect((await status(invoice.id)).body.returnUrl).toBeNull();
  });
});

describe("public status JSON", () => {
  it("shows only what the payer sees, returnUrl only once PAID", async () => {
    const invoice = await createHosted({ returnUrl: "https://shop.example/thanks", metadata: { orderId: "A-1" } });
    let res = await status(invoice.id);
    expect(res.status).toBe(200);
    expect(res.headers["cache-control"]).toBe("no-store");
    expect(res.body).toEqual({
      status: "PENDING",
      coin: null,
      network: null,
      address: null,
      payAmount: null,
      receivedAmount: null,
      confirmations: null,
      expiresAt: "2026-03-01T12:30:00.000Z",
      returnUrl: null,
    });

    await choose(invoice.id, { coin: "USDT", network: "TRX" });
    const address = (await fetchInvoice(invoice.id)).address!;
    await deposit(address, 10);
    res = await status(invoice.id);
    expect(res.body).toEqual({
      status: "CONFIRMING",
      coin: "USDT",
      network: "TRX",
      address,
      payAmount: "25",
      receivedAmount: "10",
      confirmations: { count: 0, required: USDT_TRX_CONFIRMATIONS },
      expiresAt: "2026-03-01T12:30:00.000Z",
      returnUrl: null,
    });

    await deposit(address, 15, USDT_TRX_CONFIRMATIONS);
    res = await status(invoice.id);
    expect(res.body.status).toBe("CONFIRMING"); // the first deposit still waits
    const txs = (await h.router.storage.listDepositsForInvoice(invoice.id)).map((entry) => entry.txHash);
    for (const txHash of txs) await h.post("/api/v1/sandbox/deposit/confirm", { txHash, confirmations: USDT_TRX_CONFIRMATIONS });
    res = await status(invoice.id);
    expect(res.body.status).toBe("PAID");
    expect(res.body.receivedAmount).toBe("25");
    expect(res.body.returnUrl).toBe("https://shop.example/thanks");
    expect(res.body.confirmations).toBeNull(); // none waits any more
    expect(Object.keys(res.body).sort()).toEqual([
      "address",
      "coin",
      "confirmations",
      "expiresAt",
      "network",
      "payAmount",
      "receivedAmount",
      "returnUrl",
      "status",
    ]);
    const serialized = JSON.stringify(res.body);
    for (const secret of [h.merchant.id, "A-1", invoice.id]) expect(serialized).not.toContain(secret);
  });

  it("answers an unknown id with 404 JSON", async () => {
    const res = await status("inv_unknown");
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: 40401, message: "No payment with this id." });
  });
});

describe("helpers", () => {
  it("escapes every interpolated value unless it is markup built by html", () => {
    expect(escapeHtml(`<a href="x" title='y'>&\`</a>`)).toBe("&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&#96;&lt;/a&gt;");
    const inner = html`<b>${"<i>"}</b>`;
    expect(html`<p>${inner}${["<", html`<br>`]}${null}${false}${3}</p>`.value).toBe("<p><b>&lt;i&gt;</b>&lt;<br>3</p>");
    expect(html`${trustedHtml("<svg/>")}`.value).toBe("<svg/>");
  });

  it("links only absolute http(s) URLs", () => {
    expect(httpUrlOrNull("https://a.example/x")).toBe("https://a.example/x");
    expect(httpUrlOrNull("http://a.example")).toBe("http://a.example");
    for (const bad of ["javascript:alert(1)", "data:text/html,x", "/relative", "ftp://a.example", "not a url"]) expect(httpUrlOrNull(bad)).toBeNull();
    expect(httpUrlOrNull(null)).toBeNull();
  });
});
