import { DEFAULT_CURRENCIES, DEFAULT_FIAT } from "../../currencies";
import { AmountFormatError, formatDecimal, mulDivDown, parseDecimal, pow10, RATE_DECIMALS } from "../../money";
import { optionsError } from "../../options-error";
import { optionsSchema, type ExchangeRates, type ExchangeRatesOptions } from "./exchange-rates-options";
import { combine, deviationBps, formatBps, type Candidate, type Combined, type CombineRules } from "./combine";
import { Notices } from "./notices";
import { pairStatuses, type SourceView } from "./pair-status";
import { scheduleSource } from "./schedule";
import type { SourcePrice } from "./sources/types";
import { SourceWatch } from "./source-status";
import { PriceUnavailableError, type PricePairStatus, type PricingHost, type Rate } from "../../core/ports/pricing";

export type { ExchangeRates, ExchangeRatesOptions } from "./exchange-rates-options";

const ONE = pow10(RATE_DECIMALS);

/**
 * Live exchange rates from several sources, combined so that sources which are half or fewer of
 * those answering never set a price, whatever they say: every asset is priced in USD from the
 * median of the fresh prices (younger than `maxAgeSeconds`), and only when a strict majority of
 * the sources that answered with a fresh price agree with it (are within `maxDeviationPercent`
 * of it), and at least `minSources` of them; any other pair is a cross rate through USD
 * (ETH/BTC = ETH/USD / BTC/USD, EUR/USDT = EUR/USD / USDT/USD). Binance's prices are in USDT and
 * count as USD prices only through a USDT/USD price that passes the same rules and the peg guard
 * (and agree at each USDT/USD of the sources that made it, never at a source left out of it);
 * when there is none, Binance counts as having answered, and as not agreeing.
 *
 * Prices are kept by the pair: a pair a source does not list now (or left out of its answer)
 * is left out of that source alone, and the asset is priced from the others; every other pair
 * of that source keeps counting. `sources()` says, per source and asset, why a price does not
 * count ("pair not listed", "stale 40 s").
 *
 * Each source is read in the background on its own schedule (every `refreshSeconds`, each read
 * ending after the source's `timeoutMs`), so a slow or hanging source never delays the others:
 * creating an invoice reads the last prices from memory and never waits for a source (only the
 * very first quote of a pair waits, until enough sources answered to price it or every source's
 * first read ended). When there is no usable price, `getRate` throws a
 * `PriceUnavailableError` naming the pair and why (the service answers 503), never a stale or
 * fixed price; quoting resumes by itself when the sources recover. Every rate carries its time
 * (the oldest of the prices used) and the names of its sources.
 */
