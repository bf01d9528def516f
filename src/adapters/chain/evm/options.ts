import { getAddress, isAddress, type Address, type Hex } from "viem";
import { z } from "zod";
import { optionsError } from "../../../options-error";
import { parseDecimal } from "../../../money";
import { DEFAULT_CURRENCIES } from "../../../currencies";

/** Options of `evmChain()`. */
export interface EvmChainOptions {
  /** The currency list's network code this node serves ("ETH", "BSC", or one a host added). */
  network: string;
  /** JSON-RPC over HTTP(S). It may carry credentials or an API key: they never reach a log or an error. */
  rpcUrl: string;
  /**
   * The hot wallet's private key (0x + 64 hex digits). It pays payouts and gas, receives the
   * funds consolidated from deposit addresses, and owns the forwarder factory. Keep it in a
   * secret store, hold only working float on it.
   */
  hotWallet: string;
  /**
   * ERC-20 tokens served, by the currency list's symbol, with their on-chain decimals. Default
   * on BASE, POLYGON, ARBITRUM and OPTIMISM: the tokens the default currency list has there
   * (USDC), at the contract the host's currency list gives; elsewhere none.
   */
  tokens?: Record<string, { address: string; decimals: number }>;
  /**
   * The currency-list symbol of the network's native coin. Default: "ETH" on ETH and the other
   * Ethereum L2 codes, "BNB" on BSC, "POL" on POLYGON, "AVAX" on AVAXC; null serves tokens only.
   * It is served only where the currency list has it on this network (the default list has ETH
   * on ETH, and no BNB).
   */
  nativeCoin?: string | null;
  /**
   * Expected chain id; when given, a node on another chain is refused. Default on BASE, POLYGON,
   * ARBITRUM and OPTIMISM: the currency list's chain id for the network; elsewhere none.
   */
  chainId?: number;
  /** Confirmations for every coin of this network instead of the currency list's minConfirm. */
  confirmations?: number;
  /** Block the very first scan starts at. Default: a reorg window (at least 32 blocks) below the head at the first scan. */
  startBlock?: number;
  /** Blocks read by one poll of the deposit feed. Default 100. */
  blocksPerPoll?: number;
  /**
   * Whether native coin sent by a contract's internal call (how exchanges and smart-contract
   * wallets often pay) is found, through `debug_traceBlockByHash` with geth's callTracer (geth,
   * Erigon, Reth, Nethermind, anvil). Default true; a node without it logs one error and is
   * read without.
   */
  internalTransfers?: boolean;
  /** An already deployed forwarder factory. Default: the one the hot wallet deploys through the deterministic CREATE2 deployer on first use. */
  factory?: string;
  /**
   * Moving paid deposits into the hot wallet, run by the background loop. `minimum` per coin
   * (a decimal string in the coin) skips balances whose sweep would cost more gas than they are
   * worth. false turns it off (funds stay at their addresses, claimable later). Default: on,
   * minimum 0.
   */
  consolidation?: false | { minimum?: Record<string, string> };
  /** Per-request timeout in ms. Default 10000. */
  timeoutMs?: number;
  /** Typical seconds between blocks, reported in the sync status (health measures the scanner's lag from the blocks' own timestamps). Default: 12 on ETH, 3 on BSC, else 12. */
  blockSeconds?: number;
  /**
   * Low-balance thresholds of the hot wallet per coin served (the native coin for gas, and the
   * tokens), as decimal strings in coin units: `{ ETH: "0.05", USDT: "100" }`. A balance below
   * its threshold is logged as a warning once (and once when it is back above) and shown low by
   * `payments.admin.hotWallets()`. Default: none.
   */
  lowBalance?: Record<string, string>;
  /**
   * What the operator put into the hot wallet of their own, per coin, as decimal strings in
   * coin units: `{ ETH: "0.5" }` (gas money, a token float for payouts before sweeps bring
   * coins in). Reconciliation counts it as the operator's, not the merchants'. Default: none.
   */
  float?: Record<string, string>;
}

/** The options after checking, with defaults applied and addresses checksummed. */
export interface EvmSettings {
  network: string;
  rpcUrl: string;
  hotWallet: Hex;
  tokens: Array<{ coin: string; address: Address; decimals: number }>;
  /** Whether the tokens are the default list's, to be pointed at the host's currency list contracts. */
  tokensFromList: boolean;
  /** Whether the expected chain id defaults to the currency list's. */
  chainIdFromList: boolean;
  nativeCoin: string | null;
  chainId: number | null;
  confirmations: number | null;
  startBlock: number | null;
  blocksPerPoll: number;
  internalTransfers: boolean;
  factory: Address | null;
  consolidation: false | { minimum: Record<string, string> };
  timeoutMs: number;
  blockSeconds: number;
  /** Thresholds in each coin's on-chain units. */
  lowBalance: Map<string, bigint>;
  /** The declared float in each coin's on-chain units. */
  float: Map<string, bigint>;
}

/** Typical block times of the networks the default currency list has. */
const BLOCK_SECONDS: Record<string, number> = { ETH: 12, BSC: 3, BASE: 2, POLYGON: 2, ARBITRUM: 0.25, OPTIMISM: 2 };

/**
 * Networks whose token contracts and chain id come from the currency list when the options name
 * none. ETH and BSC are left out on purpose: an existing ETH or BSC deployment that listed no
 * tokens must not start serving the list's tokens, or checking a chain id it never set, after
 * an upgrade.
 */
const LIST_NETWORKS = new Set(["BASE", "POLYGON", "ARBITRUM", "OPTIMISM"]);

