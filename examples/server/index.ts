/**
 * The example host app behind `npm start`: an ordinary Express app with a route of its own and
 * the payment router mounted, on the embedded defaults (PGlite in DATA_DIR, sandbox chain, static
 * prices). It creates a demo merchant (or finds the one an earlier start created) and prints a
 * test key to try the API with. The merchant dashboard is at /admin/payments behind a demo login
 * (demo-login.ts): its password is DASHBOARD_PASSWORD, or one made up and printed at each start.
 *
 * Environment: PORT (3000), PUBLIC_URL, DASHBOARD_PASSWORD, DEMO_API_KEY (an sk_test_ key to
 * register instead of a fresh one), DEMO_MERCHANT_ID (mch_demo), DATA_DIR (./.data: the embedded database),
 * DATABASE_URL (a PostgreSQL server instead; several instances may share it), PG_SCHEMA (the
 * schema on that server), BACKGROUND_INTERVAL_MS (5000), WEBHOOK_TIMEOUT_MS (15000) and
 * WEBHOOK_RETRY_SCHEDULE (comma-separated delays in ms; the library's default schedule).
 *
 * Live mode on an EVM node (see docs/chains.md): EVM_RPC_URL, EVM_HOT_KEY (the
 * hot wallet's 0x private key), EVM_NETWORK (ETH), EVM_CHAIN_ID (optional check) and EVM_TOKENS
 * (e.g. "USDT=0xdAC17F958D2ee523a2206206994597C13D831ec7:6,USDC=0xA0b8...:6"). With them set, the
 * demo merchant also gets a fresh live key on every start, printed once. PUBLIC_URL is required
 * then (live payment URLs never come from a request's Host header). Bitcoin-family coins the
 * same way: LTC_RPC_URL, LTC_XPUB and LTC_XPRV (optional, for payouts); BTC_RPC_URL, BTC_XPUB,
 * BTC_XPRV. Monero: XMR_DAEMON_URL (monerod's RPC), XMR_WALLET_RPC_URL (a monero-wallet-rpc for the
 * view-only wallet), XMR_ADDRESS and XMR_VIEW_KEY, XMR_WALLET_NAME and XMR_WALLET_PASSWORD
 * (optional), and for payouts XMR_HOT_WALLET_RPC_URL, XMR_HOT_WALLET_NAME and
 * XMR_HOT_WALLET_PASSWORD (a second wallet RPC with a full wallet). Live prices then come
 * from PRICE_SOURCES (default "coinbase,kraken,coingecko"; each may be given as name=baseUrl, e.g.
 * "coinbase=https://api.coinbase.com,kraken") and COINGECKO_API_KEY, in both modes.
 */
import { randomBytes } from "node:crypto";
import express from "express";
import { createPaymentRouter, type PaymentRouter } from "../../src/index";
import type { MerchantRecord } from "../../src/storage";
import { bitcoinChain } from "../../src/bitcoin";
import { evmChain } from "../../src/evm";
import { moneroChain } from "../../src/monero";
import type { ChainAdapter } from "../../src/index";
import { binance, coinbase, coingecko, exchangeRates, kraken, type PriceSource } from "../../src/rates";
import { postgresStorage } from "../../src/postgres";
import { mountDashboard } from "./demo-login";

const port = Number(process.env.PORT ?? 3000);
const demoKey = process.env.DEMO_API_KEY || undefined;
if (demoKey !== undefined && !demoKey.startsWith("sk_test_")) {
  console.error("DEMO_API_KEY must be a test key (sk_test_...): the demo merchant never gets a live key from the environment.");
  process.exit(1);
}
const dashboardPassword = process.env.DASHBOARD_PASSWORD || randomBytes(12).toString("base64url");
const databaseUrl = process.env.DATABASE_URL || undefined;
const dataDir = process.env.DATA_DIR || ".data";
const interval = Number(process.env.BACKGROUND_INTERVAL_MS) || undefined;
const webhookTimeout = Number(process.env.WEBHOOK_TIMEOUT_MS) || undefined;
const retrySchedule = process.env.WEBHOOK_RETRY_SCHEDULE ? process.env.WEBHOOK_RETRY_SCHEDULE.split(",").map(Number) : undefined;

