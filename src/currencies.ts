import { parseDecimal, pow10 } from "./money";

/** One network a currency can move on, as configured (decimal strings in the coin's units). */
export interface NetworkConfig {
  /** Network code used in requests ("TRX", "ETH", ...). */
  network: string;
  name: string;
  /** Confirmations after which a deposit is final and credited. */
  minConfirm: number;
  /** Fee charged on each payout, in the coin. */
  withdrawFee: string;
  /** Smallest payout amount, in the coin. */
  withdrawMin: string;
  /** Smallest amount a whitelabel invoice may ask for on this network. */
  depositMin: string;
  /** Fixed network cost added to each payout's debit, in the coin. */
  staticFixedFee: string;
  /**
   * The EIP-155 chain id of an EVM network (1 Ethereum, 56 BNB Smart Chain): the hosted page's
   * EIP-681 wallet link names it, so a phone wallet signs on the right chain. Absent elsewhere.
   */
  chainId?: number;
  /**
   * The token's contract address when this coin is a token on this network (USDT on Ethereum);
   * absent for the network's own coin. EVM tokens get an ERC-20 transfer link from it.
   */
  tokenContract?: string;
}

/** A crypto currency the service handles. */
export interface CurrencyConfig {
  symbol: string;
  name: string;
  /** Decimals of the ledger and of chain amounts. */
  decimals: number;
  /** Decimals `payAmount` is quoted with (at most 8, so a JSON number holds it exactly). */
  quoteDecimals: number;
  /** Smallest amount of this currency an exchange may sell (the pair list's minAmount). */
  exchangeMin: string;
  networks: NetworkConfig[];
}

/**
 * Defaults close to what the public networks charge in 2026. Hosts replace them with the
 * `currencies` option; every value here is shown by POST /api/v1/currencies.
 */