/** The default currency list's tokens on `network`, with the list's decimals (the same as on chain for these). */
function defaultTokens(network: string): Array<{ coin: string; address: Address; decimals: number }> {
  return DEFAULT_CURRENCIES.flatMap((currency) =>
    currency.networks
      .filter((entry) => entry.network === network && entry.tokenContract !== undefined)
      .map((entry) => ({ coin: currency.symbol, address: getAddress(entry.tokenContract as string), decimals: currency.decimals })),
  );
}

const NATIVE_COINS: Record<string, string> = {
  ETH: "ETH",
  ARBITRUM: "ETH",
  OPTIMISM: "ETH",
  OP: "ETH",
  BASE: "ETH",
  BSC: "BNB",
  POLYGON: "POL",
  AVAXC: "AVAX",
};

const address = (what: string) =>
  z.string().refine((value) => isAddress(value, { strict: false }) && value !== "0x0000000000000000000000000000000000000000", {
    error: `must be a 0x-prefixed 20-byte ${what} address`,
  });

/** Amounts per coin served, as decimal strings in coin units (`lowBalance`, `float`). */
const coinAmounts = z.record(z.string(), z.string().regex(/^\d+(\.\d+)?$/, { error: 'must be a decimal string in coin units, such as "0.05"' }));

const schema = z.strictObject({
  network: z.string().regex(/^[A-Z0-9_-]{2,20}$/, { error: "must be a network code of the currency list, such as ETH or BSC" }),
  rpcUrl: z.url({ protocol: /^https?$/, error: "must be an http(s) URL of a JSON-RPC endpoint" }),
  // The refinement message never echoes the value: it is a secret.
  hotWallet: z.string({ error: "is required: a 0x private key (64 hex digits)" }).refine((value) => /^0x[0-9a-fA-F]{64}$/.test(value), {
    error: "must be a 0x private key of 64 hex digits",
  }),
  tokens: z
    .record(
      z.string().regex(/^[A-Z0-9]{2,10}$/, { error: "token symbols are the currency list's, such as USDT" }),
      z.strictObject({
        address: address("token contract"),
        decimals: z.int().min(0).max(36),
      }),
    )
    .optional(),
  nativeCoin: z
    .string()
    .regex(/^[A-Z0-9]{2,10}$/)
    .nullable()
    .optional(),
  chainId: z.int().positive().optional(),
  confirmations: z.int().min(1).max(10_000).optional(),
  startBlock: z.int().min(0).optional(),
  blocksPerPoll: z.int().min(1).max(2_000).optional(),
  internalTransfers: z.boolean().optional(),
  factory: address("factory contract").optional(),
  consolidation: z
    .union([
      z.literal(false),
      z.strictObject({ minimum: z.record(z.string(), z.string().regex(/^\d+(\.\d+)?$/, { error: "must be a decimal string" })).optional() }),
    ])
    .optional(),
  timeoutMs: z.int().min(100).max(300_000).optional(),
  blockSeconds: z.number().positive().max(86_400).optional(),
  lowBalance: coinAmounts.optional(),
  float: coinAmounts.optional(),
});

/**
 * Checks `evmChain()`'s options at start-up and names the option at fault. Messages never
 * contain the hot wallet key or the RPC URL.
 */
export function checkEvmOptions(options: EvmChainOptions): EvmSettings {
  const result = schema.safeParse(options ?? {});
  if (!result.success) throw optionsError("evmChain", result.error, " ", schema);
  const value = result.data;
  const tokensFromList = value.tokens === undefined && LIST_NETWORKS.has(value.network);
  const tokens = tokensFromList
    ? defaultTokens(value.network)
    : Object.entries(value.tokens ?? {}).map(([coin, token]) => ({ coin, address: getAddress(token.address), decimals: token.decimals }));
  const nativeCoin = value.nativeCoin === undefined ? (NATIVE_COINS[value.network] ?? null) : value.nativeCoin;
  if (nativeCoin !== null && tokens.some((token) => token.coin === nativeCoin)) {
    throw new TypeError(
      `evmChain: ${nativeCoin} is the native coin of ${value.network} and cannot also be a token; set nativeCoin: null to serve it as a token`,
    );
  }
  // Amounts per coin, in each coin's on-chain units (18 decimals for the native coin).
  const perCoin = (option: string, amounts: Record<string, string> | undefined): Map<string, bigint> => {
    const parsed = new Map<string, bigint>();
    for (const [coin, text] of Object.entries(amounts ?? {})) {
      const decimals = coin === nativeCoin ? 18 : tokens.find((token) => token.coin === coin)?.decimals;
      if (decimals === undefined) throw new TypeError(`evmChain: ${option}.${coin} names a coin this adapter does not serve on ${value.network}`);
      try {
        parsed.set(coin, parseDecimal(text, decimals));
      } catch {
        throw new TypeError(`evmChain: ${option}.${coin} has more decimal places than ${coin}'s ${decimals}`);
      }
    }
    return parsed;
  };
  return {
    network: value.network,
    rpcUrl: value.rpcUrl,
    hotWallet: value.hotWallet as Hex,
    tokens,
    tokensFromList,
    chainIdFromList: value.chainId === undefined && LIST_NETWORKS.has(value.network),
    nativeCoin,
    chainId: value.chainId ?? null,
    confirmations: value.confirmations ?? null,
    startBlock: value.startBlock ?? null,
    blocksPerPoll: value.blocksPerPoll ?? 100,
    internalTransfers: value.internalTransfers ?? true,
    factory: value.factory ? getAddress(value.factory) : null,
    consolidation: value.consolidation === false ? false : { minimum: value.consolidation?.minimum ?? {} },
    timeoutMs: value.timeoutMs ?? 10_000,
    blockSeconds: value.blockSeconds ?? BLOCK_SECONDS[value.network] ?? 12,
    lowBalance: perCoin("lowBalance", value.lowBalance),
    float: perCoin("float", value.float),
  };
}