const liveChains: ChainAdapter[] = process.env.EVM_RPC_URL
  ? [
      evmChain({
        network: process.env.EVM_NETWORK || "ETH",
        rpcUrl: process.env.EVM_RPC_URL,
        hotWallet: process.env.EVM_HOT_KEY ?? "",
        ...(process.env.EVM_CHAIN_ID ? { chainId: Number(process.env.EVM_CHAIN_ID) } : {}),
        tokens: parseTokens(process.env.EVM_TOKENS ?? ""),
      }),
    ]
  : [];

for (const coin of ["BTC", "LTC"]) {
  const rpcUrl = process.env[`${coin}_RPC_URL`];
  const xpub = process.env[`${coin}_XPUB`];
  if (!rpcUrl || !xpub) continue;
  const hotWallet = process.env[`${coin}_XPRV`];
  liveChains.push(bitcoinChain({ coin, network: coin, rpcUrl, xpub, ...(hotWallet ? { hotWallet } : {}) }));
}

if (process.env.XMR_DAEMON_URL && process.env.XMR_WALLET_RPC_URL && process.env.XMR_ADDRESS && process.env.XMR_VIEW_KEY) {
  const hotUrl = process.env.XMR_HOT_WALLET_RPC_URL;
  liveChains.push(
    moneroChain({
      daemonUrl: process.env.XMR_DAEMON_URL,
      walletRpcUrl: process.env.XMR_WALLET_RPC_URL,
      address: process.env.XMR_ADDRESS,
      viewKey: process.env.XMR_VIEW_KEY,
      ...(process.env.XMR_WALLET_NAME ? { walletName: process.env.XMR_WALLET_NAME } : {}),
      ...(process.env.XMR_WALLET_PASSWORD ? { walletPassword: process.env.XMR_WALLET_PASSWORD } : {}),
      ...(hotUrl
        ? {
            hotWallet: {
              walletRpcUrl: hotUrl,
              ...(process.env.XMR_HOT_WALLET_NAME ? { walletName: process.env.XMR_HOT_WALLET_NAME } : {}),
              ...(process.env.XMR_HOT_WALLET_PASSWORD ? { password: process.env.XMR_HOT_WALLET_PASSWORD } : {}),
            },
          }
        : {}),
    }),
  );
}

/** "USDT=0xabc...:6,USDC=0xdef...:6" -> the `tokens` option of evmChain. */
function parseTokens(text: string): Record<string, { address: string; decimals: number }> {
  const tokens: Record<string, { address: string; decimals: number }> = {};
  for (const entry of text.split(",").filter(Boolean)) {
    const [symbol, rest = ""] = entry.split("=");
    const [address = "", decimals = ""] = rest.split(":");
    tokens[symbol!.trim()] = { address: address.trim(), decimals: Number(decimals) };
  }
  return tokens;
}

/** "coinbase,kraken=http://mirror:8080" -> the price sources, each at its public API or the URL given. */
function priceSources(text: string): PriceSource[] {
  const makers: Record<string, (baseUrl?: string) => PriceSource> = {
    coinbase: (baseUrl) => coinbase({ ...(baseUrl ? { baseUrl } : {}) }),
    kraken: (baseUrl) => kraken({ ...(baseUrl ? { baseUrl } : {}) }),
    binance: (baseUrl) => binance({ ...(baseUrl ? { baseUrl } : {}) }),
    coingecko: (baseUrl) => coingecko({ ...(baseUrl ? { baseUrl } : {}), ...(process.env.COINGECKO_API_KEY ? { apiKey: process.env.COINGECKO_API_KEY } : {}) }),
  };
  return text
    .split(",")
    .filter(Boolean)
    .map((entry) => {
      const [name = "", baseUrl] = entry.trim().split("=");
      const make = makers[name];
      if (!make) throw new Error(`PRICE_SOURCES: unknown source "${name}"; use ${Object.keys(makers).join(", ")}`);
      return make(baseUrl);
    });
}

// Live chains need live prices: the fixed table is for test mode only.
const pricing = liveChains.length > 0 ? exchangeRates({ sources: priceSources(process.env.PRICE_SOURCES || "coinbase,kraken,coingecko") }) : undefined;

