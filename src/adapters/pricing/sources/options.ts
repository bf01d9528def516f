/**
 * Option checks shared by the price sources: each factory validates its options once, at
 * creation, and a bad one throws a TypeError naming it (never at the first refresh).
 */

import { refuseUnknownOptions } from "../../../options-error";

/** Options every HTTP price source takes. */
export interface HttpSourceOptions {
  /**
   * Where the provider's API is: an http(s) URL, optionally with a path prefix (a proxy).
   * Default: the provider's public API origin.
   */
  baseUrl?: string;
  /** How long one `fetch` may take, in ms. Default 5000. */
  timeoutMs?: number;
  /**
   * Our symbol -> the provider's name for it, on top of the built-in table ("BTC" -> "XBTUSD"
   * for Kraken, "bitcoin" for CoinGecko, ...). `null` removes a built-in entry.
   */
  symbols?: Record<string, string | null>;
}

/** The default of `timeoutMs`. */
export const DEFAULT_TIMEOUT_MS = 5000;

// setTimeout's limit: a larger delay fires at once.
const MAX_TIMEOUT_MS = 2_147_483_647;

// Our symbols: "BTC", "USDT", "JPY". Capitals, so that a lower-case typo is caught at start-up.
const OUR_SYMBOL = /^[A-Z0-9]{2,15}$/;

/** `options` as a record, after checking it is an object with no key outside `known`. */
export function optionsRecord(source: string, options: unknown, known: readonly string[]): Record<string, unknown> {
  if (options === undefined) return {};
  if (options === null || typeof options !== "object" || Array.isArray(options)) {
    throw new TypeError(`${source}: options must be an object`);
  }
  refuseUnknownOptions(source, options, known);
  return options as Record<string, unknown>;
}

/**
 * The `baseUrl` option without a trailing slash, or `fallback`. The value is not echoed in the
 * error: a URL may carry credentials.
 */
export function checkBaseUrl(source: string, value: unknown, fallback: string, option = "baseUrl"): string {
  if (value === undefined) return fallback;
  let url: URL | null = null;
  try {
    url = typeof value === "string" ? new URL(value) : null;
  } catch {
    url = null;
  }
  if (!url || (url.protocol !== "http:" && url.protocol !== "https:")) {
    throw new TypeError(`${source}: ${option} must be an http(s) URL such as "${fallback}"`);
  }
  if (url.search || url.hash) throw new TypeError(`${source}: ${option} must not have a query or a fragment`);
  return url.href.replace(/\/+$/, "");
}

/** The `timeoutMs` option: a whole number of milliseconds >= 1, default 5000. */
export function checkTimeout(source: string, value: unknown): number {
  if (value === undefined) return DEFAULT_TIMEOUT_MS;
  if (typeof value !== "number" || !Number.isInteger(value) || value < 1 || value > MAX_TIMEOUT_MS) {
    throw new TypeError(`${source}: timeoutMs must be a whole number of milliseconds >= 1, got ${String(value)}`);
  }
  return value;
}

/**
 * The built-in table `defaults` with the overrides of the option `option` applied: each key is
 * one of our symbols, each value is checked by `check` (which returns the entry or throws a
 * message), and null removes an entry.
 */
export function symbolTable<T>(
  source: string,
  option: string,
  value: unknown,
  defaults: Readonly<Record<string, T>>,
  check: (value: unknown) => T,
): Map<string, T> {
  const table = new Map<string, T>(Object.entries(defaults));
  if (value === undefined) return table;
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new TypeError(`${source}: ${option} must be an object mapping our symbols to the provider's names`);
  }
  for (const [symbol, entry] of Object.entries(value)) {
    if (!OUR_SYMBOL.test(symbol)) {
      throw new TypeError(`${source}: ${option} keys are our symbols in capitals ("BTC", "EUR"), got ${JSON.stringify(symbol)}`);
    }
    if (entry === null) {
      table.delete(symbol);
      continue;
    }
    try {
      table.set(symbol, check(entry));
    } catch (error) {
      throw new TypeError(`${source}: ${option}.${symbol}: ${(error as Error).message}`);
    }
  }
  return table;
}

/** A `check` for `symbolTable`: a string matching `pattern`, described by `description`. */
export function nameMatching(pattern: RegExp, description: string): (value: unknown) => string {
  return (value) => {
    if (typeof value !== "string" || !pattern.test(value)) throw new Error(`must be ${description}, got ${JSON.stringify(value)}`);
    return value;
  };
}

/** The distinct `bases` that `table` knows, in the order asked. */
export function knownBases(bases: readonly string[], table: ReadonlyMap<string, unknown>): string[] {
  return [...new Set(bases)].filter((base) => table.has(base));
}
