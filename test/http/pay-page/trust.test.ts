import QRCode from "qrcode";
import request from "supertest";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DEFAULT_CURRENCIES } from "../../../src/currencies";
import { createPaymentRouter } from "../../../src/index";
import { parseDecimal } from "../../../src/money";
import { evmChain } from "../../../src/evm";
import { setup, simulatedLiveChain, type Harness } from "../../helpers";

/**
 * What makes the hosted page one a payer trusts, through HTTP: its language (Accept-Language,
 * the switch), wallet links in the QR code and behind a button, confirmations as they come, the
 * locked rate, copy buttons, what happens after an over- or underpayment, and the merchant's
 * branding with a CSP that still allows nothing else.
 */

let h: Harness;
afterEach(async () => {
  await h.router.close();
});

const page = (path: string, language?: string) => {
  const call = request(h.app).get(path);
  return language ? call.set("Accept-Language", language) : call;
};

/** Visible text, roughly: tags, style and script dropped. */
const textOf = (markup: string) =>
  markup
    .replace(/<style[\s\S]*?<\/style>/g, "")
    .replace(/<script[\s\S]*?<\/script>/g, "")
    .replace(/<[^>]+>/g, " ")
    .replace(/&nbsp;/g, " ")
    .replace(/&#39;/g, "'")
    .replace(/\s+/g, " ");

async function whitelabel(payCurrency: string, network: string, body: Record<string, unknown> = {}) {
  const res = await h.post("/api/v1/merchants/whitelabel/create", { amount: 25, payCurrency, network, lifeTime: 30, ...body });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as { id: string; address: string; payAmount: number; paymentUrl: string };
}

async function deposit(address: string, amount: number | string, confirmations = 0): Promise<string> {
  const res = await h.post("/api/v1/sandbox/deposit/create", { address, amount, confirmations });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.txHash as string;
}

/** The status JSON's amount still to pay, in the coin's smallest units. */
async function remainingUnits(id: string, decimals: number): Promise<bigint> {
  const status = (await request(h.app).get(`/pay/${id}/status`)).body as { payAmount: string; receivedAmount: string };
  return parseDecimal(status.payAmount, decimals) - parseDecimal(status.receivedAmount, decimals);
}

/** The QR code's SVG paths for `text`, as the page draws them. */
async function qrPathsOf(text: string): Promise<string> {
  const svg = await QRCode.toString(text, { type: "svg", errorCorrectionLevel: "M", margin: 2 });
  return svg.slice(svg.indexOf(">") + 1, svg.lastIndexOf("</svg>"));
}

describe("languages", () => {
  beforeEach(async () => {
    h = await setup();
  });

  it("picks the language of Accept-Language by its q-values, with <html lang>, and English otherwise", async () => {
    const invoice = await whitelabel("USDT", "TRX");
    const cases: Array<[string | undefined, string, string]> = [
      [undefined, "en", "Amount to send"],
      ["es-MX,es;q=0.9,en;q=0.8", "es", "Importe a enviar"],
      ["en;q=0.3, de;q=0.9", "de", "Zu sendender Betrag"],
      ["fr-CA", "fr", "Montant à envoyer"],
      ["pt-BR,pt;q=0.9", "pt", "Valor a enviar"],
      ["ru-RU,ru;q=0.9", "ru", "Сумма к отправке"],
      ["zh-CN,zh;q=0.9", "zh", "发送金额"],
      ["ja-JP, ja;q=0.9, de;q=0.5", "de", "Zu sendender Betrag"], // a language we lack passes to the next
      ["ja", "en", "Amount to send"],
    ];
    for (const [header, language, label] of cases) {
      const res = await page(`/pay/${invoice.id}`, header);
      expect(res.status).toBe(200);
      expect(res.text, String(header)).toContain(`<html lang="${language}">`);
      expect(textOf(res.text), String(header)).toContain(label);
      expect(res.headers.vary).toMatch(/Accept-Language/);
    }
  });

  it("has a language switch of plain links, each language named in itself; ?lang= wins over the header", async () => {
    const invoice = await whitelabel("USDT", "TRX");
    const res = await page(`/pay/${invoice.id}?lang=ru`, "de");
    expect(res.text).toContain('<html lang="ru">');
    expect(textOf(res.text)).toContain("Ожидаем оплату");
    const links = [...res.text.matchAll(/<a href="([^"]+)" lang="(\w+)" hreflang="\w+"( aria-current="true")?>([^<]+)<\/a>/g)].map((m) => [
      m[1],
      m[4],
      Boolean(m[3]),
    ]);
    expect(links).toEqual([
      [`/pay/${invoice.id}?lang=en`, "English", false],
      [`/pay/${invoice.id}?lang=es`, "Español", false],
      [`/pay/${invoice.id}?lang=de`, "Deutsch", false],
      [`/pay/${invoice.id}?lang=fr`, "Français", false],
      [`/pay/${invoice.id}?lang=pt`, "Português", false],
      [`/pay/${invoice.id}?lang=ru`, "Русский", true],
      [`/pay/${invoice.id}?lang=zh`, "中文", false],
    ]);
    // An unknown ?lang= is ignored, not an error.
    expect((await page(`/pay/${invoice.id}?lang=xx`, "fr")).text).toContain('<html lang="fr">');
  });

  it("keeps a language picked on the page through the coin form and its redirect", async () => {
    const hosted = await h.post("/api/v1/merchants/invoice/create", { amount: 25, lifeTime: 30, acceptedCoins: ["USDT"] });
    const id = hosted.body.id as string;
    const choose = await page(`/pay/${id}?lang=es`);
    expect(textOf(choose.text)).toContain("Elige cómo pagar");
    expect(choose.text).toContain(`action="/pay/${id}/method?lang=es"`);
    const chosen = await request(h.app)
      .post(`/pay/${id}/method?lang=es`)
      .set("Sec-Fetch-Site", "same-origin")
      .type("form")
      .send({ coin: "USDT", network: "TRX" });
    expect(chosen.status).toBe(303);
    expect(chosen.headers.location).toBe(`/pay/${id}?lang=es`);
    // A refusal is worded in the payer's language too.
    const foreign = await request(h.app)
      .post(`/pay/${id}/method`)
      .set("Sec-Fetch-Site", "cross-site")
      .set("Accept-Language", "de")
      .type("form")
      .send({ coin: "USDT", network: "TRX" });
    expect(foreign.status).toBe(403);
    expect(textOf(foreign.text)).toContain("Ihre Auswahl wurde nicht von dieser Seite gesendet.");
  });

  it("words the link page, its button and its refusals in the payer's language", async () => {
    const link = await h.post("/v1/payment-links", { amount: "25", acceptedCoins: ["USDT"] });
    const path = new URL(link.body.url as string).pathname;
    const shown = await page(path, "fr");
    expect(textOf(shown.text)).toContain("Continuer vers le paiement");
    expect(shown.text).toContain('<html lang="fr">');
    const started = await request(h.app).post(`${path}?lang=pt`);
    expect(started.status).toBe(303);
    expect(started.headers.location).toMatch(/\/pay\/inv_\w+\?lang=pt$/);
    const missing = await page("/pay/link/plink_doesNotExist0000000000", "zh");
    expect(missing.status).toBe(404);
    expect(textOf(missing.text)).toContain("未找到付款链接");
  });

  it("words the wait of a rate limit in the grammar of the language", async () => {
    await h.router.close();
    h = await setup({ paymentLinks: { perClient: { limit: 1, windowSeconds: 60 } } });
    const link = await h.post("/v1/payment-links", { amount: "25" });
    const path = new URL(link.body.url as string).pathname;
    expect((await request(h.app).post(path)).status).toBe(303);
    const refused = await request(h.app).post(path).set("Accept-Language", "ru");
    expect(refused.status).toBe(429);
    expect(textOf(refused.text)).toContain("Попробуйте ещё раз через 1 минуту.");
  });
});

