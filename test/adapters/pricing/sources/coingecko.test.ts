import { describe, expect, it } from "vitest";
import { coingecko } from "../../../../src/adapters/pricing/sources/index";
import { ask, byBase, itFailsClearly, sourceError, useProviderServer, type Received, type Reply } from "./support";

/**
 * CoinGecko's documented answer (https://docs.coingecko.com/reference/simple-price):
 *   GET /api/v3/simple/price?ids=bitcoin,ethereum&vs_currencies=usd&include_last_updated_at=true&precision=full
 *   -> {"bitcoin":{"usd":67187.3358936566,"last_updated_at":1711356300},"ethereum":{"usd":3462.04,"last_updated_at":1711356301}}
 * Prices are JSON NUMBERS (tiny ones in exponent notation, 1.2e-7); ids it does not know are
 * left out of the answer. Keys travel in the header x-cg-demo-api-key (public API) or
 * x-cg-pro-api-key (pro-api.coingecko.com). Errors: {"status":{"error_code":10002,"error_message":"..."}}.
 */

const server = useProviderServer(documented);

/** id -> [usd price token, last_updated_at token], as CoinGecko writes them (numbers). */
const ANSWERS: Record<string, [string, string]> = {
  bitcoin: ["67187.33", "1711356300"],
  ethereum: ["3462.0412345678901234", "1711356301"], // 20 significant digits
  tether: ["1.0001", "1711356302"],
  "usd-coin": ["0.999912", "1711356303"],
  litecoin: ["84.12", "1711356304"],
  tron: ["1.2e-7", "1711356305"], // exponent notation: must come back as 0.00000012
  binancecoin: ["600.1", "1711356306"],
};

/** Answers like CoinGecko for the ids asked; `first` (a JSON token) replaces the first one's usd price. */
function documented(first?: string): (request: Received) => Reply {
  return (request) => {
    if (request.path !== "/api/v3/simple/price") return { status: 404, body: '{"error":"Not Found"}' };
    const ids = (request.query.get("ids") ?? "").split(",");
    const entries = ids
      .filter((id) => ANSWERS[id] !== undefined)
      .map((id, index) => `"${id}":{"usd":${index === 0 && first !== undefined ? first : ANSWERS[id]![0]},"last_updated_at":${ANSWERS[id]![1]}}`);
    return { body: `{${entries.join(",")}}` };
  };
}

const source = (options: Parameters<typeof coingecko>[0] = {}) => coingecko({ baseUrl: server.url, ...options });
const seconds = (unix: number) => new Date(unix * 1000);

