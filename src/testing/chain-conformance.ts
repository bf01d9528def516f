import { afterEach, beforeEach, describe } from "vitest";
import { memoryStorage } from "../adapters/storage/memory/index";
import { chainHost } from "../core/chains/chains";
import { CurrencyCatalog, DEFAULT_CURRENCIES, DEFAULT_FIAT } from "../currencies";
import { addressTests } from "./chain/addresses";
import { ChainTestRun, label, recordingLogger, type ChainSuiteContext } from "./chain/context";
import { depositTests } from "./chain/deposits";
import { payoutTests } from "./chain/payouts";
import { reorgTests } from "./chain/reorgs";
import { strayTests } from "./chain/strays";
import type { ChainAdapterTestOptions, ChainTestPair, ChainTestSubject } from "./chain/types";

export type { ChainAdapterTestOptions, ChainTestPair, ChainTestSubject } from "./chain/types";

/**
 * Runs the contract of the `ChainAdapter` interface as vitest tests, against a real chain or a
 * simulated one: addresses issued once per invoice; address validation that refuses garbage
 * without throwing; a deposit feed that reports exact amounts as whole states, follows
 * confirmations until final, repeats at most, runs dry when nothing changes and reports
 * transfers that a reorg removed as dropped, even after they were final (a deep reorg); a coin sent to an address issued for another coin
 * of the same network, reported as the coin sent (a contract that needs two coins on one
 * network: given `pairs` with one coin per network, the suite registers none of its tests and
 * says so in the run's output); payouts that are sent once per payout id, however
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
 * const pairs = [{ coin: "MYC", network: "MYNET" }];
 * runChainAdapterTests({
 *   name: "myChain",
 *   pairs, // known before the node runs: the suite registers only the tests that apply to them
 *   createSubject: () => ({
 *     adapter: myChain({ rpcUrl: node.url, hotWallet: node.key(9) }),
 *     pairs,
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

  const name = options.name ?? "chain adapter";
  describe(`${name} conforms to the ChainAdapter contract`, () => {
    beforeEach(async () => {
      const subject = await options.createSubject();
      checkSubject(subject, options.pairs);
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
    strayTests(context, { name, pairs: options.pairs });
    reorgTests(context);
    payoutTests(context);
  });
}

/**
 * A subject the suite cannot run is the test author's mistake: say which field, before any test.
 * With the suite's `pairs`, the subject's must be the same (the tests were registered for them).
 */
function checkSubject(subject: ChainTestSubject, pairs: readonly ChainTestPair[] | undefined): void {
  const where = "runChainAdapterTests: createSubject()";
  if (!subject || typeof subject !== "object" || !subject.adapter) throw new TypeError(`${where} must return { adapter, pairs, ... }`);
  if (!Array.isArray(subject.pairs) || subject.pairs.length === 0) throw new TypeError(`${where}.pairs must list at least one { coin, network }`);
  if (pairs && !samePairs(subject.pairs, pairs)) {
    throw new TypeError(`${where}.pairs (${subject.pairs.map(label).join(", ")}) must be the suite's pairs (${pairs.map(label).join(", ")})`);
  }
  for (const name of ["pay", "confirm", "mark", "dropSince", "balanceOf"] as const) {
    if (typeof subject[name] !== "function") throw new TypeError(`${where}.${name} must be a function (every driver method is required)`);
  }
  for (const { network } of subject.pairs) {
    if (!(subject.validAddresses?.[network]?.length ?? 0)) throw new TypeError(`${where}.validAddresses.${network} must list at least one payout destination`);
    if (!Array.isArray(subject.invalidAddresses?.[network])) throw new TypeError(`${where}.invalidAddresses.${network} must be a list (it may be empty)`);
  }
}

/** Whether two lists name the same coin/network pairs, in any order. */
function samePairs(a: readonly ChainTestPair[], b: readonly ChainTestPair[]): boolean {
  const labels = (pairs: readonly ChainTestPair[]) => [...new Set(pairs.map(label))].sort().join(",");
  return labels(a) === labels(b);
}
