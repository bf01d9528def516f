import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { exchangeRates } from "../../../src/adapters/pricing/exchange-rates";
import { formatDecimal, mulDivDown, parseDecimal } from "../../../src/money";
import { recordingLogger } from "../../helpers";
import { scripted } from "./scripted-source";

/**
 * The promise of the majority rule, as properties: sources that are half or fewer of those that
 * answered an asset with a fresh price cannot move its quote away from the honest ones, however
 * they collude, on that asset or across pairs (USDT/USD included, which converts the prices of
 * USDT-quoted sources such as Binance, as long as the liars are half or fewer of the USDT/USD
 * answers too: USDT-quoted prices are converted at the USDT/USD of the sources that made it, so
 * liars who make USDT/USD make the conversion). "Away" is measured with the adapter's own setting: a
 * quote, when there is one, agrees (is within maxDeviationPercent) with the USD value of at least
 * one honest source. The liars may also make quoting impossible (a 503): that is allowed, a
 * wrong price is not.
 */

const E18 = 10n ** 18n;
const NOW = 1_800_000_000_000;
const MAX_AGE_SECONDS = 120;
/** The world's true USD prices. */
const TRUTH: Record<string, bigint> = { BTC: 60_000n * E18, ETH: 3_000n * E18, USDT: E18 };
const ASSETS = ["BTC", "ETH", "USDT"] as const;

type Asset = (typeof ASSETS)[number];
/** A price as an offset from the truth in basis points (-5000 = half, +5000 = 1.5 times). */
type Offsets = Record<Asset, number>;

interface SourceSpec {
  quote: "USD" | "USDT";
  liar: boolean;
  status: "fresh" | "down" | "stale";
  /** An honest source's small spread around the truth. */
  spread: Offsets;
  /** A liar's own lie, when it does not collude. */
  own: Offsets;
  /** A liar that tells the lie the liars agreed on, rather than its own. */
  colludes: boolean;
}

const offsets = (bps: fc.Arbitrary<number>) => fc.record({ BTC: bps, ETH: bps, USDT: bps });
/**
 * Lies from subtle to wild, mostly the telling ones: 1.9% (inside the default peg band and the
 * default deviation, so a lie on USDT/USD is quoted), 3.7% (agrees with a price converted at a
 * 1.9% USDT/USD, not with the honest one), 10% (the liars), and anything else.
 */
const lie = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(0, 190, -190, 370, -370, 1000, -1000) },
  { weight: 1, arbitrary: fc.integer({ min: -5000, max: 5000 }) },
);
/** Liars mostly tell the lie they agreed on. */
const colluding = fc.oneof({ weight: 3, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) });

const spec = (quote: fc.Arbitrary<"USD" | "USDT">): fc.Arbitrary<SourceSpec> =>
  fc.record({
    quote,
    liar: fc.boolean(),
    status: fc.constantFrom("fresh", "fresh", "fresh", "down", "stale"),
    spread: offsets(fc.integer({ min: -30, max: 30 })),
    own: offsets(lie),
    colludes: colluding,
  });

const at = (value: bigint, bps: number) => (value * BigInt(10_000 + bps)) / 10_000n;
const units = (text: string) => parseDecimal(text, 18, "down");

/** The price a source states for an asset, in its own quote, as text. */
function stated(source: SourceSpec, asset: Asset, shared: Offsets): string {
  const bps = (source.liar ? (source.colludes ? shared : source.own) : source.spread)[asset];
  // A liar quoting in USDT states anything; an honest one converts the truth at the true USDT/USD.
  const usd = at(TRUTH[asset]!, bps);
  const value = source.quote === "USDT" && !source.liar ? mulDivDown(usd, E18, TRUTH.USDT!) : usd;
  return formatDecimal(value > 0n ? value : 1n, 18);
}

interface World {
  specs: SourceSpec[];
  shared: Offsets;
  deviationPercent: number;
  band: number | false;
  minSources: number;
}

