import { BaseError, ContractFunctionZeroDataError, createPublicClient, formatUnits, getAddress, http, isAddress, type Address } from "viem";
import { nodeError, rpcSecrets } from "../../rpc-errors";
import { abortReason } from "./http";
import { checkTimeout, optionsRecord } from "./options";
import { PriceSourceError, type PriceSource, type SourcePrice } from "./types";

/**
 * Chainlink price feeds (AggregatorV3Interface,
 * https://docs.chain.link/data-feeds/api-reference#aggregatorv3interface) read over JSON-RPC with
 * viem: `latestRoundData()` -> (roundId, answer, startedAt, updatedAt, answeredInRound) and
 * `decimals()`. The price is `answer` / 10^decimals, written exactly (viem's `formatUnits` is
 * string arithmetic), and its time is the round's `updatedAt`.
 */

/** Options of `chainlink()`. */
export interface ChainlinkOptions {
  /**
   * The JSON-RPC endpoint (http or https) of the network the feeds live on. It may carry
   * credentials: errors never show it.
   */
  rpcUrl: string;
  /** "BASE/QUOTE" -> the feed's proxy address, e.g. { "BTC/USD": "0xF4030086522a5bEEa4988F8cA5B36dbC97BeE88c" }. */
  feeds: Record<string, string>;
  /** How long one `fetch` may take, in ms. Default 5000. */
  timeoutMs?: number;
  /**
   * Refuse a round whose `updatedAt` is older than this many seconds (the feed's heartbeat plus
   * a margin). Default: no limit here; the combining layer judges staleness from `at`.
   */
  maxAgeSeconds?: number;
}

/**
 * The part of AggregatorV3Interface that is read. @internal: how `chainlink()` reads a feed,
 * which may change (and the tests' fake feed answers with it); a user passes feed addresses only.
 */
export const aggregatorV3Abi = [
  { type: "function", name: "decimals", stateMutability: "view", inputs: [], outputs: [{ name: "", type: "uint8" }] },
  {
    type: "function",
    name: "latestRoundData",
    stateMutability: "view",
    inputs: [],
    outputs: [
      { name: "roundId", type: "uint80" },
      { name: "answer", type: "int256" },
      { name: "startedAt", type: "uint256" },
      { name: "updatedAt", type: "uint256" },
      { name: "answeredInRound", type: "uint80" },
    ],
  },
] as const;

const NAME = "chainlink";
const FEED_KEY = /^([A-Z0-9]{2,15})\/([A-Z0-9]{2,15})$/;
// A decimals() above this is not a price feed (Chainlink's use 8 or 18).
const MAX_DECIMALS = 36;

interface Feed {
  key: string;
  base: string;
  quote: string;
  address: Address;
}

/**
 * A price source reading Chainlink feeds. A round is refused (PriceSourceError) when its answer
 * is zero or negative, when `updatedAt` is 0 (the round is not complete), when
 * `answeredInRound < roundId` (the answer was carried over from an older round), or when it is
 * older than `maxAgeSeconds`. One refused or unreadable feed fails the whole fetch. Several
 * feeds of one base (BTC/USD, BTC/ETH) each give a price.
 */