describe("wallet links, the QR code and what the payer reads", () => {
  beforeEach(async () => {
    h = await setup();
  });

  it("BTC: a BIP21 link behind 'Open in wallet' and inside the QR code, with its accessible name", async () => {
    const invoice = await whitelabel("BTC", "BTC");
    const res = await page(`/pay/${invoice.id}`);
    const units = await remainingUnits(invoice.id, 8);
    const amount = (await request(h.app).get(`/pay/${invoice.id}/status`)).body.payAmount as string;
    const uri = `bitcoin:${invoice.address}?amount=${amount}`;
    expect(parseDecimal(amount, 8)).toBe(units);
    expect(res.text).toContain(`<a class="button" href="${uri}" data-wallet-link>Open in wallet</a>`);
    expect(res.text).toContain(await qrPathsOf(uri));
    expect(res.text).toContain(`role="img" aria-label="QR code to pay ${amount} BTC to ${invoice.address}"`);
  });

  it("ETH on Ethereum: EIP-681 with chain id 1 and the value in wei; labelled Ethereum, not a token", async () => {
    const invoice = await whitelabel("ETH", "ETH");
    const res = await page(`/pay/${invoice.id}`);
    const uri = `ethereum:${invoice.address}@1?value=${await remainingUnits(invoice.id, 18)}`;
    expect(res.text).toContain(`href="${uri}" data-wallet-link`);
    expect(res.text).toContain(await qrPathsOf(uri));
    expect(textOf(res.text)).toContain("Network Ethereum Send only ETH on the Ethereum network");
    expect(res.text).not.toContain("ERC20");
  });

  it("USDT on Ethereum and on BNB Smart Chain: an ERC-20 transfer on the token's mainnet contract", async () => {
    for (const [network, contract, chainId] of [
      ["ETH", "0xdAC17F958D2ee523a2206206994597C13D831ec7", 1],
      ["BSC", "0x55d398326f99059fF775485246999027B3197955", 56],
    ] as const) {
      const invoice = await whitelabel("USDT", network);
      const res = await page(`/pay/${invoice.id}`);
      const uri = `ethereum:${contract}@${chainId}/transfer?address=${invoice.address}&amp;uint256=${await remainingUnits(invoice.id, 6)}`;
      expect(res.text).toContain(`href="${uri}" data-wallet-link`);
      expect(res.text).toContain(await qrPathsOf(uri.replace("&amp;", "&")));
    }
  });

  it("Tron: no wallet link; the QR code is the bare address, named as such", async () => {
    const invoice = await whitelabel("USDT", "TRX");
    const res = await page(`/pay/${invoice.id}`);
    expect(res.text).not.toContain("data-wallet-link");
    expect(res.text).not.toContain("tron:");
    expect(res.text).toContain(await qrPathsOf(invoice.address));
    expect(res.text).toContain(`aria-label="QR code of the deposit address ${invoice.address}"`);
  });

  it("has a copy button for the amount and for the address, hidden until the script shows them", async () => {
    const invoice = await whitelabel("USDT", "TRX");
    const res = await page(`/pay/${invoice.id}`, "de");
    expect(res.text).toContain('<span id="pay-amount">25</span>');
    expect(res.text).toContain(
      '<button type="button" class="secondary" data-copy="pay-amount" data-copied="Kopiert" aria-label="Betrag kopieren" hidden>Kopieren</button>',
    );
    expect(res.text).toContain('data-copy="pay-address" data-copied="Kopiert" aria-label="Adresse kopieren" hidden>Kopieren</button>');
  });

  it("shows the locked rate and when its price was observed", async () => {
    const invoice = await whitelabel("BTC", "BTC", { amountCurrency: "EUR", amount: 120 });
    const stored = await h.router.storage.findInvoice(invoice.id);
    expect(stored?.rate).not.toBeNull();
    const res = await page(`/pay/${invoice.id}`);
    const text = textOf(res.text);
    expect(text).toMatch(/Exchange rate 1 BTC = \d+\.\d{2,8} EUR Locked at the price of \d{4}-\d\d-\d\d \d\d:\d\d UTC/);
    const price = /1 BTC = ([\d.]+) EUR/.exec(text)![1]!;
    // The figure shown is the stored rate (18 decimals) rounded to 8: exact integers both sides.
    const shown = parseDecimal(price, 8) * 10n ** 10n;
    expect(shown - stored!.rate!).toBeLessThanOrEqual(5n * 10n ** 9n);
    expect(stored!.rate! - shown).toBeLessThan(5n * 10n ** 9n);
    expect((await request(h.app).get(`/pay/${invoice.id}/status`)).body).not.toHaveProperty("rate");
  });

  it("counts confirmations as they come: 0 of 19, then 7 of 19, in the page and the status JSON", async () => {
    const invoice = await whitelabel("USDT", "TRX");
    const tx = await deposit(invoice.address, 25);
    let res = await page(`/pay/${invoice.id}`);
    expect(textOf(res.text)).toContain("Payment detected.");
    expect(res.text).toContain('<p class="meta confirmations" data-confirmations>Confirmations: 0 of 19</p>');
    expect(res.text).toContain('data-confirmations="0"');
    await h.post("/api/v1/sandbox/deposit/confirm", { txHash: tx, confirmations: 7 });
    res = await page(`/pay/${invoice.id}`, "zh");
    expect(res.text).toContain("确认数：7 / 19");
    expect((await request(h.app).get(`/pay/${invoice.id}/status`)).body.confirmations).toEqual({ count: 7, required: 19 });
  });

  it("explains an underpayment and what happens if the time runs out", async () => {
    const invoice = await whitelabel("USDT", "TRX");
    await deposit(invoice.address, 10, 19);
    const text = textOf((await page(`/pay/${invoice.id}`)).text);
    expect(text).toContain("Partially paid. We received 10 USDT of 25 USDT. Send the remaining 15 USDT to the same address before the time runs out.");
    expect(text).toContain("If the time runs out first, the merchant keeps what you sent and this payment is marked incomplete");
    expect(text).toContain("Remaining to send 15 USDT");
  });

  it("explains an overpayment: the order is paid, the difference is with the merchant and not sent back by itself", async () => {
    const invoice = await whitelabel("USDT", "TRX");
    await deposit(invoice.address, 30, 19);
    const res = await page(`/pay/${invoice.id}`, "es");
    expect(textOf(res.text)).toContain("Pago en exceso. Has enviado 5 USDT más del importe a pagar. Tu pedido está pagado");
    expect(res.text).toContain("data-overpaid");
  });
});

