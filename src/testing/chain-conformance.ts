import { afterEach, beforeEach, describe } from "vitest";
import type { ChainAdapter } from "../core/ports/chain";
import { memoryStorage } from "../adapters/storage/memory";
import { chainHost } from "../core/chains";
import { CurrencyCatalog, DEFAULT_CURRENCIES, DEFAULT_FIAT, type CurrencyConfig } from "../currencies";
import { addressTests } from "./chain/addresses";
import { ChainTestRun, recordingLogger, type ChainSuiteContext } from "./chain/context";
import { depositTests } from "./chain/deposits";
import { payoutTests } from "./chain/payouts";
import { reorgTests } from "./chain/reorgs";
import { strayTests } from "./chain/strays";

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
   * A fresh subject for one test, called before each test. The adapter must be new each time
   * (the suite binds it to a host with empty storage); what is expensive may be shared by every
   * test of a file: one node started in `beforeAll`, one token contract. The suite tells its
   * tests apart by fresh invoice and payout ids, so a shared chain needs no cleaning.
   */
  createSubject: () => ChainTestSubject | Promise<ChainTestSubject>;
  /** Tears one test's subject down. Default: `subject.adapter.close?.()`. */
  destroySubject?: (subject: ChainTestSubject) => void | Promise<void>;
}

/**
 * Runs the contract of the `ChainAdapter` interface as vitest tests, against a real chain or a
 * simulated one: addresses issued once per invoice; address validation that refuses garbage
 * without throwing; a deposit feed that reports exact amounts as whole states, follows
 * confirmations until final, repeats at most, runs dry when nothing changes and reports
 * transfers that a reorg removed as dropped, even after they were final (a deep reorg); a coin sent to an address issued for another coin
 * of the same network, reported as the coin sent (skipped, with the reason in the output, for
 * a subject whose pairs have one coin per network); payouts that are sent once per payout id, however
 * often or concurrently they are asked for, and confirm.
 *
 * The suite stands in for the service: it binds the adapter to a host made by the same
 * `chainHost()` the router uses (live mode, a fresh memory storage per test), records every
 * address the adapter issues in that storage as core does, and reads the feed as core's deposit
 * sync does (from the stored cursor, storing the returned one, looping while `hasMore`).
 * Everything else on the chain is played by the subject's driver.
 *
 * Call it at the top level of a test file, once per adapter:
 *
 * ```ts
 * import { runChainAdapterTests } from "express-crypto-pay/testing";
 *
 * let node: MyDevNode; // started once for the file: the tests share it
 * beforeAll(async () => { node = await startMyDevNode(); });
 * afterAll(() => node.stop());
 *
 * runChainAdapterTests({
 *   name: "myChain",
 *   createSubject: () => ({
 *     adapter: myChain({ rpcUrl: node.url, hotWallet: node.key(9) }),
 *     pairs: [{ coin: "MYC", network: "MYNET" }],
 *     validAddresses: { MYNET: ["myc1q..."] },
 *     invalidAddresses: { MYNET: ["myc1q...typo"] },
 *     pay: (pair, address, amount) => node.send(address, amount),
 *     confirm: (blocks) => node.mine(blocks),
 *     mark: () => node.snapshot(),
 *     dropSince: (mark) => node.reorgFrom(mark),
 *     balanceOf: (pair, address) => node.balance(address),
 *   }),
 * });
 * ```
 */
export function runChainAdapterTests(options: ChainAdapterTestOptions): void {
  let current: ChainTestRun | null = null;
  const context: ChainSuiteContext = {
    run: () => {
      if (!current) throw new Error("runChainAdapterTests: no subject; createSubject has not run for this test");
      return current;
    },
  };

  describe(`${options.name ?? "chain adapter"} conforms to the ChainAdapter contract`, () => {
    beforeEach(async () => {
      const subject = await options.createSubject();
      checkSubject(subject);
      const storage = memoryStorage();
      const logger = recordingLogger();
      const currencies = new CurrencyCatalog(subject.currencies ?? DEFAULT_CURRENCIES, DEFAULT_FIAT);
      const run = new ChainTestRun(subject, storage, currencies, logger);
      current = run;
      subject.adapter.bind?.(chainHost({ storage, currencies, mode: "live", logger }));
    });
    afterEach(async () => {
      const run = current;
      current = null;
      if (!run) return;
      try {
        await (options.destroySubject ? options.destroySubject(run.subject) : run.subject.adapter.close?.());
      } finally {
        await run.storage.close();
      }
    });

    addressTests(context);
    depositTests(context);
    strayTests(context);
    reorgTests(context);
    payoutTests(context);
  });
}

/** A subject the suite cannot run is the test author's mistake: say which field, before any test. */
function checkSubject(subject: ChainTestSubject): void {
  const where = "runChainAdapterTests: createSubject()";
  if (!subject || typeof subject !== "object" || !subject.adapter) throw new TypeError(`${where} must return { adapter, pairs, ... }`);
  if (!Array.isArray(subject.pairs) || subject.pairs.length === 0) throw new TypeError(`${where}.pairs must list at least one { coin, network }`);
  for (const name of ["pay", "confirm", "mark", "dropSince", "balanceOf"] as const) {
    if (typeof subject[name] !== "function") throw new TypeError(`${where}.${name} must be a function (every driver method is required)`);
  }
  for (const { network } of subject.pairs) {
    if (!(subject.validAddresses?.[network]?.length ?? 0)) throw new TypeError(`${where}.validAddresses.${network} must list at least one payout destination`);
    if (!Array.isArray(subject.invalidAddresses?.[network])) throw new TypeError(`${where}.invalidAddresses.${network} must be a list (it may be empty)`);
  }
}
