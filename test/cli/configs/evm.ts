import { memoryStorage, staticPricing } from "../../../src/index";
import { evmChain } from "../../../src/evm";

// A live ETH chain on the node the test gives (its URL may carry credentials), with a hot wallet.
export default () => ({
  storage: memoryStorage(),
  chains: [
    evmChain({
      network: "ETH",
      rpcUrl: process.env.CLI_RPC_URL!,
      hotWallet: process.env.CLI_HOT_WALLET as `0x${string}`,
      timeoutMs: 1500,
      // The operator's money on the hot wallet, when the test declares it (reconcile).
      ...(process.env.CLI_FLOAT ? { float: { ETH: process.env.CLI_FLOAT } } : {}),
    }),
  ],
  pricing: staticPricing({ allowLive: true }),
  publicUrl: "https://shop.example",
  health: { timeoutMs: 3000 },
});
