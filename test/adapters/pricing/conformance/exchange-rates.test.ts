import { exchangeRates, type ExchangeRates } from "../../../../src/adapters/pricing/exchange-rates";
import { runPricingAdapterTests } from "../../../../src/testing/index";
import { recordingLogger } from "../../../helpers";
import { scripted } from "../scripted-source";

const ASSETS = ["BTC", "ETH", "USDT", "LTC", "TRX", "USD", "EUR"];

// Three providers that agree within 1%, each the median on some asset: the combined prices mix
// them, and every rate between two assets is a cross rate through USD.
const sources = () => [
  scripted("a", { BTC: "60000", ETH: "3000", USDT: "1", LTC: "80", TRX: "0.12", EUR: "1.08" }),
  scripted("b", { BTC: "60312.5", ETH: "3004.15", USDT: "1.0004", LTC: "80.35", TRX: "0.12033", EUR: "1.0812" }),
  scripted("c", { BTC: "60150.25", ETH: "3013.5", USDT: "0.9997", LTC: "80.17", TRX: "0.12061", EUR: "1.0807" }),
];

runPricingAdapterTests({
  name: "exchangeRates",
  createAdapter: async () => {
    const adapter = exchangeRates({ sources: sources(), refreshSeconds: 3600 });
    adapter.bind!({ assets: ASSETS.filter((asset) => asset !== "USD"), logger: recordingLogger() });
    await adapter.refresh();
    return adapter;
  },
  destroyAdapter: (adapter) => (adapter as ExchangeRates).close(),
  assets: ASSETS,
  unknownPair: ["DOGE", "XAU"],
});