describe("coingecko", () => {
  it("prices each asset in USD from the number CoinGecko wrote, at its last_updated_at", async () => {
    const prices = await source().fetch(ask(["BTC", "ETH", "USDT", "USDC", "LTC", "TRX", "BNB"]));
    expect(prices).toEqual([
      { base: "BTC", quote: "USD", price: "67187.33", at: seconds(1711356300) },
      { base: "ETH", quote: "USD", price: "3462.0412345678901234", at: seconds(1711356301) },
      { base: "USDT", quote: "USD", price: "1.0001", at: seconds(1711356302) },
      { base: "USDC", quote: "USD", price: "0.999912", at: seconds(1711356303) },
      { base: "LTC", quote: "USD", price: "84.12", at: seconds(1711356304) },
      { base: "TRX", quote: "USD", price: "0.00000012", at: seconds(1711356305) },
      { base: "BNB", quote: "USD", price: "600.1", at: seconds(1711356306) },
    ]);
  });

  it("sends one request with the documented query and no key header when it has no key", async () => {
    await source().fetch(ask(["BTC", "ETH"]));
    expect(server.requests).toHaveLength(1);
    const [request] = server.requests;
    expect(request!.path).toBe("/api/v3/simple/price");
    expect(Object.fromEntries(request!.query)).toEqual({ ids: "bitcoin,ethereum", vs_currencies: "usd", include_last_updated_at: "true", precision: "full" });
    expect(request!.headers["x-cg-demo-api-key"]).toBeUndefined();
    expect(request!.headers["x-cg-pro-api-key"]).toBeUndefined();
  });

  it("sends a demo key in x-cg-demo-api-key and a pro key in x-cg-pro-api-key, never in the URL", async () => {
    await source({ apiKey: "CG-demo-key-123" }).fetch(ask(["BTC"]));
    await source({ apiKey: "CG-pro-key-456", pro: true }).fetch(ask(["BTC"]));
    const [demo, pro] = server.requests;
    expect(demo!.headers["x-cg-demo-api-key"]).toBe("CG-demo-key-123");
    expect(demo!.headers["x-cg-pro-api-key"]).toBeUndefined();
    expect(pro!.headers["x-cg-pro-api-key"]).toBe("CG-pro-key-456");
    expect(pro!.headers["x-cg-demo-api-key"]).toBeUndefined();
    expect(demo!.target).not.toContain("CG-demo");
    expect(pro!.target).not.toContain("CG-pro");
  });

  it("never shows the API key in an error, even when the server echoes it", async () => {
    server.reply = () => ({ status: 401, body: '{"status":{"error_code":10002,"error_message":"Invalid API key: CG-secret-789"}}' });
    const error = await sourceError(source({ apiKey: "CG-secret-789" }).fetch(ask(["BTC"])));
    expect(error.message).toMatch(/HTTP 401/);
    expect(error.message).toContain("[redacted]");
    expect(`${error.message} ${error.stack} ${JSON.stringify(error)}`).not.toContain("CG-secret-789");
  });

  it("keeps 20 significant digits and large numbers exactly", async () => {
    server.reply = documented("12345678901234567890.123456789");
    expect(byBase(await source().fetch(ask(["BTC"])))).toEqual({ BTC: "12345678901234567890.123456789" });
    server.reply = documented("6.718733E4");
    expect(byBase(await source().fetch(ask(["BTC"])))).toEqual({ BTC: "67187.33" });
  });

  it("leaves out bases it has no id for, and ids CoinGecko does not answer or answers without a price, reporting those", async () => {
    const missing: Record<string, string> = {};
    const prices = await source({ symbols: { XYZ: "no-such-coin" } }).fetch({
      ...ask(["BTC", "EUR", "DOGE", "XYZ"]),
      missing: (base, reason) => void (missing[base] = reason),
    });
    expect(byBase(prices)).toEqual({ BTC: "67187.33" });
    expect(missing).toEqual({ XYZ: "pair not listed" });
    expect(server.requests[0]!.query.get("ids")).toBe("bitcoin,no-such-coin");
    expect(await source().fetch(ask(["EUR", "JPY"]))).toEqual([]);
    expect(server.requests).toHaveLength(1);
  });

  it("leaves out an id answered without a usd price", async () => {
    server.reply = () => ({ body: '{"bitcoin":{"usd":67187.33,"last_updated_at":1711356300},"ethereum":{}}' });
    const missing: Record<string, string> = {};
    expect(byBase(await source().fetch({ ...ask(["BTC", "ETH"]), missing: (base, reason) => void (missing[base] = reason) }))).toEqual({ BTC: "67187.33" });
    expect(missing).toEqual({ ETH: "pair not listed" });
  });

  it("fails the whole answer when one entry is malformed", async () => {
    server.reply = () => ({ body: '{"bitcoin":{"usd":67187.33,"last_updated_at":1711356300},"ethereum":{"usd":"3462.04","last_updated_at":1711356301}}' });
    expect((await sourceError(source().fetch(ask(["BTC", "ETH"])))).message).toMatch(/not the documented shape: ethereum\.usd: expected a JSON number/);
    server.reply = () => ({ body: '{"bitcoin":{"usd":67187.33,"last_updated_at":1711356300.5}}' });
    expect((await sourceError(source().fetch(ask(["BTC"])))).message).toMatch(/bitcoin\.last_updated_at "1711356300\.5", not a unix time in seconds/);
  });

  it("validates its options at creation, without showing the key", () => {
    expect(() => coingecko({ pro: true })).toThrow(/coingecko: pro: true needs an apiKey/);
    expect(() => coingecko({ apiKey: "bad key\n" })).toThrow(/coingecko: apiKey must be a non-empty string/);
    expect(() => coingecko({ apiKey: "bad key\n" })).not.toThrow(/bad key/);
    expect(() => coingecko({ symbols: { DOGE: "Dogecoin" } })).toThrow(/coingecko: symbols.DOGE: must be a CoinGecko coin id/);
    expect(() => coingecko({ pro: "yes" as never, apiKey: "k" })).toThrow(/coingecko: pro must be true or false/);
  });

  itFailsClearly({
    server: () => server,
    source: (overrides) => source({ apiKey: "CG-test-key", ...overrides }),
    bases: ["BTC", "ETH"],
    answerWithPrice: (price) =>
      documented(price)({ method: "GET", path: "/api/v3/simple/price", query: new URLSearchParams("ids=bitcoin,ethereum"), target: "", headers: {}, body: "" })
        .body!,
    prices: { zero: "0.0", negative: "-67187.33", nonNumeric: '"abc"' },
    wrongShape: '{"bitcoin":{"usd":"61000.1","last_updated_at":1711356300}}',
  });
});