describe("wallet links in live mode come from the serving chain", () => {
  const TOKEN = "0x1c7D4B196Cb0C7B01d743Fbc6116a902379C7238";

  it("names the chain id and contract the serving chain watches, and none when it does not say", async () => {
    const chain = simulatedLiveChain();
    h = await setup({ liveChain: chain });
    const create = async () => {
      const res = await h.post("/api/v1/merchants/whitelabel/create", { amount: 25, payCurrency: "USDT", network: "ETH", lifeTime: 30 }, h.liveKey);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body as { id: string; address: string };
    };
    const silent = await create();
    const without = await page(`/pay/${silent.id}`);
    expect(without.text).not.toContain("data-wallet-link"); // not the currency list's mainnet contract
    expect(without.text).toContain(await qrPathsOf(silent.address));

    Object.assign(chain, {
      walletLink: (coin: string, network: string) => (coin === "USDT" && network === "ETH" ? { chainId: 11155111, tokenContract: TOKEN } : null),
    });
    const told = await create();
    const res = await page(`/pay/${told.id}`);
    const uri = `ethereum:${TOKEN}@11155111/transfer?address=${told.address}&amp;uint256=${await remainingUnits(told.id, 6)}`;
    expect(res.text).toContain(`href="${uri}" data-wallet-link`);
  });

  it("evmChain says its configured chain id and each token's contract, and nothing before the chain id is known", () => {
    const hotWallet = `0x${"ab".repeat(32)}`;
    const usdt = { USDT: { address: "0x55d398326f99059fF775485246999027B3197955", decimals: 18 } };
    const bsc = evmChain({ network: "BSC", rpcUrl: "http://127.0.0.1:1", hotWallet, chainId: 56, tokens: usdt });
    expect(bsc.walletLink?.("USDT", "BSC")).toEqual({ chainId: 56, tokenContract: "0x55d398326f99059fF775485246999027B3197955" });
    expect(bsc.walletLink?.("BNB", "BSC")).toEqual({ chainId: 56, native: true });
    expect(bsc.walletLink?.("USDT", "ETH")).toBeNull();
    expect(bsc.walletLink?.("DAI", "BSC")).toBeNull();
    const unchecked = evmChain({ network: "BSC", rpcUrl: "http://127.0.0.1:1", hotWallet, tokens: usdt });
    expect(unchecked.walletLink?.("USDT", "BSC")).toBeNull();
  });
});

