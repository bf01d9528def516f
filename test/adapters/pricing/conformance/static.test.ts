import { staticPricing } from "../../../../src/adapters/pricing/static";
import { runPricingAdapterTests } from "../../../../src/testing/index";

// The fixed table, with its default prices: the reference a hand-written adapter is held to.
runPricingAdapterTests({
  name: "staticPricing",
  createAdapter: () => staticPricing(),
  assets: ["BTC", "ETH", "USDT", "LTC", "TRX", "USD", "EUR"],
  unknownPair: ["DOGE", "XAU"],
});

// A cheap coin priced in BTC has a rate near 10^-10, with few significant digits at 18 decimals:
// the consistency tests allow for that rounding and nothing more.
runPricingAdapterTests({
  name: "staticPricing-with-a-cheap-coin",
  createAdapter: () => staticPricing({ usdPrices: { SHIB: "0.00001234" } }),
  assets: ["BTC", "SHIB", "JPY", "USD"],
  unknownPair: ["BTC", "XAU"],
});
