import { staticPricing } from "../../../src/index";
import { evmChain } from "../../../src/evm";
import { postgresStorage } from "../../../src/postgres";

// A config exporting the options object as `options`: a PostgreSQL server schema that only the
// CLI's `migrate` migrates, and a live ETH chain when the test gives a node.
const rpcUrl = process.env.CLI_RPC_URL;
export const options = {
  storage: postgresStorage({ connectionString: process.env.DATABASE_URL!, schema: process.env.CLI_SCHEMA!, migrate: false }),
  ...(rpcUrl
    ? {
        chains: [evmChain({ network: "ETH", rpcUrl, hotWallet: process.env.CLI_HOT_WALLET as `0x${string}` })],
        pricing: staticPricing({ allowLive: true }),
        publicUrl: "https://shop.example",
      }
    : {}),
};