export const DEFAULT_CURRENCIES: readonly CurrencyConfig[] = [
  {
    symbol: "BTC",
    name: "Bitcoin",
    decimals: 8,
    quoteDecimals: 8,
    exchangeMin: "0.0001",
    networks: [{ network: "BTC", name: "Bitcoin", minConfirm: 2, withdrawFee: "0.0001", withdrawMin: "0.0005", depositMin: "0.00005", staticFixedFee: "0" }],
  },
  {
    symbol: "ETH",
    name: "Ethereum",
    decimals: 18,
    quoteDecimals: 8,
    exchangeMin: "0.002",
    networks: [
      // Ether is Ethereum's own coin, not a token on it; on BNB Smart Chain it is the BEP20 token.
      { network: "ETH", name: "Ethereum", minConfirm: 12, withdrawFee: "0.001", withdrawMin: "0.005", depositMin: "0.0001", staticFixedFee: "0", chainId: 1 },
      {
        network: "BSC",
        name: "BNB Smart Chain (BEP20)",
        minConfirm: 15,
        withdrawFee: "0.0002",
        withdrawMin: "0.002",
        depositMin: "0.0001",
        staticFixedFee: "0",
        chainId: 56,
        tokenContract: "0x2170Ed0880ac9A755fd29B2688956BD959F933F8",
      },
      // The rollups' own coin (gas is paid in it): no token contract. Confirmations and their
      // sources are in docs/chains.md.
      {
        network: "BASE",
        name: "Base",
        minConfirm: 10,
        withdrawFee: "0.00005",
        withdrawMin: "0.0005",
        depositMin: "0.00005",
        staticFixedFee: "0",
        chainId: 8453,
      },
      {
        network: "ARBITRUM",
        name: "Arbitrum One",
        minConfirm: 300,
        withdrawFee: "0.00005",
        withdrawMin: "0.0005",
        depositMin: "0.00005",
        staticFixedFee: "0",
        chainId: 42161,
      },
      {
        network: "OPTIMISM",
        name: "OP Mainnet",
        minConfirm: 10,
        withdrawFee: "0.00005",
        withdrawMin: "0.0005",
        depositMin: "0.00005",
        staticFixedFee: "0",
        chainId: 10,
      },
    ],
  },
  {
    symbol: "USDC",
    name: "USD Coin",
    decimals: 6,
    quoteDecimals: 6,
    exchangeMin: "5",
    // Circle's native USDC on each network (not the bridged USDC.e), 6 decimals on chain.
    networks: [
      {
        network: "BASE",
        name: "Base",
        minConfirm: 10,
        withdrawFee: "0.1",
        withdrawMin: "1",
        depositMin: "0.5",
        staticFixedFee: "0",
        chainId: 8453,
        tokenContract: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913",
      },
      {
        network: "POLYGON",
        name: "Polygon PoS",
        minConfirm: 127,
        withdrawFee: "0.1",
        withdrawMin: "1",
        depositMin: "0.5",
        staticFixedFee: "0",
        chainId: 137,
        tokenContract: "0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359",
      },
      {
        network: "ARBITRUM",
        name: "Arbitrum One",
        minConfirm: 300,
        withdrawFee: "0.1",
        withdrawMin: "1",
        depositMin: "0.5",
        staticFixedFee: "0",
        chainId: 42161,
        tokenContract: "0xaf88d065e77c8cC2239327C5EDb3A432268e5831",
      },
      {
        network: "OPTIMISM",
        name: "OP Mainnet",
        minConfirm: 10,
        withdrawFee: "0.1",
        withdrawMin: "1",
        depositMin: "0.5",
        staticFixedFee: "0",
        chainId: 10,
        tokenContract: "0x0b2C639c533813f4Aa9D7837CAf62653d097Ff85",
      },
    ],
  },
  {
    symbol: "POL",
    name: "Polygon Ecosystem Token",
    decimals: 18,
    quoteDecimals: 8,
    exchangeMin: "20",
    networks: [
      { network: "POLYGON", name: "Polygon PoS", minConfirm: 127, withdrawFee: "0.05", withdrawMin: "1", depositMin: "0.5", staticFixedFee: "0", chainId: 137 },
    ],
  },
  {
    symbol: "USDT",
    name: "Tether",
    decimals: 6,
    quoteDecimals: 6,
    exchangeMin: "5",
    networks: [
      // Tron has no EIP-155 chain id and no wallet URI standard: the contract is kept for reference only.
      {
        network: "TRX",
        name: "Tron (TRC20)",
        minConfirm: 19,
        withdrawFee: "1",
        withdrawMin: "5",
        depositMin: "1",
        staticFixedFee: "1",
        tokenContract: "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t",
      },
      {
        network: "ETH",
        name: "Ethereum (ERC20)",
        minConfirm: 12,
        withdrawFee: "5",
        withdrawMin: "10",
        depositMin: "1",
        staticFixedFee: "0",
        chainId: 1,
        tokenContract: "0xdAC17F958D2ee523a2206206994597C13D831ec7",
      },
      {
        network: "BSC",
        name: "BNB Smart Chain (BEP20)",
        minConfirm: 15,
        withdrawFee: "0.5",
        withdrawMin: "5",
        depositMin: "1",
        staticFixedFee: "0",
        chainId: 56,
        tokenContract: "0x55d398326f99059fF775485246999027B3197955",
      },
    ],
  },
  {
    symbol: "LTC",
    name: "Litecoin",
    decimals: 8,
    quoteDecimals: 8,
    exchangeMin: "0.05",
    networks: [{ network: "LTC", name: "Litecoin", minConfirm: 6, withdrawFee: "0.001", withdrawMin: "0.01", depositMin: "0.001", staticFixedFee: "0" }],
  },
  {
    // Monero: 12 decimals (1 XMR = 10^12 piconero). 10 confirmations, as Monero's own wallets
    // lock received outputs for 10 blocks before they may be spent.
    symbol: "XMR",
    name: "Monero",
    decimals: 12,
    quoteDecimals: 8,
    exchangeMin: "0.05",
    networks: [{ network: "XMR", name: "Monero", minConfirm: 10, withdrawFee: "0.0005", withdrawMin: "0.005", depositMin: "0.001", staticFixedFee: "0" }],
  },
  {
    symbol: "TRX",
    name: "Tron",
    decimals: 6,
    quoteDecimals: 6,
    exchangeMin: "50",
    networks: [{ network: "TRX", name: "Tron", minConfirm: 19, withdrawFee: "1", withdrawMin: "10", depositMin: "1", staticFixedFee: "0" }],
  },
];

/** Fiat currencies an invoice may be priced in, with their decimals. */
export const DEFAULT_FIAT: Readonly<Record<string, number>> = { USD: 2, EUR: 2, GBP: 2, CHF: 2, CAD: 2, AUD: 2, JPY: 0 };

/** A network entry with its amounts parsed to smallest units. */
export interface Network extends Omit<NetworkConfig, "withdrawFee" | "withdrawMin" | "depositMin" | "staticFixedFee"> {
  withdrawFee: bigint;
  withdrawMin: bigint;
  depositMin: bigint;
  staticFixedFee: bigint;
}

/** A currency with parsed amounts. */
export interface Currency extends Omit<CurrencyConfig, "exchangeMin" | "networks"> {
  exchangeMin: bigint;
  networks: Network[];
}

/**
 * The currency list, parsed and checked once at start-up so that a bad entry fails at boot,
 * with lookups the request path uses.
 */
export class CurrencyCatalog {
  readonly currencies: readonly Currency[];
  private readonly bySymbol = new Map<string, Currency>();
  private readonly fiat: ReadonlyMap<string, number>;