export function exchangeRates(options: ExchangeRatesOptions): ExchangeRates {
  const checked = optionsSchema.safeParse(options);
  if (!checked.success) throw optionsError("exchangeRates", checked.error, " ", optionsSchema);
  const { sources } = options;
  const names = sources.map((source) => source.name);
  const twin = names.find((name, i) => names.indexOf(name) !== i);
  if (twin) throw new TypeError(`exchangeRates: two sources are named "${twin}"; each needs its own name (rates record them)`);
  const minSources = options.minSources ?? Math.min(2, sources.length);
  if (minSources > sources.length) {
    throw new TypeError(`exchangeRates: minSources is ${minSources} but only ${sources.length} source(s) are given, so no price could ever be quoted`);
  }
  const maxAgeSeconds = options.maxAgeSeconds ?? 120;
  const rules: CombineRules = {
    maxAgeMs: maxAgeSeconds * 1000,
    minSources,
    maxDeviationBps: BigInt(Math.round((options.maxDeviationPercent ?? 2) * 100)),
  };
  const stablecoins = new Map(
    Object.entries(options.stablecoins === false ? {} : (options.stablecoins ?? { USDT: 2, USDC: 2 })).map(([symbol, band]) => [
      symbol,
      BigInt(Math.round(band * 100)),
    ]),
  );
  const now = options.now ?? Date.now;
  const refreshMs = (options.refreshSeconds ?? 30) * 1000;
  let assets = new Set(options.assets ?? [...DEFAULT_CURRENCIES.map((currency) => currency.symbol), ...Object.keys(DEFAULT_FIAT)]);
  let logger: PricingHost["logger"] = console;
  const warn = (message: string) => logger.warn(message);

  /** Each source's last answer, by base. */
  const latest = new Map<string, Map<string, SourcePrice>>();
  /** The bases each source said it could not price in its last answer, with why ("pair not listed"). */
  const missing = new Map<string, ReadonlyMap<string, string>>();
  /** The bases each source ever answered or reported missing: what it covers when it does not say (`PriceSource.covers`). */
  const seen = new Map<string, Set<string>>();
  /** Called after each read of a source settles: the first quotes wait on it. */
  let onSettled: Array<() => void> = [];
  /** How each source's reads went: reported, logged as outages, kept for `sources()`. */
  const watch = new SourceWatch(names, now, rules.maxAgeMs);
  /** What is logged once per episode: stale sources, outliers, depegs, disagreements. */
  const notices = {
    stale: new Notices(warn),
    outliers: new Notices(warn),
    depegs: new Notices(warn),
    disagreements: new Notices(warn),
    unlisted: new Notices(warn),
  };
  /**
   * Quotes already worked out, by "BASE/QUOTE", each until the next read of a source or until
   * one of its prices would go stale, whichever comes first: quoting on the request path is then
   * a map lookup, not a median over every source.
   */
  const quotes = new Map<string, { rate: Rate | PriceUnavailableError | null; until: number }>();
  let first: Promise<void> | null = null;
  let ready = false;
  let started = false;

  const schedules = sources.map((source) =>
    scheduleSource(source, refreshMs, {
      request: () => ({ bases: [...assets], now: () => new Date(now()) }),
      answered(prices, seconds, gaps) {
        latest.set(source.name, new Map(prices.map((price) => [price.base, price])));
        missing.set(source.name, gaps);
        const bases = seen.get(source.name) ?? new Set<string>();
        for (const base of [...latest.get(source.name)!.keys(), ...gaps.keys()]) bases.add(base);
        seen.set(source.name, bases);
        watch.answered(source.name, prices, seconds);
      },
      failed(error, seconds) {
        watch.failed(source.name, error, seconds);
      },
      settled() {
        quotes.clear();
        review(now());
        const waiting = onSettled;
        onSettled = [];
        for (const wake of waiting) wake();
      },
    }),
  );

  /** Reads every source now (joining reads under way) and waits for all of them. */
  const readAll = (): Promise<void> => Promise.all(schedules.map((schedule) => schedule.read())).then(() => undefined);

  /**
   * Logs, once per episode, what the rules leave out after a read: sources whose prices went
   * stale, outliers, stablecoins off their peg, sources that disagree.
   */
  const review = (at: number): void => {
    const stale = new Map<string, string>();
    for (const [source, prices] of latest) {
      const old = [...prices.values()].filter((price) => at - price.at.getTime() > rules.maxAgeMs);
      if (old.length === 0) continue;
      const age = Math.round((at - Math.max(...old.map((price) => price.at.getTime()))) / 1000);
      const which = old.length === prices.size ? "its prices are" : `its prices of ${old.map((price) => price.base).join(", ")} are`;
      stale.set(
        source,
        `price source ${source} left out until its prices are fresh again: ${which} ${age} s old or more, older than maxAgeSeconds (${maxAgeSeconds})`,
      );
    }
    notices.stale.update(stale, (source) => `price source ${source} has fresh prices again`);

    const outliers = new Map<string, string>();
    const depegs = new Map<string, string>();
    const disagreements = new Map<string, string>();
    for (const asset of assets) {
      const combined = usdOf(asset, at);
      for (const outlier of combined.outliers)
        outliers.set(`${outlier.source} ${asset}`, `price source ${outlier.source} left out for ${asset}/USD: ${formatBps(outlier.bps)} from the median`);
      if (!combined.ok && combined.depeg) depegs.set(asset, combined.reason);
      if (!combined.ok && combined.disagreement) disagreements.set(asset, `no price for ${asset}/USD: ${combined.reason}`);
    }
    notices.outliers.update(outliers);
    const unlisted = new Map<string, string>();
    for (const [source, gaps] of missing) {
      for (const [asset, why] of gaps)
        if (assets.has(asset))
          unlisted.set(`${source} ${asset}`, `price source ${source} has no ${asset}/USD (${why}): left out of ${asset} until it has one again`);
    }
    notices.unlisted.update(unlisted, (key) => {
      const [source, asset] = key.split(" ");
      return latest.get(source!)?.has(asset!) ? `price source ${source} prices ${asset}/USD again` : null;
    });
    notices.depegs.update(depegs);
    notices.disagreements.update(disagreements);
  };

  /**
   * The first read of the sources, made once: quoting waits for it (`ready`), whether it was
   * started by binding, by the first quote or by an explicit refresh().
   */
  const firstRead = (): Promise<void> => (first ??= readAll().then(() => void (ready = true)));

  /** Resolves once `base`/`quote` can be quoted from the reads so far, or every source's first read ended. */
  const firstQuotable = async (base: string, quote: string): Promise<void> => {
    const all = start();
    // `ready` turns true when every first read ended (`firstRead`).
    while (!ready) {
      if (base === quote || !(quoteOf(base, quote, now()).rate instanceof PriceUnavailableError)) return;
      await Promise.race([all, new Promise<void>((wake) => onSettled.push(wake))]);
    }
  };

  const start = (): Promise<void> => {
    const read = firstRead();
    if (!started) {
      started = true;
      for (const schedule of schedules) schedule.start();
    }
    return read;
  };

  /**
   * USDT/USD for converting USDT-quoted prices: the guarded quote (a USDT off its peg converts
   * nothing), and the USDT/USD price of each source that made it, at each of which a converted
   * price must agree too (see `Candidate.alternatives`). A source left out of USDT/USD (a liar)
   * lends its price to no conversion: its error never disqualifies another source's prices.
   */
  const usdtRate = (at: number): { combined: Combined; answers: bigint[] } => {
    const combined = usdOf("USDT", at);
    const answers: bigint[] = [];
    if (combined.ok) {
      for (const source of combined.sources) {
        const price = latest.get(source)?.get("USDT");
        const units = price && price.quote === "USD" ? toUnits(price.price) : null;
        if (units !== null) answers.push(units);
      }
    }
    return { combined, answers };
  };

  /** Whether `name` prices `asset`: its own word, else what it answered (anything before its first answer). */
  const covers = (name: string, asset: string): boolean => {
    const source = sources.find((candidate) => candidate.name === name)!;
    if (source.covers) return source.covers(asset);
    return !latest.has(name) || seen.get(name)!.has(asset);
  };

  /**
   * The combined USD price of `asset` at `at`. A stablecoin off its peg has none, and says so
   * with `depeg` (the reviews log those once).
   */
  const usdOf = (asset: string, at: number): Combined & { depeg?: true } => {
    if (asset === "USD") return { ok: true, usd: ONE, at, freshUntil: Infinity, sources: [], outliers: [] };
    const candidates: Candidate[] = [];
    // Named in the reason: sources that fail now, and those that said they have no such pair.
    const unavailable = names.flatMap((name) => {
      if (!covers(name, asset)) return [];
      if (watch.failing(name)) return [name];
      const gap = missing.get(name)?.get(asset);
      return gap === undefined ? [] : [`${name} (${gap})`];
    });
    let usdt: { combined: Combined; answers: bigint[] } | null = null;
    // A source that fails now still counts with its last prices until they are too old.
    for (const [source, prices] of latest) {
      const price = prices.get(asset);
      if (!price) continue;
      const units = toUnits(price.price);
      if (units === null) continue;
      const observed = price.at.getTime();
      if (price.quote === "USD") candidates.push({ source, usd: units, at: observed });
      else if (price.quote === "USDT" && asset !== "USDT") {
        usdt ??= usdtRate(at);
        const said = `${price.price} USDT`;
        if (usdt.combined.ok) {
          const { usd } = usdt.combined;
          candidates.push({
            source,
            usd: mulDivDown(units, usd, ONE),
            alternatives: usdt.answers.map((answer) => mulDivDown(units, answer, ONE)),
            at: Math.min(observed, usdt.combined.at),
            said,
          });
        } else candidates.push({ source, usd: null, at: observed, said, why: `USDT/USD: ${usdt.combined.reason}` });
      }
    }
    const combined = combine(candidates, at, rules, unavailable);
    const band = stablecoins.get(asset);
    if (combined.ok && band !== undefined) {
      const off = deviationBps(combined.usd, ONE);
      if (off > band) {
        return {
          ok: false,
          depeg: true,
          reason: `${asset} is off its peg: ${formatDecimal(combined.usd, RATE_DECIMALS)} USD, more than ${formatBps(band)} from 1 USD`,
          outliers: combined.outliers,
        };
      }
    }
    // A converted price changes when a USDT/USD price goes stale.
    if (combined.ok && usdt?.combined.ok) return { ...combined, freshUntil: Math.min(combined.freshUntil, usdt.combined.freshUntil) };
    return combined;
  };

  return {
    bind(host) {
      assets = new Set([...(options.assets ?? host.assets), "USDT"]);
      logger = host.logger;
      watch.bind(host);
      void start();
    },

    sources() {
      const at = now();
      const results = [...assets].map((asset) => ({ asset, combined: usdOf(asset, at) }));
      const hasFresh = (name: string) => [...(latest.get(name)?.values() ?? [])].some((price) => at - Math.min(price.at.getTime(), at) <= rules.maxAgeMs);
      const pairs = new Map<string, PricePairStatus[]>(names.map((name) => [name, []]));
      const usdt = () => usdOf("USDT", at);
      for (const { asset, combined } of results) {
        const views: SourceView[] = names.map((name) => ({
          name,
          covers: covers(name, asset),
          read: watch.read(name),
          failing: watch.failing(name),
          price: latest.get(name)?.get(asset),
          missing: missing.get(name)?.get(asset),
        }));
        for (const { source, status } of pairStatuses(asset, combined, usdt, views, at, rules.maxAgeMs)) pairs.get(source)!.push(status);
      }
      return watch.statuses(results, hasFresh).map((status) => ({ ...status, pairs: pairs.get(status.name)! }));
    },

    async getRate(base, quote) {
      // Only the first quotes wait: until enough sources answered to price the pair, or until
      // every source's first read ended (a slow source delays no quote the others can make).
      if (!ready) await firstQuotable(base, quote);
      if (base === quote) return { rate: "1", at: new Date(now()), sources: [] };
      const at = now();
      const key = `${base}/${quote}`;
      let known = quotes.get(key);
      if (!known || at >= known.until) {
        known = quoteOf(base, quote, at);
        quotes.set(key, known);
      }
      if (known.rate instanceof PriceUnavailableError) throw known.rate;
      // A copy each time: a caller that changes what it got must not change the next answer.
      return known.rate && { rate: known.rate.rate, at: new Date(known.rate.at.getTime()), sources: [...known.rate.sources!] };
    },

    refresh: () => {
      // firstRead, not start(): an explicit read counts as the first (quotes stop waiting for
      // one) but starts no background schedule; bind() does that.
      void firstRead();
      return readAll();
    },

    async close() {
      started = false;
      await Promise.all(schedules.map((schedule) => schedule.stop()));
    },
  };

  /** The rate of a pair at `at`, and until when it holds (a refusal holds until the next read). */
  function quoteOf(base: string, quote: string, at: number): { rate: Rate | PriceUnavailableError | null; until: number } {
    if (!isKnown(base) || !isKnown(quote)) return { rate: null, until: Infinity };
    const b = usdOf(base, at);
    const q = usdOf(quote, at);
    if (!b.ok) return { rate: new PriceUnavailableError(base, quote, `${base}/USD: ${b.reason}`), until: Infinity };
    if (!q.ok) return { rate: new PriceUnavailableError(base, quote, `${quote}/USD: ${q.reason}`), until: Infinity };
    const rate = mulDivDown(b.usd, ONE, q.usd);
    const until = Math.min(b.freshUntil, q.freshUntil);
    if (rate === 0n) return { rate: null, until };
    return {
      rate: { rate: formatDecimal(rate, RATE_DECIMALS), at: new Date(Math.min(b.at, q.at)), sources: [...new Set([...b.sources, ...q.sources])].sort() },
      until,
    };
  }

  function isKnown(asset: string): boolean {
    return asset === "USD" || assets.has(asset);
  }
}

/** A source's price string as 18-decimal units, or null when it is not a positive decimal (sources check this too). */
function toUnits(price: string): bigint | null {
  try {
    const units = parseDecimal(price, RATE_DECIMALS, "down");
    return units > 0n ? units : null;
  } catch (error) {
    if (error instanceof AmountFormatError) return null;
    throw error;
  }
}