/** Quotes every asset in USD in `world`, and checks the promise for each asset it covers. */
async function check(world: World): Promise<void> {
  const { specs, shared } = world;
  const sources = specs.map((source, i) => {
    const prices: Record<string, string> = {};
    for (const asset of ASSETS) if (!(source.quote === "USDT" && asset === "USDT")) prices[asset] = stated(source, asset, shared);
    const made = scripted(`s${i}${source.liar ? "-liar" : ""}`, prices, {
      quote: source.quote,
      ageSeconds: source.status === "stale" ? MAX_AGE_SECONDS + 30 : 0,
    });
    if (source.status === "down") made.state.fail = "HTTP 500";
    return made;
  });
  const adapter = exchangeRates({
    sources,
    now: () => NOW,
    refreshSeconds: 3600,
    maxAgeSeconds: MAX_AGE_SECONDS,
    maxDeviationPercent: world.deviationPercent,
    minSources: Math.min(world.minSources, specs.length),
    stablecoins: world.band === false ? false : { USDT: world.band },
  });
  adapter.bind!({ assets: [...ASSETS], logger: recordingLogger() });
  try {
    await adapter.refresh();
    const fresh = specs.filter((source) => source.status === "fresh");
    // The fresh USDT/USD prices of the honest sources: an honest USDT-quoted price is worth its USDT at any of them.
    const honestUsdt = fresh.filter((source) => !source.liar && source.quote === "USD").map((source) => units(stated(source, "USDT", shared)));
    const d = BigInt(Math.round(world.deviationPercent * 100));
    for (const asset of ASSETS) {
      const answering = fresh.filter((source) => !(source.quote === "USDT" && asset === "USDT"));
      const liars = answering.filter((source) => source.liar).length;
      if (answering.length === 0 || liars * 2 > answering.length) continue;
      // A USDT-quoted price is only as honest as the USDT/USD price it is converted at: the
      // liars must be half or fewer of the USDT/USD answers as well.
      const usdtAnswers = fresh.filter((source) => source.quote === "USD");
      const usdtLiars = usdtAnswers.filter((source) => source.liar).length;
      if (answering.some((source) => source.quote === "USDT") && (honestUsdt.length === 0 || usdtLiars * 2 > usdtAnswers.length)) continue;
      const honest = answering
        .filter((source) => !source.liar)
        .flatMap((source) => {
          const price = units(stated(source, asset, shared));
          return source.quote === "USD" ? [price] : honestUsdt.map((usdt) => mulDivDown(price, usdt, E18));
        });
      const answer = await adapter.getRate(asset, "USD").catch(() => null);
      if (!answer) continue;
      const quote = units(answer.rate);
      const agrees = honest.some((value) => (value > quote ? value - quote : quote - value) * 10_000n <= d * quote);
      expect(
        agrees,
        `${asset}/USD quoted ${answer.rate} from ${answer.sources?.join(", ")}; honest USD values ${honest.map((value) => formatDecimal(value, 18)).join(", ")}; ${liars} of ${answering.length} answering lie`,
      ).toBe(true);
    }
  } finally {
    await adapter.close();
  }
}

describe("half or fewer of the answering sources never move a quote", () => {
  it("holds for any mix of USD- and USDT-quoted sources, down or stale ones, and lies on any asset, with any settings", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          specs: fc.array(spec(fc.constantFrom("USD", "USD", "USDT")), { minLength: 2, maxLength: 7 }),
          shared: offsets(lie),
          deviationPercent: fc.constantFrom(0.5, 1, 2, 5),
          band: fc.constantFrom<number | false>(1, 2, 5, 10, false),
          minSources: fc.integer({ min: 1, max: 3 }),
        }),
        check,
      ),
      { numRuns: 300 },
    );
  });

  it("holds for the four providers when any two of them lie about anything, USDT/USD included (Binance's prices: while the liars do not make USDT/USD)", async () => {
    // Coinbase, Kraken and CoinGecko quote in USD, Binance in USDT; every source answers.
    const quotes = ["USD", "USD", "USDT", "USD"] as const;
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(fc.integer({ min: 0, max: 3 }), { maxLength: 2 }),
        offsets(lie),
        fc.array(offsets(lie), { minLength: 4, maxLength: 4 }),
        fc.array(colluding, { minLength: 4, maxLength: 4 }),
        async (liars, shared, own, colludes) => {
          const specs = quotes.map(
            (quote, i): SourceSpec => ({
              quote,
              liar: liars.includes(i),
              status: "fresh",
              spread: { BTC: 0, ETH: 0, USDT: 0 },
              own: own[i]!,
              colludes: colludes[i]!,
            }),
          );
          await check({ specs, shared, deviationPercent: 2, band: 2, minSources: 2 });
        },
      ),
      { numRuns: 500 },
    );
  });
});
