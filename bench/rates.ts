/**
 * `npm run bench`, pricing part: whitelabel invoice/create priced in USD and paid in BTC (so every
 * request needs a rate) through a router quoting from `exchangeRates()` over three providers'
 * APIs (Coinbase, Kraken and CoinGecko formats, served locally by test/adapters/pricing/market.ts),
 * against the same router quoting from `staticPricing()`, in the same run. Target: at least 0.95,
 * i.e. quoting adds no network wait to invoice creation (sources are read in the background).
 * BENCH_SECONDS and BENCH_ROUNDS as in run.ts.
 */
import { startMarket } from "../test/adapters/pricing/market";
import { alternate, measure, pinned, startTarget, type Target } from "./support";

const seconds = Number(process.env.BENCH_SECONDS ?? 3);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const connections = 10;
const TARGET = 0.95;
const body = { amount: 25, amountCurrency: "USD", payCurrency: "BTC", network: "BTC" };

const market = await startMarket();
const urls = JSON.stringify({ coinbase: market.coinbase.url, kraken: market.kraken.url, coingecko: market.coingecko.url });
const fixed = await startTarget<{ key: string }>("bench/target.ts", ["priced-static"]);
const live = await startTarget<{ key: string }>("bench/target.ts", ["priced-rates", urls]);
const load =
  (target: Target<{ key: string }>) =>
  (duration = seconds) =>
    measure(target, "/api/v1/merchants/whitelabel/create", body, { duration, connections });

// The first quote waits for the first read of the sources: alternate's warm-up of each side covers it.
const c = await alternate(load(live), load(fixed), rounds);
console.log(
  `\nwhitelabel/create priced in USD, paid in BTC: ${rounds} rounds x ${seconds}s per side, ${connections} connections, ${pinned ? "pinned" : "not pinned"}`,
);
console.log("pricing                 req/s   p99 ms");
console.log(`exchangeRates (3 APIs) ${c.ours.toFixed(0).padStart(6)}   ${c.p99.split("/")[0]}`);
console.log(`staticPricing          ${c.base.toFixed(0).padStart(6)}   ${c.p99.split("/")[1]}`);
console.log(`ratio ${c.ratio.toFixed(3)} (target >= ${TARGET}): ${c.ratio >= TARGET ? "ok" : "BELOW TARGET"}; failures ${c.failures}`);
const requests = market.coinbase.server.requests.length + market.kraken.server.requests.length + market.coingecko.server.requests.length;
console.log(`provider requests during the whole run: ${requests} (background reads only)`);

for (const target of [fixed, live]) target.child.kill();
await market.close();