  constructor(configs: readonly CurrencyConfig[], fiat: Readonly<Record<string, number>>) {
    this.currencies = configs.map((config) => parseCurrency(config));
    for (const currency of this.currencies) {
      if (this.bySymbol.has(currency.symbol)) throw new Error(`currencies: "${currency.symbol}" is listed twice`);
      this.bySymbol.set(currency.symbol, currency);
    }
    for (const [symbol, decimals] of Object.entries(fiat)) {
      if (this.bySymbol.has(symbol)) throw new Error(`fiat: "${symbol}" is also a crypto currency`);
      if (!Number.isInteger(decimals) || decimals < 0 || decimals > 8) {
        throw new Error(`fiat: decimals of "${symbol}" must be a whole number from 0 to 8`);
      }
    }
    this.fiat = new Map(Object.entries(fiat));
  }

  /** The crypto currency with this symbol, or undefined. */
  crypto(symbol: string): Currency | undefined {
    return this.bySymbol.get(symbol);
  }

  /** The network of a crypto currency, or undefined. */
  network(symbol: string, network: string): Network | undefined {
    return this.bySymbol.get(symbol)?.networks.find((entry) => entry.network === network);
  }

  /** The fiat currencies invoices may be priced in. */
  fiatSymbols(): string[] {
    return [...this.fiat.keys()];
  }

  /** Decimals of any currency an amount may be given in (fiat or crypto), or undefined. */
  decimalsOf(symbol: string): number | undefined {
    return this.fiat.get(symbol) ?? this.bySymbol.get(symbol)?.decimals;
  }

  /** Smallest step `payAmount` is quoted in, in the coin's units. */
  quoteStep(symbol: string): bigint {
    const currency = this.bySymbol.get(symbol);
    if (!currency) throw new Error(`unknown currency ${symbol}`);
    return pow10(currency.decimals - currency.quoteDecimals);
  }
}

function parseCurrency(config: CurrencyConfig): Currency {
  const where = `currencies: ${config.symbol}`;
  if (!/^[A-Z0-9]{2,10}$/.test(config.symbol)) throw new Error(`${where}: symbol must be 2-10 capital letters or digits`);
  if (!Number.isInteger(config.decimals) || config.decimals < 0 || config.decimals > 30) {
    throw new Error(`${where}: decimals must be a whole number from 0 to 30`);
  }
  if (!Number.isInteger(config.quoteDecimals) || config.quoteDecimals < 0 || config.quoteDecimals > Math.min(8, config.decimals)) {
    throw new Error(`${where}: quoteDecimals must be a whole number from 0 to min(8, decimals)`);
  }
  if (config.networks.length === 0) throw new Error(`${where}: at least one network is needed`);
  const amount = (field: string, text: string) => {
    try {
      const units = parseDecimal(text, config.decimals);
      if (units < 0n) throw new Error("negative");
      return units;
    } catch {
      throw new Error(`${where}: ${field} "${text}" is not a non-negative decimal with at most ${config.decimals} places`);
    }
  };
  const seen = new Set<string>();
  const networks = config.networks.map((network): Network => {
    if (seen.has(network.network)) throw new Error(`${where}: network "${network.network}" is listed twice`);
    seen.add(network.network);
    if (!Number.isInteger(network.minConfirm) || network.minConfirm < 1) {
      throw new Error(`${where}/${network.network}: minConfirm must be a whole number >= 1`);
    }
    // Both end up in the payer's wallet link: a wrong one would send funds to the wrong chain or contract.
    if (network.chainId !== undefined && (!Number.isSafeInteger(network.chainId) || network.chainId < 1)) {
      throw new Error(`${where}/${network.network}: chainId must be a whole number >= 1`);
    }
    if (network.tokenContract !== undefined && !/^[A-Za-z0-9]{20,64}$/.test(network.tokenContract)) {
      throw new Error(`${where}/${network.network}: tokenContract must be the token's contract address`);
    }
    if (network.chainId !== undefined && network.tokenContract !== undefined && !/^0x[0-9a-fA-F]{40}$/.test(network.tokenContract)) {
      throw new Error(`${where}/${network.network}: tokenContract on an EVM network (with a chainId) must be a 0x address of 40 hex digits`);
    }
    return {
      ...network,
      withdrawFee: amount(`${network.network}.withdrawFee`, network.withdrawFee),
      withdrawMin: amount(`${network.network}.withdrawMin`, network.withdrawMin),
      depositMin: amount(`${network.network}.depositMin`, network.depositMin),
      staticFixedFee: amount(`${network.network}.staticFixedFee`, network.staticFixedFee),
    };
  });
  return { ...config, exchangeMin: amount("exchangeMin", config.exchangeMin), networks };
}
