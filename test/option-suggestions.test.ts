import { describe, expect, it } from "vitest";
import { bitcoinChain } from "../src/bitcoin";
import { evmChain } from "../src/evm";
import { postgresStorage } from "../src/postgres";
import { coinbase, exchangeRates } from "../src/rates";
import { createPaymentClient, createPaymentRouter, memoryStorage, sandboxChain, staticPricing, webhookHandler } from "../src/index";

/**
 * Every factory throws at creation for an unknown option, suggesting the known name nearest to
 * it and listing the valid ones, so a typo is found at start-up, not as a setting silently
 * ignored.
 */

/** The message `create` threw. */
function thrown(create: () => unknown): string {
  try {
    create();
  } catch (error) {
    expect(error).toBeInstanceOf(TypeError);
    return (error as Error).message;
  }
  throw new Error("expected the factory to throw");
}

const HOT_WALLET = `0x${"11".repeat(32)}`;
const XPUB = "xpub6BosfCnifzxcFwrSzQiqu2DBVTshkCXacvNsWGYJVVhhawA7d4R5WSWGFNbi8Aw6ZRc1brxMyWMzG3DSSSSoekkudhUd9yLb6qx39T9nMdj";

describe("unknown options", () => {
  it("createPaymentRouter suggests the nearest name and lists the valid ones", () => {
    const message = thrown(() => createPaymentRouter({ storage: memoryStorage(), publicURL: "https://shop.example" } as never));
    expect(message).toMatch(/^createPaymentRouter: unknown option\(s\) publicURL \(did you mean publicUrl\?\); valid options: storage, dataDir, chain, /);
    expect(message).toContain("webhooks");
  });

  it("names the nested object and its own valid options", () => {
    const webhooks = thrown(() => createPaymentRouter({ storage: memoryStorage(), webhooks: { allowPrivateURLs: true } } as never));
    expect(webhooks).toMatch(
      /unknown option\(s\) webhooks\.allowPrivateURLs \(did you mean allowPrivateUrls\?\); valid options of webhooks: retrySchedule, timeoutMs/,
    );
    const idempotency = thrown(() => createPaymentRouter({ storage: memoryStorage(), idempotency: { leseMs: 5 } } as never));
    expect(idempotency).toMatch(/idempotency\.leseMs \(did you mean leaseMs\?\); valid options of idempotency: leaseMs$/);
    // An object that is one branch of a union (`metrics: { ... } | false`).
    const metrics = thrown(() => createPaymentRouter({ storage: memoryStorage(), metrics: { prefx: "shop_" } } as never));
    expect(metrics).toMatch(/metrics\.prefx \(did you mean prefix\?\); valid options of metrics: registry, prefix/);
  });

  it("suggests nothing when no name is near, and still lists the valid ones", () => {
    const message = thrown(() => createPaymentRouter({ storage: memoryStorage(), colour: "blue" } as never));
    expect(message).toMatch(/unknown option\(s\) colour; valid options: storage, /);
    expect(message).not.toContain("did you mean");
  });

  it("every other factory does the same", () => {
    const cases: Array<[string, () => unknown, RegExp]> = [
      [
        "evmChain",
        () => evmChain({ network: "ETH", rpcUrl: "http://127.0.0.1:8545", hotWallet: HOT_WALLET, confirmation: 3 } as never),
        /^evmChain: unknown option\(s\) confirmation \(did you mean confirmations\?\); valid options: network, rpcUrl, hotWallet/,
      ],
      [
        "bitcoinChain",
        () => bitcoinChain({ coin: "BTC", network: "BTC", rpcUrl: "http://127.0.0.1:8332", xpub: XPUB, gapLimt: 20 } as never),
        /unknown option\(s\) gapLimt \(did you mean gapLimit\?\); valid options: coin, network, family, rpcUrl, xpub/,
      ],
      [
        "exchangeRates",
        () => exchangeRates({ source: [coinbase()] } as never),
        /^exchangeRates: unknown option\(s\) source \(did you mean sources\?\); valid options: sources/,
      ],
      ["coinbase", () => coinbase({ baseURL: "https://api.coinbase.com" } as never), /^coinbase: unknown option\(s\) baseURL \(did you mean baseUrl\?\)/],
      [
        "staticPricing",
        () => staticPricing({ usdPrice: {} } as never),
        /^staticPricing: unknown option\(s\) usdPrice \(did you mean usdPrices\?\); valid options: usdPrices, at, allowLive$/,
      ],
      ["sandboxChain", () => sandboxChain({ Now: Date.now } as never), /^sandboxChain: unknown option\(s\) Now \(did you mean now\?\); valid options: now$/],
      [
        "postgresStorage",
        () => postgresStorage({ connectionString: "postgres://localhost/shop", maxConnection: 5 } as never),
        /^postgresStorage: unknown option\(s\) maxConnection \(did you mean maxConnections\?\); valid options: connectionString, pool, dataDir/,
      ],
      [
        "webhookHandler",
        () => webhookHandler({ secrets: "whsec_x", on: { "payment.completed": () => undefined } } as never),
        /^webhookHandler: unknown option\(s\) secrets \(did you mean secret\?\); valid options: secret, on, /,
      ],
      [
        "createPaymentClient",
        () => createPaymentClient({ baseUrl: "https://pay.example", apiKey: "sk_test_x", timeout: 5 } as never),
        /^createPaymentClient: unknown option\(s\) timeout \(did you mean timeoutMs\?\); valid options: baseUrl, apiKey, retries, timeoutMs, fetch$/,
      ],
    ];
    for (const [name, create, expected] of cases) expect(thrown(create), name).toMatch(expected);
  });

  it("the dashboard's options too", async () => {
    const router = createPaymentRouter({ storage: memoryStorage(), backgroundIntervalMs: false });
    try {
      const message = thrown(() => router.dashboard({ authorize: () => null, csrfSecrets: "x".repeat(32) } as never));
      expect(message).toMatch(/^dashboard: unknown option\(s\) csrfSecrets \(did you mean csrfSecret\?\); valid options: authorize, csrfSecret, explorers$/);
    } finally {
      await router.close();
    }
  });
});
