import { encodeFunctionResult, getAddress, type Address, type Hex } from "viem";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { aggregatorV3Abi, chainlink } from "../../../../src/adapters/pricing/sources/index";
import { freePort, startAnvil, type Anvil } from "../../chain/evm/anvil";
import { mockAggregatorAbi, mockAggregatorBytecode } from "../../../fixtures/contracts/artifacts";
import { ask, sourceError, startProviderServer, type ProviderServer, type Received, type Reply } from "./support";

/**
 * Chainlink feeds on a real anvil node: MockAggregator (test/fixtures/contracts/TestContracts.sol)
 * answers latestRoundData() and decimals() like an AggregatorV3Interface proxy. What a real feed
 * can do and the mock cannot (an answer carried over from an older round) is played by a small
 * JSON-RPC server answering eth_call with viem-encoded results.
 */

let node: Anvil;
beforeAll(async () => {
  node = await startAnvil();
}, 60_000);
afterAll(() => node.stop());

const T = 1711356300; // 2024-03-25T08:45:00Z, a round's updatedAt

async function deployFeed(decimals: number, description: string): Promise<Address> {
  const hash = await node.wallet.deployContract({
    abi: mockAggregatorAbi,
    bytecode: mockAggregatorBytecode,
    args: [decimals, description],
    account: node.account(0),
    chain: null,
  });
  const receipt = await node.public.waitForTransactionReceipt({ hash });
  expect(receipt.status).toBe("success");
  return getAddress(receipt.contractAddress!);
}

async function setRound(feed: Address, answer: bigint, updatedAt: number): Promise<void> {
  const hash = await node.wallet.writeContract({
    address: feed,
    abi: mockAggregatorAbi,
    functionName: "setRound",
    args: [answer, BigInt(updatedAt)],
    account: node.account(0),
    chain: null,
  });
  expect((await node.public.waitForTransactionReceipt({ hash })).status).toBe("success");
}

