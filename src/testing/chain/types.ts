import type { ChainAdapter } from "../../core/ports/chain";
import type { CurrencyConfig } from "../../currencies";

/** A coin on a network, as the currency list names them ("USDT" on "ETH"). */
export interface ChainTestPair {
  coin: string;
  network: string;
}

/**
 * One adapter under test, with the driver that plays everyone else on its chain: the payer, the
 * miner and a reorg. A sandbox drives its simulation; a live adapter drives a local node
 * (anvil, bitcoind in regtest...).
 */
export interface ChainTestSubject {
  /**
   * The adapter, not yet bound: the suite binds it (`bind`) to a host of its own, in live mode,
   * on a fresh in-memory storage for each test. Return a new adapter for every call of
   * `createSubject` even when the chain behind it lives per file.
   */
  adapter: ChainAdapter;
  /**
   * The coin/network pairs to exercise. Each must be supported by the adapter and be in the
   * currency list. Two coins of one network (ETH and USDT on ETH) also run the stray-coin tests:
   * each coin sent to an address issued for the other.
   */
  pairs: ChainTestPair[];
  /**
   * Well-formed payout destinations, per network (at least one for each network of `pairs`).
   * Payouts are sent to them: on a live chain they must accept the coin (no code that refuses
   * it). Networks that share an address format (ETH and BSC) may list each other's addresses.
   */
  validAddresses: Record<string, string[]>;
  /**
   * Malformed destinations per network: a bad checksum, the wrong length, the burn address,
   * another network's format... The suite adds garbage of its own (empty, 10,000 characters,
   * NUL, unicode, padding) and, on the network codes of the default rule table, addresses of
   * the other address families.
   */
  invalidAddresses: Record<string, string[]>;
  /**
   * Plays the payer: sends `amount` (ledger units, at the currency list's decimals) of the
   * pair's coin to `address` in a transfer of its own, and resolves once the transfer is in the
   * chain (or the mempool), with 0 or more confirmations.
   */
  pay(pair: ChainTestPair, address: string, amount: bigint): Promise<{ txHash: string }>;
  /** Plays the miner: adds `blocks` confirmations to every transfer on the chain, payouts included. */
  confirm(blocks: number): Promise<void>;
  /**
   * Remembers where the chain is now, for a later `dropSince`. Returns an opaque token the suite
   * only passes back.
   */
  mark(): Promise<unknown>;
  /**
   * A reorg: every transfer made since `mark()` leaves the chain for good (not re-mined), and
   * the chain that replaces it is longer than the one it replaces. The suite calls it while
   * those transfers are not yet final, and once after they were final (a reorg deeper than the
   * pair's minConfirm, which the adapter must still report).
   */
  dropSince(mark: unknown): Promise<void>;
  /**
   * What the chain says `address` holds of the pair's coin, in ledger units. Only differences
   * are compared, so an address may hold funds before the test.
   */
  balanceOf(pair: ChainTestPair, address: string): Promise<bigint>;
  /** The currency list of the host the adapter is bound to. Default: DEFAULT_CURRENCIES. */
  currencies?: CurrencyConfig[];
  /**
   * True for an adapter whose hot wallet pays out of what its own deposit addresses received
   * (a UTXO wallet such as bitcoinChain's): before each payout test the suite pays
   * `payoutFunding` (default 100 payout amounts) to a freshly issued address and reads the feed
   * until that deposit is final, as the service does. Default false: the hot wallet is funded by
   * the subject (an EVM hot wallet holds its own float).
   */
  payoutsSpendDeposits?: boolean;
}

/** Options of {@link runChainAdapterTests}. */
export interface ChainAdapterTestOptions {
  /** The name the suite is reported under. Default "chain adapter". */
  name?: string;
  /**
   * The coin/network pairs every subject serves: the same as each subject's `pairs` (checked),
   * but known before any subject is created, when the suite registers its tests. Tests that
   * need two coins on one network (the stray-coin ones) are then registered only when the
   * pairs have them: a subject with one coin per network gets none, rather than tests that
   * skip. Without it they are registered, and skipped at run time, saying why.
   */
  pairs?: ChainTestPair[];
  /**
   * A fresh subject for one test, called before each test. The adapter must be new each time
   * (the suite binds it to a host with empty storage); what is expensive may be shared by every
   * test of a file: one node started in `beforeAll`, one token contract. The suite tells its
   * tests apart by fresh invoice and payout ids, so a shared chain needs no cleaning.
   */
  createSubject: () => ChainTestSubject | Promise<ChainTestSubject>;
  /** Tears one test's subject down. Default: `subject.adapter.close?.()`. */
  destroySubject?: (subject: ChainTestSubject) => void | Promise<void>;
}