const payments = createPaymentRouter({
  chains: liveChains,
  ...(pricing ? { pricing } : {}),
  publicUrl: process.env.PUBLIC_URL,
  ...(databaseUrl ? { storage: postgresStorage({ connectionString: databaseUrl, schema: process.env.PG_SCHEMA || undefined }) } : { dataDir }),
  ...(interval ? { backgroundIntervalMs: interval } : {}),
  webhooks: {
    // A demo's webhook receivers run beside it (examples/order-system on localhost:4000, a test's
    // on 127.0.0.1), which the default policy refuses as private addresses. A server reachable
    // by merchants you do not control should leave this off.
    allowPrivateUrls: true,
    ...(webhookTimeout ? { timeoutMs: webhookTimeout } : {}),
    ...(retrySchedule ? { retrySchedule } : {}),
  },
});
// Every live chain's node is reached and checked (its network, chain id, and that the keys are
// of that network) before the server listens: a mismatch stops the start here, naming it. A node
// that does not answer yet is asked again; the background log says why it waits.
await payments.ready();
const merchant = await demoMerchant(payments, process.env.DEMO_MERCHANT_ID || "mch_demo");
const key = await demoApiKey(payments, merchant);
// A live key only when a live chain is configured; it is never taken from the environment.
const liveKey = liveChains.length > 0 ? (await payments.admin.issueApiKey(merchant.id, { mode: "live" })).key : null;

/** The demo merchant: created on the first start, found on the next ones (and by other instances). */
async function demoMerchant(router: PaymentRouter, id: string): Promise<MerchantRecord> {
  const existing = await router.admin.getMerchant(id);
  if (existing) return existing;
  try {
    return await router.admin.createMerchant({ name: "Demo shop", id });
  } catch (error) {
    // Another instance on the same database created it a moment ago.
    const created = await router.admin.getMerchant(id);
    if (created) return created;
    throw error;
  }
}

/** DEMO_API_KEY, registered unless an earlier start (or another instance) did; or a fresh key. */
async function demoApiKey(router: PaymentRouter, owner: MerchantRecord): Promise<string> {
  if (!demoKey) return (await router.admin.issueApiKey(owner.id, { mode: "test" })).key;
  try {
    return (await router.admin.issueApiKey(owner.id, { key: demoKey })).key;
  } catch (error) {
    // Keys are unique: a refusal means it is stored already, which its listing confirms.
    const listed = (await router.admin.listApiKeys(owner.id)).some((entry) => entry.prefix === demoKey.slice(0, entry.prefix.length) && !entry.revokedAt);
    if (listed) return demoKey;
    throw error;
  }
}

const app = express();
app.get("/", (_req, res) => {
  res.type("text").send("Demo shop. The payment API is under /api/v1 (try POST /api/v1/currencies with your test key); the dashboard at /admin/payments.\n");
});
// Readiness (503 when payments cannot be taken or credited) and liveness, for a load balancer.
app.get("/health", payments.healthHandler);
app.get("/livez", payments.livenessHandler);
app.use(payments);
mountDashboard(app, payments, { path: "/admin/payments", password: dashboardPassword });
// Prometheus metrics (prom-client installed); keep it off the public internet in production.
app.get("/metrics", payments.metricsHandler);

const server = app.listen(port, () => {
  const address = server.address();
  const base = `http://localhost:${typeof address === "object" && address ? address.port : port}`;
  console.log(`express-crypto-pay example listening on ${base}`);
  console.log(
    `storage: ${databaseUrl ? `PostgreSQL server${process.env.PG_SCHEMA ? `, schema ${process.env.PG_SCHEMA}` : ""}` : `embedded PGlite in ${dataDir}`}`,
  );
  console.log(`demo merchant ${merchant.id}, test API key: ${key}`);
  console.log(`dashboard: ${base}/admin/payments (demo login password: ${dashboardPassword})`);
  if (liveKey) console.log(`live chain: ${liveChains.map((chain) => chain.feedId).join(", ")}; live API key (shown once): ${liveKey}`);
  console.log(
    `try: curl -X POST ${base}/api/v1/merchants/whitelabel/create -H "Authorization: Bearer ${key}" -H "Content-Type: application/json" -d '{"amount":25,"payCurrency":"USDT","network":"TRX"}'`,
  );
});

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    server.close();
    void payments.close().then(() => process.exit(0));
  });
}