describe("chainlink on anvil", () => {
  it("prices each asked base from its feeds, exactly at the feed's decimals, at the round's updatedAt", async () => {
    const btcUsd = await deployFeed(8, "BTC / USD");
    const ethBtc = await deployFeed(18, "ETH / BTC");
    const btcEur = await deployFeed(8, "BTC / EUR");
    const ltcUsd = await deployFeed(8, "LTC / USD");
    await setRound(btcUsd, 6718733000000n, T);
    await setRound(ethBtc, 52345678901234567n, T + 60);
    await setRound(btcEur, 6172099999999n, T + 120);
    await setRound(ltcUsd, 8412000000n, T);
    const source = chainlink({ rpcUrl: node.rpcUrl, feeds: { "BTC/USD": btcUsd, "ETH/BTC": ethBtc, "BTC/EUR": btcEur, "LTC/USD": ltcUsd } });
    const prices = await source.fetch(ask(["BTC", "ETH", "DOGE"]));
    expect(prices).toEqual([
      { base: "BTC", quote: "USD", price: "67187.33", at: new Date(T * 1000) },
      { base: "ETH", quote: "BTC", price: "0.052345678901234567", at: new Date((T + 60) * 1000) },
      { base: "BTC", quote: "EUR", price: "61720.99999999", at: new Date((T + 120) * 1000) },
    ]);
    expect(await source.fetch(ask(["DOGE"]))).toEqual([]);
    expect(source.name).toBe("chainlink");
    expect(source.timeoutMs).toBe(5000);
  });

  it("reads the latest round after a new one", async () => {
    const feed = await deployFeed(8, "BTC / USD");
    await setRound(feed, 6000000000000n, T);
    const source = chainlink({ rpcUrl: node.rpcUrl, feeds: { "BTC/USD": feed } });
    expect((await source.fetch(ask(["BTC"])))[0]!.price).toBe("60000");
    await setRound(feed, 6000000000001n, T + 3600);
    expect(await source.fetch(ask(["BTC"]))).toEqual([{ base: "BTC", quote: "USD", price: "60000.00000001", at: new Date((T + 3600) * 1000) }]);
  });

  it("refuses a zero answer and a negative answer", async () => {
    const feed = await deployFeed(8, "BTC / USD");
    const source = chainlink({ rpcUrl: node.rpcUrl, feeds: { "BTC/USD": feed } });
    await setRound(feed, 0n, T);
    expect((await sourceError(source.fetch(ask(["BTC"])))).message).toBe(`chainlink: BTC/USD feed ${feed}: answer 0 is zero: a price must be positive`);
    await setRound(feed, -5n, T);
    expect((await sourceError(source.fetch(ask(["BTC"])))).message).toMatch(/answer -5 is negative: a price must be positive/);
  });

  it("refuses a round whose updatedAt is 0 (not complete), including a feed with no round yet", async () => {
    const feed = await deployFeed(8, "BTC / USD");
    const source = chainlink({ rpcUrl: node.rpcUrl, feeds: { "BTC/USD": feed } });
    expect((await sourceError(source.fetch(ask(["BTC"])))).message).toMatch(/round 0 is not complete \(updatedAt is 0\)/);
    await setRound(feed, 6000000000000n, 0);
    expect((await sourceError(source.fetch(ask(["BTC"])))).message).toMatch(/round 1 is not complete \(updatedAt is 0\)/);
  });

  it("refuses a round older than maxAgeSeconds", async () => {
    const feed = await deployFeed(8, "BTC / USD");
    await setRound(feed, 6000000000000n, T);
    const source = chainlink({ rpcUrl: node.rpcUrl, feeds: { "BTC/USD": feed }, maxAgeSeconds: 3600 });
    const at = (seconds: number) => ({ ...ask(["BTC"]), now: () => new Date(seconds * 1000) });
    expect((await source.fetch(at(T + 3600)))[0]!.price).toBe("60000");
    expect((await sourceError(source.fetch(at(T + 3601)))).message).toMatch(/stale answer, updated 3601 s ago \(maxAgeSeconds 3600\)/);
  });

  it("fails the whole fetch when one of its feeds fails", async () => {
    const good = await deployFeed(8, "BTC / USD");
    const bad = await deployFeed(8, "ETH / USD");
    await setRound(good, 6000000000000n, T);
    const source = chainlink({ rpcUrl: node.rpcUrl, feeds: { "BTC/USD": good, "ETH/USD": bad } });
    expect((await sourceError(source.fetch(ask(["BTC", "ETH"])))).message).toMatch(/ETH\/USD feed .*not complete/);
  });

  it("explains a feed address where no aggregator is deployed", async () => {
    const source = chainlink({ rpcUrl: node.rpcUrl, feeds: { "BTC/USD": "0x000000000000000000000000000000000000dEaD" } });
    const error = await sourceError(source.fetch(ask(["BTC"])));
    expect(error.message).toBe(
      'chainlink: BTC/USD feed 0x000000000000000000000000000000000000dEaD: The contract function "latestRoundData" returned no data ("0x"): is a price feed deployed at this address on this network?',
    );
  });

  it("never shows an RPC URL's credentials in an error", async () => {
    const port = await freePort(); // closed: nothing listens there
    const rpcUrl = `http://shop:s3cret-pass@127.0.0.1:${port}/v3/apikey0123456789?token=tok-987`;
    const source = chainlink({ rpcUrl, feeds: { "BTC/USD": "0x000000000000000000000000000000000000dEaD" } });
    const error = await sourceError(source.fetch(ask(["BTC"])));
    const shown = `${error.message} ${error.stack} ${JSON.stringify(error)} ${String((error as { cause?: unknown }).cause)}`;
    expect(error.message).toMatch(/^chainlink: BTC\/USD feed 0x000000000000000000000000000000000000dEaD: HTTP request failed/);
    for (const secret of ["s3cret-pass", "apikey0123456789", "tok-987", "shop:"]) expect(shown).not.toContain(secret);
    expect(() => chainlink({ rpcUrl: "ws//shop:s3cret-pass@host", feeds: { "BTC/USD": "0x000000000000000000000000000000000000dEaD" } })).toThrow(
      new TypeError("chainlink: rpcUrl must be an http(s) URL of a JSON-RPC node"),
    );
  });

  it("validates its options at creation", () => {
    const address = "0x000000000000000000000000000000000000dEaD";
    expect(() => chainlink(undefined as never)).toThrow(/chainlink: options \{ rpcUrl, feeds \} are required/);
    expect(() => chainlink({ rpcUrl: node.rpcUrl, feeds: {} })).toThrow(/chainlink: feeds must map "BASE\/QUOTE" to a feed address/);
    expect(() => chainlink({ rpcUrl: node.rpcUrl, feeds: { BTCUSD: address } })).toThrow(/feeds keys are "BASE\/QUOTE"/);
    expect(() => chainlink({ rpcUrl: node.rpcUrl, feeds: { "BTC/USD": "0x000000000000000000000000000000000000DeAd" } })).toThrow(
      /feeds\["BTC\/USD"\] must be a 0x address \(with a valid checksum/,
    );
    expect(() => chainlink({ rpcUrl: node.rpcUrl, feeds: { "BTC/USD": address }, maxAgeSeconds: 0 })).toThrow(/maxAgeSeconds must be a whole number/);
    expect(() => chainlink({ rpcUrl: node.rpcUrl, feeds: { "BTC/USD": address }, timeoutMs: -1 })).toThrow(/timeoutMs must be a whole number/);
  });
});

describe("chainlink over a scripted JSON-RPC node", () => {
  let rpc: ProviderServer;
  const FEED: Address = "0x5f4eC3Df9cbd43714FE2740f5E3616155c5b8419";
  let round = { roundId: 10n, answer: 6718733000000n, startedAt: BigInt(T), updatedAt: BigInt(T), answeredInRound: 10n };

  beforeAll(async () => {
    rpc = await startProviderServer();
  });
  afterAll(() => rpc.close());
  beforeEach(() => {
    rpc.requests.length = 0;
    round = { roundId: 10n, answer: 6718733000000n, startedAt: BigInt(T), updatedAt: BigInt(T), answeredInRound: 10n };
    rpc.reply = answerCalls;
  });

  /** eth_call of decimals() and latestRoundData(), single or batched, encoded as a node would. */
  function answerCalls(request: Received): Reply {
    const body = JSON.parse(request.body) as
      | { id: number; method: string; params: [{ data: Hex }] }
      | { id: number; method: string; params: [{ data: Hex }] }[];
    const one = (call: { id: number; method: string; params: [{ data: Hex }] }) => {
      const data = call.params[0].data;
      const result = data.startsWith("0x313ce567")
        ? encodeFunctionResult({ abi: aggregatorV3Abi, functionName: "decimals", result: 8 })
        : encodeFunctionResult({
            abi: aggregatorV3Abi,
            functionName: "latestRoundData",
            result: [round.roundId, round.answer, round.startedAt, round.updatedAt, round.answeredInRound],
          });
      return { jsonrpc: "2.0", id: call.id, result };
    };
    return { body: JSON.stringify(Array.isArray(body) ? body.map(one) : one(body)) };
  }

  const calls = () =>
    rpc.requests.flatMap((request) => [JSON.parse(request.body)].flat() as { params: [{ data: Hex }] }[]).map((call) => call.params[0].data.slice(0, 10));

  it("refuses an answer carried over from an older round (answeredInRound < roundId)", async () => {
    round.answeredInRound = 9n;
    const source = chainlink({ rpcUrl: rpc.url, feeds: { "BTC/USD": FEED } });
    expect((await sourceError(source.fetch(ask(["BTC"])))).message).toBe(
      `chainlink: BTC/USD feed ${FEED}: stale answer (answered in round 9, latest round 10)`,
    );
  });

  it("reads decimals() once per feed and latestRoundData() on every fetch", async () => {
    const source = chainlink({ rpcUrl: rpc.url, feeds: { "BTC/USD": FEED } });
    expect((await source.fetch(ask(["BTC"])))[0]!.price).toBe("67187.33");
    expect((await source.fetch(ask(["BTC"])))[0]!.price).toBe("67187.33");
    expect(calls().sort()).toEqual(["0x313ce567", "0xfeaf968c", "0xfeaf968c"]);
  });

  it("gives up on a node that hangs once timeoutMs has passed", async () => {
    rpc.reply = () => ({ hang: true });
    const started = performance.now();
    const error = await sourceError(chainlink({ rpcUrl: rpc.url, feeds: { "BTC/USD": FEED }, timeoutMs: 200 }).fetch(ask(["BTC"])));
    expect(performance.now() - started).toBeLessThan(1000);
    expect(error.message).toBe("chainlink: BTC/USD feed got no answer within 200 ms (timeoutMs)");
  });

  it("stops when the caller's signal aborts, and sends nothing when it already has", async () => {
    rpc.reply = () => ({ hang: true });
    const controller = new AbortController();
    const source = chainlink({ rpcUrl: rpc.url, feeds: { "BTC/USD": FEED } });
    const pending = source.fetch(ask(["BTC"], controller.signal));
    setTimeout(() => controller.abort(new Error("refresh cancelled")), 50);
    expect((await sourceError(pending)).message).toBe("chainlink: BTC/USD feed read was aborted (refresh cancelled)");
    const sent = rpc.requests.length;
    expect((await sourceError(source.fetch(ask(["BTC"], AbortSignal.abort(new Error("shutting down")))))).message).toBe(
      "chainlink: not read: aborted (shutting down)",
    );
    expect(rpc.requests.length).toBe(sent);
  });
});
