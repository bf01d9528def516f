import { PriceSourceError } from "./types";

/**
 * What a source does about pairs its provider does not list. Kraken's ticker refuses a whole
 * request that names one unknown pair ("EQuery:Unknown asset pair") and Binance's answers 400
 * (-1121 "Invalid symbol.") to a `symbols` list holding one unknown symbol, without saying which:
 * the unknown ones are found from the refusal itself, by asking again in halves, and remembered,
 * so that every later read asks for the listed pairs in one request, and for each remembered one
 * alone, so that a pair the provider lists again counts from the next read on.
 *
 * The refusal is used rather than the providers' pair lists (Kraken's AssetPairs, Binance's
 * exchangeInfo): those lists are hundreds of kB to MBs a read, answer the same refusal when
 * asked for named pairs, and a pair that is listed but not traded any more is still refused by
 * the ticker, which is what decides whether a price can be had.
 */

/** A provider refused a request because it names a pair it does not list (which one it did not say). */
export class PairNotListedError extends PriceSourceError {
  constructor(source: string, message: string) {
    super(source, message);
    this.name = "PairNotListedError";
  }
}

/** The result of {@link ListedPairs.read}: the answer for each listed name, and the names not listed. */
export interface ListedAnswer<V> {
  found: Map<string, V>;
  notListed: string[];
}

/** The pairs one source found its provider not to list, kept from read to read. */
export class ListedPairs {
  private notListed = new Set<string>();

  /**
   * Asks `ask` for `names` (the provider's pair names): once for the names not known to be
   * unlisted, splitting a refused request in halves until each refusal names a single pair, and
   * once per name found unlisted before, alone. Any other failure of the main request fails the
   * read; a remembered name whose own request fails another way stays out of this read.
   */
  async read<V>(names: readonly string[], ask: (group: string[]) => Promise<Map<string, V>>): Promise<ListedAnswer<V>> {
    const found = new Map<string, V>();
    const notListed: string[] = [];
    const tryGroup = async (group: string[]): Promise<void> => {
      if (group.length === 0) return;
      try {
        for (const [name, value] of await ask(group)) found.set(name, value);
      } catch (error) {
        if (!(error instanceof PairNotListedError)) throw error;
        if (group.length === 1) {
          // Remembered at once: a read cut short by its timeout keeps what it learned, so the
          // next read does not start the halving over (a slow link would never get through it).
          notListed.push(group[0]!);
          this.notListed.add(group[0]!);
          return;
        }
        // One after the other: a burst of requests is what providers rate-limit.
        const half = Math.ceil(group.length / 2);
        await tryGroup(group.slice(0, half));
        await tryGroup(group.slice(half));
      }
    };
    const remembered = names.filter((name) => this.notListed.has(name));
    await tryGroup(names.filter((name) => !this.notListed.has(name)));
    for (const name of remembered) {
      try {
        await tryGroup([name]);
      } catch {
        notListed.push(name);
      }
    }
    // A remembered name that answered is listed again.
    for (const name of found.keys()) this.notListed.delete(name);
    return { found, notListed };
  }
}