describe("branding", () => {
  it("shows the name, the logo and the accent colour, and lets the CSP load the logo's origin only", async () => {
    h = await setup({ payPage: { merchantName: "Café <Olé>", logoUrl: "https://cdn.shop.example/logo.png?v=2", accentColor: "#0A7C66" } });
    const invoice = await whitelabel("USDT", "TRX");
    const res = await page(`/pay/${invoice.id}`);
    expect(res.text).toContain('<img class="logo" src="https://cdn.shop.example/logo.png?v=2" alt="" data-logo><span class="merchant">Café &lt;Olé&gt;</span>');
    expect(res.text).toMatch(/:root\{--accent:#0a7c66;--on-accent:#fff;--accent-text:#[0-9a-f]{6};--accent-bg:#[0-9a-f]{6};--accent-line:#[0-9a-f]{6}\}/);
    expect(res.headers["content-security-policy"]).toContain("img-src 'self' data: https://cdn.shop.example;");
    const link = await h.post("/v1/payment-links", { amount: "5" });
    const linkPage = await page(new URL(link.body.url as string).pathname);
    expect(linkPage.text).toContain("Café &lt;Olé&gt;");
    expect(linkPage.headers["content-security-policy"]).toContain("https://cdn.shop.example");
  });

  it("keeps text in a pale accent colour readable: darkened to 4.5:1, with dark text on its buttons", async () => {
    h = await setup({ payPage: { accentColor: "#ffd60a" } });
    const invoice = await whitelabel("USDT", "TRX");
    const res = await page(`/pay/${invoice.id}`);
    const variables = Object.fromEntries([...res.text.matchAll(/(--[a-z-]+):(#[0-9a-f]{3,6})/g)].slice(-5).map((m) => [m[1], m[2]]));
    expect(variables["--accent"]).toBe("#ffd60a");
    expect(variables["--on-accent"]).toBe("#000");
    expect(contrast(variables["--accent-text"]!, variables["--accent-bg"]!)).toBeGreaterThanOrEqual(4.5);
    expect(contrast(variables["--accent-text"]!, "#ffffff")).toBeGreaterThanOrEqual(4.5);
  });

  it("without branding, the merchant record's name and no other image origin", async () => {
    h = await setup();
    const invoice = await whitelabel("USDT", "TRX");
    const res = await page(`/pay/${invoice.id}`);
    expect(res.text).toContain('<span class="merchant">Shop</span>');
    expect(res.text).not.toContain("data-logo");
    expect(res.headers["content-security-policy"]).toContain("img-src 'self' data:;");
  });

  it("refuses at creation a logo that is not https, a colour not #rrggbb, and an empty name", () => {
    h = { router: { close: async () => {} } } as unknown as Harness;
    const make = (payPage: unknown) => () => createPaymentRouter({ payPage } as never);
    expect(make({ logoUrl: "http://shop.example/logo.png" })).toThrow(/payPage\.logoUrl: must be an absolute https URL/);
    expect(make({ logoUrl: "https://user:pw@shop.example/logo.png" })).toThrow(/payPage\.logoUrl: must not carry a user name or password/);
    expect(make({ logoUrl: "javascript:alert(1)" })).toThrow(/payPage\.logoUrl/);
    for (const colour of ["red", "#fff", "#0a7c66;}body{display:none", "rgb(0,0,0)"])
      expect(make({ accentColor: colour })).toThrow(/payPage\.accentColor: must be a colour as #rrggbb/);
    expect(make({ merchantName: " " })).toThrow(/payPage\.merchantName/);
    expect(make({ logo: "https://shop.example/logo.png" })).toThrow(
      /unknown option\(s\) payPage\.logo; valid options of payPage: merchantName, logoUrl, accentColor/,
    );
  });
});

describe("the currency list's chain ids and token contracts", () => {
  it("refuses a chain id that is not a whole number and an EVM token contract that is not a 0x address", () => {
    h = { router: { close: async () => {} } } as unknown as Harness;
    const withNetwork = (patch: Record<string, unknown>) => () =>
      createPaymentRouter({
        currencies: DEFAULT_CURRENCIES.map((currency) =>
          currency.symbol === "USDT"
            ? { ...currency, networks: currency.networks.map((entry) => (entry.network === "ETH" ? { ...entry, ...patch } : entry)) }
            : currency,
        ),
      });
    expect(withNetwork({ chainId: 0 })).toThrow(/USDT\/ETH: chainId must be a whole number >= 1/);
    expect(withNetwork({ chainId: 1.5 })).toThrow(/chainId/);
    expect(withNetwork({ tokenContract: "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t" })).toThrow(/USDT\/ETH: tokenContract on an EVM network .* must be a 0x address/);
  });
});

/** WCAG contrast of two #rrggbb colours, written out here so the test does not trust the code it checks. */
function contrast(a: string, b: string): number {
  const lum = (hex: string) => {
    const [r, g, bl] = [1, 3, 5].map((i) => {
      const c = Number.parseInt(hex.slice(i, i + 2), 16) / 255;
      return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
    }) as [number, number, number];
    return 0.2126 * r + 0.7152 * g + 0.0722 * bl;
  };
  const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p) as [number, number];
  return (x + 0.05) / (y + 0.05);
}