export function chainlink(options: ChainlinkOptions): PriceSource {
  if (options === undefined) throw new TypeError(`${NAME}: options { rpcUrl, feeds } are required`);
  const record = optionsRecord(NAME, options, ["rpcUrl", "feeds", "timeoutMs", "maxAgeSeconds"]);
  const rpcUrl = checkRpcUrl(record.rpcUrl);
  const feeds = checkFeeds(record.feeds);
  const timeoutMs = checkTimeout(NAME, record.timeoutMs);
  const maxAgeSeconds = record.maxAgeSeconds;
  if (maxAgeSeconds !== undefined && (typeof maxAgeSeconds !== "number" || !Number.isInteger(maxAgeSeconds) || maxAgeSeconds < 1)) {
    throw new TypeError(`${NAME}: maxAgeSeconds must be a whole number of seconds >= 1, got ${String(maxAgeSeconds)}`);
  }
  const secrets = rpcSecrets(rpcUrl);
  // decimals() never changes for a feed: kept once read. Only values are kept, not promises,
  // so one fetch's abort never fails another's read.
  const decimalsCache = new Map<Address, number>();

  return {
    name: NAME,
    timeoutMs,
    covers: (base) => feeds.some((feed) => feed.base === base),
    async fetch({ bases, signal, now }) {
      const wanted = new Set(bases);
      const asked = feeds.filter((feed) => wanted.has(feed.base));
      if (asked.length === 0) return [];
      if (signal.aborted) throw new PriceSourceError(NAME, `not read: aborted (${abortReason(signal.reason)})`);
      const timeout = AbortSignal.timeout(timeoutMs);
      const combined = AbortSignal.any([signal, timeout]);
      // A client per fetch: its requests carry this fetch's signal, so a timeout or the caller's
      // abort ends them instead of leaving them running. Calls of one fetch share one batch.
      const client = createPublicClient({
        transport: http(rpcUrl, { batch: true, retryCount: 0, timeout: timeoutMs, fetchOptions: { signal: combined } }),
        cacheTime: 0,
      });
      const decimalsOf = async (feed: Feed) => {
        const cached = decimalsCache.get(feed.address);
        if (cached !== undefined) return cached;
        const decimals = await client.readContract({ address: feed.address, abi: aggregatorV3Abi, functionName: "decimals" });
        decimalsCache.set(feed.address, decimals);
        return decimals;
      };
      const read = async (feed: Feed): Promise<SourcePrice> => {
        let decimals: number;
        let round: readonly [bigint, bigint, bigint, bigint, bigint];
        try {
          [decimals, round] = await Promise.all([
            decimalsOf(feed),
            client.readContract({ address: feed.address, abi: aggregatorV3Abi, functionName: "latestRoundData" }),
          ]);
        } catch (error) {
          if (combined.aborted) {
            if (combined.reason === timeout.reason) throw new PriceSourceError(NAME, `${feed.key} feed got no answer within ${timeoutMs} ms (timeoutMs)`);
            throw new PriceSourceError(NAME, `${feed.key} feed read was aborted (${abortReason(signal.reason)})`);
          }
          const noContract = error instanceof BaseError && error.walk((inner) => inner instanceof ContractFunctionZeroDataError) !== null;
          const hint = noContract ? ": is a price feed deployed at this address on this network?" : "";
          throw new PriceSourceError(NAME, nodeError(error, { label: `${feed.key} feed ${feed.address}`, secrets }).message + hint);
        }
        return priceOf(feed, decimals, round, maxAgeSeconds as number | undefined, now);
      };
      return Promise.all(asked.map(read));
    },
  };
}

function priceOf(
  feed: Feed,
  decimals: number,
  round: readonly [bigint, bigint, bigint, bigint, bigint],
  maxAgeSeconds: number | undefined,
  now: () => Date,
): SourcePrice {
  const [roundId, answer, , updatedAt, answeredInRound] = round;
  const where = `${feed.key} feed ${feed.address}`;
  if (decimals > MAX_DECIMALS) throw new PriceSourceError(NAME, `${where} reports ${decimals} decimals: not a price feed`);
  if (updatedAt === 0n) throw new PriceSourceError(NAME, `${where}: round ${roundId} is not complete (updatedAt is 0)`);
  if (answeredInRound < roundId) throw new PriceSourceError(NAME, `${where}: stale answer (answered in round ${answeredInRound}, latest round ${roundId})`);
  if (answer <= 0n) throw new PriceSourceError(NAME, `${where}: answer ${answer} is ${answer === 0n ? "zero" : "negative"}: a price must be positive`);
  // Seconds since 1970 that a Date holds exactly; a larger value is not a time.
  if (updatedAt > 8_640_000_000_000n) throw new PriceSourceError(NAME, `${where}: updatedAt ${updatedAt} is not a unix time`);
  const at = new Date(Number(updatedAt) * 1000);
  if (maxAgeSeconds !== undefined) {
    const ageSeconds = Math.floor((now().getTime() - at.getTime()) / 1000);
    if (ageSeconds > maxAgeSeconds) throw new PriceSourceError(NAME, `${where}: stale answer, updated ${ageSeconds} s ago (maxAgeSeconds ${maxAgeSeconds})`);
  }
  return { base: feed.base, quote: feed.quote, price: formatUnits(answer, decimals), at };
}

function checkRpcUrl(value: unknown): string {
  let url: URL | null = null;
  try {
    url = typeof value === "string" ? new URL(value) : null;
  } catch {
    url = null;
  }
  // The value is not echoed: it may carry credentials.
  if (!url || (url.protocol !== "http:" && url.protocol !== "https:")) throw new TypeError(`${NAME}: rpcUrl must be an http(s) URL of a JSON-RPC node`);
  return value as string;
}

function checkFeeds(value: unknown): Feed[] {
  if (value === null || typeof value !== "object" || Array.isArray(value) || Object.keys(value).length === 0) {
    throw new TypeError(`${NAME}: feeds must map "BASE/QUOTE" to a feed address, e.g. { "BTC/USD": "0x..." }`);
  }
  return Object.entries(value).map(([key, address]) => {
    const match = FEED_KEY.exec(key);
    if (!match) throw new TypeError(`${NAME}: feeds keys are "BASE/QUOTE" in our symbols ("BTC/USD"), got ${JSON.stringify(key)}`);
    if (typeof address !== "string" || !isAddress(address)) {
      throw new TypeError(`${NAME}: feeds["${key}"] must be a 0x address (with a valid checksum if mixed-case), got ${JSON.stringify(address)}`);
    }
    return { key, base: match[1]!, quote: match[2]!, address: getAddress(address) };
  });
}
