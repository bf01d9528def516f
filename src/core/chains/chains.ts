import { SANDBOX_CHAIN, type ChainAdapter, type ChainHost, type ChainStateStore } from "../ports/chain";
import type { Storage } from "../ports/storage/index";
import { PaymentError } from "../../errors";
import { mayReuseAddress } from "../deposits/addresses";
import type { Logger } from "../ports/logger";
import type { Currency, CurrencyCatalog, Network } from "../../currencies";
import type { Mode } from "../merchants/records";
import { recordUnlistedTransfer } from "../deposits/unlisted";

/**
 * The chain adapters of each mode and which one serves each coin/network pair of the currency
 * list. Built once at start-up, where every conflict is a boot error: the request path only
 * looks pairs up.
 */
export class ChainSet {
  private readonly served: Record<Mode, Map<string, ChainAdapter>>;
  /** Chains whose node serves another network than configured: why, by adapter. */
  private readonly refused = new Map<ChainAdapter, string>();

  constructor(
    private readonly adapters: Record<Mode, readonly ChainAdapter[]>,
    currencies: CurrencyCatalog,
  ) {
    this.served = { test: servedPairs(adapters.test, currencies, "test"), live: servedPairs(adapters.live, currencies, "live") };
  }

  /** Every adapter of `mode`, in the order the host gave them. */
  all(mode: Mode): readonly ChainAdapter[] {
    return this.adapters[mode];
  }

  /** The adapter serving `coin` on `network` in `mode`, or undefined. */
  forPair(mode: Mode, coin: string, network: string): ChainAdapter | undefined {
    return this.served[mode].get(pairKey(coin, network));
  }

  /** Whether `mode` serves `coin` on `network` (by configuration, refused or not). */
  serves(mode: Mode, coin: string, network: string): boolean {
    return this.served[mode].has(pairKey(coin, network));
  }

  /**
   * Whether `mode` offers `coin` on `network` to payers and merchants now: served, and its chain
   * not refused. A refused chain stays configured (its payments are still looked after), but
   * nothing new is offered on it: not on the hosted page, the currency list or the pair list.
   */
  offers(mode: Mode, coin: string, network: string): boolean {
    const adapter = this.forPair(mode, coin, network);
    return adapter !== undefined && !this.refused.has(adapter);
  }

  /**
   * The currency list as `mode` serves it: each currency with only its served networks, and
   * only currencies with one at least (live mode lists what a configured chain can take).
   * `minConfirm` is the serving chain's: what the merchant sees is when deposits are credited.
   */
  currencies(mode: Mode, catalog: CurrencyCatalog): Currency[] {
    return this.listed(mode, catalog, (currency) => this.networks(mode, currency));
  }

  /**
   * The currency list as `mode` offers it now (`offers`): as `currencies`, without the networks
   * of a chain refused at its start-up check. What the currency and pair lists answer.
   */
  offered(mode: Mode, catalog: CurrencyCatalog): Currency[] {
    return this.listed(mode, catalog, (currency) => this.networks(mode, currency).filter(({ network }) => this.offers(mode, currency.symbol, network)));
  }

  private listed(mode: Mode, catalog: CurrencyCatalog, networks: (currency: Currency) => Network[]): Currency[] {
    return catalog.currencies
      .map((currency) => ({
        ...currency,
        networks: networks(currency).map((network) => ({ ...network, minConfirm: this.confirmations(mode, currency.symbol, network) })),
      }))
      .filter((currency) => currency.networks.length > 0);
  }

  /** The networks of `currency` that `mode` serves, in currency-list order. */
  networks(mode: Mode, currency: Currency): Network[] {
    return currency.networks.filter(({ network }) => this.serves(mode, currency.symbol, network));
  }

  /**
   * Confirmations after which a deposit of `coin` on `network` is final and credited in `mode`:
   * the serving chain's own setting (evmChain's or bitcoinChain's `confirmations`), else the
   * currency list's `minConfirm`. The chain stops following a deposit there, so core credits
   * there too: two numbers would leave deposits waiting for ever.
   */
  confirmations(mode: Mode, coin: string, network: Network): number {
    return this.forPair(mode, coin, network.network)?.requiredConfirmations?.(coin, network.network) ?? network.minConfirm;
  }

  /**
   * Takes a chain out of service for good (until the process restarts with a fixed
   * configuration): its node serves another network than configured. Its coins then answer 503
   * with `reason`, are no longer offered (`offers`), and the background work no longer scans it.
   */
  refuse(adapter: ChainAdapter, reason: string): void {
    this.refused.set(adapter, reason);
  }

  /** Why `adapter` was taken out of service, or undefined while it serves. */
  refusal(adapter: ChainAdapter): string | undefined {
    return this.refused.get(adapter);
  }

  /** The pairs `mode` serves, as "COIN/NETWORK" strings in currency-list order (for messages). */
  describe(mode: Mode): string {
    return [...this.served[mode].keys()].join(", ") || "none";
  }

  /**
   * The adapter for a pair, or the error a request gets: 503 when the mode has no chain at all
   * (live mode before the host configured one) or when the pair's chain was refused at its
   * start-up check, 400 naming what is served when only this pair is missing.
   */
  require(mode: Mode, coin: string, network: string): ChainAdapter {
    const adapter = this.forPair(mode, coin, network);
    const refused = adapter && this.refused.get(adapter);
    if (refused) throw new PaymentError("chain_unavailable", `${coin} on ${network} is out of service: ${refused}`);
    if (adapter) return adapter;
    this.requireAny(mode);
    throw new PaymentError("unsupported_currency", `${coin} on ${network} is not served in ${mode} mode; served: ${this.describe(mode)}.`);
  }

