import { afterEach, beforeEach, describe } from "vitest";
import type { PricingAdapter } from "../core/ports/pricing";
import { callTests } from "./pricing/calls";
import { consistencyTests } from "./pricing/consistency";
import type { PricingSuiteContext } from "./pricing/context";
import { quoteTests } from "./pricing/quotes";
import { PLAIN_DECIMAL, readRatio, type Ratio } from "./pricing/ratio";

/** Options of {@link runPricingAdapterTests}. */
export interface PricingAdapterTestOptions {
  /** The name the suite is reported under. Default "pricing adapter". */
  name?: string;
  /**
   * A fresh adapter for one test, called before each test, bound and ready to quote: the suite
   * awaits it and calls nothing but `getRate` (and `close` after the test). An adapter that
   * reads live sources should be given scripted ones here (see the example below), and its first
   * read awaited, so that the tests judge the adapter and not the network.
   */
  createAdapter: () => PricingAdapter | Promise<PricingAdapter>;
  /** Tears one test's adapter down. Default: `adapter.close?.()`. */
  destroyAdapter?: (adapter: PricingAdapter) => void | Promise<void>;
  /**
   * Assets the adapter must price against each other, e.g. `["BTC", "ETH", "USDT", "USD", "EUR"]`:
   * every ordered pair is quoted, and every pair and triple is checked for consistency. At least
   * two, distinct, in the adapter's own symbols.
   */
  assets: string[];
  /**
   * A pair the adapter does not know, e.g. `["DOGE", "XAU"]`: getRate must answer null (not
   * throw). At least one of the two must not be in `assets`; each such asset is also asked
   * against every known asset, both ways round.
   */
  unknownPair: [string, string];
  /**
   * Relative tolerance of the inverse and cross consistency tests, as a decimal string. Default
   * "0.000000000001" (10^-12): rates carry 18 decimals. On top of it each rate is allowed two
   * units of its 18th decimal, the rounding no adapter can avoid (it only matters for small rates
   * such as a cheap coin in BTC).
   */
  tolerance?: string;
}

const DEFAULT_TOLERANCE = "0.000000000001";

/**
 * Runs the contract of the `PricingAdapter` interface as vitest tests: every ordered pair of
 * `assets` is quoted as a plain positive decimal string of at most 18 decimals (never "1.2e-7",
 * never "0"), with a valid `at` that is not in the future and `sources`, when given, as non-empty
 * names; an asset is worth exactly "1" of itself; a rate and its inverse multiply to 1, and a
 * rate through a third asset is the direct rate, within the tolerance (exact bigint fractions,
 * no floats); a pair the adapter does not know answers null rather than throwing; concurrent
 * calls agree; answers are the caller's to change; and `at` never goes backwards for a pair.
 *
 * Only `getRate` is exercised, on a fresh adapter per test, as the service uses it: the adapter
 * is not asked to be unavailable (a throw for a known pair fails the tests that quote it).
 *
 * Call it at the top level of a test file, once per adapter:
 *
 * ```ts
 * import { runPricingAdapterTests } from "express-crypto-pay/testing";
 *
 * // A table of your own: nothing to prepare.
 * runPricingAdapterTests({
 *   name: "myTable",
 *   createAdapter: () => myTable({ BTC: "60000", ETH: "3000", EUR: "1.08" }),
 *   assets: ["BTC", "ETH", "USD", "EUR"],
 *   unknownPair: ["DOGE", "XAU"],
 * });
 *
 * // A live feed: give it a scripted upstream, bind it and let it read once before the tests.
 * runPricingAdapterTests({
 *   name: "myFeed",
 *   createAdapter: async () => {
 *     const adapter = myFeed({ fetch: scriptedUpstream({ BTC: "60000", ETH: "3000", EUR: "1.08" }) });
 *     adapter.bind({ assets: ["BTC", "ETH", "EUR"], logger: console });
 *     await adapter.refresh();
 *     return adapter;
 *   },
 *   destroyAdapter: (adapter) => adapter.close?.(), // the default
 *   assets: ["BTC", "ETH", "USD", "EUR"],
 *   unknownPair: ["DOGE", "XAU"],
 * });
 * ```
 */
export function runPricingAdapterTests(options: PricingAdapterTestOptions): void {
  const checked = checkOptions(options);
  let current: PricingAdapter | null = null;
  const context: PricingSuiteContext = {
    ...checked,
    adapter: () => {
      if (!current) throw new Error("runPricingAdapterTests: no adapter; createAdapter has not run for this test");
      return current;
    },
  };

  describe(`${options.name ?? "pricing adapter"} conforms to the PricingAdapter contract`, () => {
    beforeEach(async () => {
      const adapter = await options.createAdapter();
      if (!adapter || typeof adapter.getRate !== "function")
        throw new TypeError("runPricingAdapterTests: createAdapter() must return a PricingAdapter (an object with getRate)");
      current = adapter;
    });
    afterEach(async () => {
      const adapter = current;
      current = null;
      if (adapter) await (options.destroyAdapter ? options.destroyAdapter(adapter) : adapter.close?.());
    });

    quoteTests(context);
    consistencyTests(context);
    callTests(context);
  });
}

/** Options the suite cannot run with are the test author's mistake: say which, before any test. */
function checkOptions(options: PricingAdapterTestOptions): Omit<PricingSuiteContext, "adapter"> {
  const where = "runPricingAdapterTests:";
  if (!options || typeof options.createAdapter !== "function") throw new TypeError(`${where} createAdapter must be a function that returns a fresh adapter`);
  const { assets, unknownPair } = options;
  if (!Array.isArray(assets) || assets.length < 2 || assets.some((asset) => typeof asset !== "string" || asset.length === 0)) {
    throw new TypeError(`${where} assets must list at least two asset symbols, e.g. ["BTC", "USD"]`);
  }
  const twin = assets.find((asset, i) => assets.indexOf(asset) !== i);
  if (twin) throw new TypeError(`${where} assets lists "${twin}" twice`);
  if (!Array.isArray(unknownPair) || unknownPair.length !== 2 || unknownPair.some((asset) => typeof asset !== "string" || asset.length === 0)) {
    throw new TypeError(`${where} unknownPair must be two asset symbols the adapter does not price, e.g. ["DOGE", "XAU"]`);
  }
  const unknownAssets = [...new Set(unknownPair.filter((asset) => !assets.includes(asset)))];
  if (unknownAssets.length === 0) {
    throw new TypeError(
      `${where} unknownPair ${JSON.stringify(unknownPair)} is made of assets the adapter must price; name at least one asset it does not know`,
    );
  }
  return { assets: [...assets], unknownPair: [unknownPair[0], unknownPair[1]], unknownAssets, tolerance: readTolerance(options.tolerance) };
}

function readTolerance(tolerance: string | undefined): Ratio {
  const text = tolerance ?? DEFAULT_TOLERANCE;
  const value = typeof text === "string" && PLAIN_DECIMAL.test(text) ? readRatio(text) : null;
  if (!value || value.n >= value.d) {
    throw new TypeError(
      `runPricingAdapterTests: tolerance must be a decimal string below 1, e.g. "${DEFAULT_TOLERANCE}", got ${JSON.stringify(tolerance) ?? String(tolerance)}`,
    );
  }
  return value;
}