  /** Throws the 503 of a mode with no chain configured. */
  requireAny(mode: Mode): void {
    if (this.adapters[mode].length > 0) return;
    throw new PaymentError(
      "chain_unavailable",
      "Live mode has no chain adapter configured: pass `chains` to createPaymentRouter() to accept live payments (see docs/chains.md).",
    );
  }
}

function pairKey(coin: string, network: string): string {
  return `${coin}/${network}`;
}

/**
 * Which adapter serves each pair of the currency list. Two adapters claiming one pair, two
 * adapters under one feed id (they would share a stored cursor), an adapter serving nothing
 * listed, and the sandbox in live mode are configuration mistakes, refused here.
 */
function servedPairs(adapters: readonly ChainAdapter[], currencies: CurrencyCatalog, mode: Mode): Map<string, ChainAdapter> {
  const served = new Map<string, ChainAdapter>();
  const feeds = new Map<string, ChainAdapter>();
  for (const adapter of adapters) {
    if (mode === "live" && isSandbox(adapter)) {
      throw new TypeError(
        'createPaymentRouter: the sandbox chain simulates payments and cannot serve live mode; test mode uses it already. Pass a real adapter such as evmChain() from "express-crypto-pay/evm".',
      );
    }
    const feed = adapter.feedId ?? adapter.name;
    const twin = feeds.get(feed);
    if (twin) throw new TypeError(`createPaymentRouter: two chain adapters use the feed id "${feed}"; each needs its own (they would share one stored cursor)`);
    feeds.set(feed, adapter);
    let servesAny = false;
    for (const currency of currencies.currencies) {
      for (const { network } of currency.networks) {
        if (!adapter.supports(currency.symbol, network)) continue;
        servesAny = true;
        const key = pairKey(currency.symbol, network);
        const claimed = served.get(key);
        if (claimed && mode === "live") {
          throw new TypeError(
            `createPaymentRouter: ${key} is claimed by two chain adapters ("${claimed.feedId ?? claimed.name}" and "${feed}"); give each pair to one`,
          );
        }
        if (!claimed) served.set(key, adapter);
      }
    }
    if (!servesAny) throw new TypeError(`createPaymentRouter: the chain adapter "${feed}" serves none of the currency list's coin/network pairs`);
  }
  return served;
}

function isSandbox(adapter: ChainAdapter): boolean {
  return (adapter as { [SANDBOX_CHAIN]?: boolean })[SANDBOX_CHAIN] === true;
}

/**
 * What the service hands a chain adapter (`ChainAdapter.bind`): confirmations from the currency
 * list, lookups of issued addresses, the record of unlisted-token transfers, and durable state
 * kept in the storage's named values under "chain:", locked per name across every instance on
 * the same storage.
 */
export function chainHost(options: {
  storage: Storage;
  currencies: CurrencyCatalog;
  mode: Mode;
  logger: Logger;
  now?: () => number;
  lateWindowMs?: number;
}): ChainHost {
  const { storage, currencies, mode, logger } = options;
  const now = options.now ?? Date.now;
  const lateWindowMs = options.lateWindowMs ?? 60 * 60_000;
  const named = (key: string) => `chain:${key}`;
  const state: ChainStateStore = {
    get: (key) => storage.getCursor(named(key)),
    withLock: (key, work) =>
      storage.transaction(async (tx) => {
        await tx.lockCursor(named(key));
        return work({ get: (other) => tx.getCursor(named(other)), set: (other, value) => tx.setCursor(named(other), value) });
      }),
  };
  return {
    mode,
    logger,
    state,
    listed: (coin, network) => currencies.network(coin, network) !== undefined,
    minConfirm(coin, network) {
      const entry = currencies.network(coin, network);
      if (!entry) throw new Error(`${coin} on ${network} is not in the currency list`);
      return entry.minConfirm;
    },
    networkOf(coin, network) {
      const entry = currencies.network(coin, network);
      return entry && { chainId: entry.chainId, tokenContract: entry.tokenContract };
    },
    decimals(coin) {
      const currency = currencies.crypto(coin);
      if (!currency) throw new Error(`${coin} is not in the currency list`);
      return currency.decimals;
    },
    async issuedAddresses(network, addresses) {
      if (addresses.length === 0) return [];
      const found = await storage.findAddresses(mode, network, addresses);
      return found.map(({ address, coin, invoiceId }) => ({ address, coin, invoiceId }));
    },
    reportUnlisted: (transfer) => recordUnlistedTransfer({ storage, logger, now }, mode, transfer),
    now: () => now(),
    async addressUse(network, addresses, merchantId) {
      if (addresses.length === 0) return [];
      const found = await storage.findAddresses(mode, network, addresses);
      return Promise.all(
        found.map(async (record) => {
          const invoice = await storage.findInvoice(record.invoiceId);
          const deposits = invoice ? await storage.listDepositsForInvoice(invoice.id) : [];
          return {
            address: record.address,
            received: deposits.some((deposit) => deposit.address === record.address),
            reusable: invoice !== null && mayReuseAddress(invoice, deposits, merchantId, now(), lateWindowMs),
          };
        }),
      );
    },
  };
}
