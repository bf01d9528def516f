import { erc20Abi, getAddress, parseEther, parseUnits, type Address, type Hash } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Harness } from "../../../helpers";
import { get } from "../../../http/v1/support";
import { startAnvil, type Anvil } from "./anvil";
import { deployToken, ethChain, HOT, liveHarness, livePayment, payment, payNative, payToken, settle, mintToken } from "./support";

/**
 * The books against the chain, on a real node (anvil), read the way an operator can: HTTP on
 * the router, `tick()`, and `admin.operatorReport()`. After ordinary payments, a stray coin, an
 * unlisted token, payouts, the consolidation sweep and a reorg deeper than the confirmations
 * that reverses a credited deposit, what the chain holds at every address the service controls
 * (deposit addresses, the forwarder factory, the hot wallet) is explained to the smallest unit:
 *
 *   for each served coin C (ETH, USDT):
 *     holdings(C) = balances(C)            sum of `available` in GET /v1/balances, every merchant
 *                 + fees(C)                the 0.5% of every deposit (each `deposits[].fee` of
 *                                          GET /v1/payments/:id) and the fee of every payout not
 *                                          FAILED (GET /v1/withdrawals, GET /v1/refunds)
 *                 + unsentPayouts(C)       payouts debited but not carried out on chain: those
 *                                          PROCESSING whose transaction (txHash) has no successful
 *                                          receipt yet; one mined but short of its confirmations
 *                                          has already left, though it is PROCESSING too
 *                 + takenBack(C)           what each reversal took back from a balance
 *                                          (report.reversedDeposits[].creditedAmount)
 *                 - reversedOnChain(C)     what each reversed deposit was on chain, coins that
 *                                          no longer exist (report.reversedDeposits[].amount)
 *                 + float(C)               what the operator put into the hot wallet itself
 *                 - gas(C)                 (C = ETH) gasUsed x effectiveGasPrice of every
 *                                          transaction the hot wallet sent
 *   for the unlisted token:
 *     holdings(AIR) = sum of report.unlistedTransfers[].amount for its contract
 *
 * takenBack - reversedOnChain is minus the fee of the reversed deposits: their fee is still
 * listed among the fees, but the coins it was taken from are gone. Read from the chain: the
 * float, the gas, and whether a PROCESSING payout's transaction is mined; everything else comes
 * from the service's answers. No answer sums the fees taken or spans merchants, so the test
 * walks each merchant's /v1 lists with a live key of its own (one GET per payment for its
 * deposits, which the list leaves out).
 *
 * The reorg's window (snapshot to revert) holds no transaction of the hot wallet: the deposit
 * it removes is below the ETH sweep minimum, so nothing sweeps it before the chain drops it.
 */

let node: Anvil;
let usdt: Address;
let air: Address;
let h: Harness;
let otherLiveKey: string;
let hotWallet: Address;
let factory: Address;
/** What the test put into the hot wallet: anvil's dev balance (ETH) and a minted float (USDT). */
let float: { ETH: bigint; USDT: bigint };

const DECIMALS = { ETH: 18, USDT: 6 } as const;
type Coin = keyof typeof DECIMALS;
const COINS: Coin[] = ["ETH", "USDT"];
const units = (amount: string, coin: Coin) => parseUnits(amount, DECIMALS[coin]);

beforeAll(async () => {
  node = await startAnvil();
  [usdt, air] = [await deployToken(node, "USDT", 6), getAddress(await deployToken(node, "AIR", 18))];
  hotWallet = node.account(HOT).address;
  // The hot wallet pays USDT payouts from a float of its own until sweeps bring coins in.
  await mintToken(node, usdt, hotWallet, "1000", 6);
  float = { ETH: await node.public.getBalance({ address: hotWallet }), USDT: parseUnits("1000", 6) };
  const chain = ethChain(node, { tokens: { USDT: { address: usdt, decimals: 6 } }, consolidation: { minimum: { ETH: "0.05" } } });
  factory = chain.factoryAddress;
  h = await liveHarness([chain]);
  otherLiveKey = (await h.router.admin.issueApiKey(h.other.id, { mode: "live" })).key;
}, 60_000);
afterAll(async () => {
  await h?.router.close();
  await node?.stop();
});

/** Background rounds with one block mined after each: deposits become final, sweeps confirm. */
async function rounds(count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    await h.router.tick();
    await node.mine(1);
  }
}

/** Every page of a /v1 list. */
async function list<T>(path: string, key: string): Promise<T[]> {
  const rows: T[] = [];
  for (let cursor: string | null = null; ; ) {
    const res = await get(h, `${path}${path.includes("?") ? "&" : "?"}limit=100${cursor ? `&cursor=${cursor}` : ""}`, key);
    expect(res.status, res.text).toBe(200);
    rows.push(...(res.body.data as T[]));
    cursor = res.body.nextCursor ?? null;
    if (!cursor) return rows;
  }
}

interface Deposit {
  currency: string;
  fee: string;
}
/** The terms of the identity for one coin, in its smallest unit. */
interface Terms {
  holdings: bigint;
  balances: bigint;
  fees: bigint;
  unsentPayouts: bigint;
  takenBack: bigint;
  reversedOnChain: bigint;
  float: bigint;
  gas: bigint;
}
interface Payout {
  currency: string;
  amount: string;
  fee: string;
  status: string;
  txHash: Hash | null;
}

/** Gas the hot wallet paid: gasUsed x effectiveGasPrice of each of its transactions on the chain. */
async function gasPaidByHotWallet(): Promise<bigint> {
  let gas = 0n;
  const head = await node.public.getBlockNumber();
  for (let n = 0n; n <= head; n++) {
    const block = await node.public.getBlock({ blockNumber: n, includeTransactions: true });
    for (const tx of block.transactions) {
      if (getAddress(tx.from) !== hotWallet) continue;
      const receipt = await node.public.getTransactionReceipt({ hash: tx.hash });
      gas += receipt.gasUsed * receipt.effectiveGasPrice;
    }
  }
  return gas;
}

/** What `holder` holds of a coin: the native balance, or an ERC-20's balanceOf. */
function holding(token: Address | null, holder: Address): Promise<bigint> {
  return token === null
    ? node.public.getBalance({ address: holder })
    : node.public.readContract({ address: token, abi: erc20Abi, functionName: "balanceOf", args: [holder] });
}

/**
 * Reads both sides of the identity in the comment above and asserts them equal, per coin, in
 * the smallest unit. Returns the terms, so a step can also assert what it expects to be in them.
 */
async function checkBooks() {
  const keys = [h.liveKey, otherLiveKey];
  const zero = (coin: Coin): Terms => ({
    holdings: 0n,
    balances: 0n,
    fees: 0n,
    unsentPayouts: 0n,
    takenBack: 0n,
    reversedOnChain: 0n,
    float: float[coin],
    gas: 0n,
  });
  const terms: Record<Coin, Terms> = { ETH: zero("ETH"), USDT: zero("USDT") };

  // The service's side, merchant by merchant (there is no operator-wide read of these).
  const addresses = new Set<Address>([hotWallet, factory]);
  for (const key of keys) {
    const balances = await get(h, "/v1/balances", key);
    expect(balances.status, balances.text).toBe(200);
    for (const row of balances.body.data as Array<{ currency: string; available: string; pending: string }>) {
      if (!(row.currency in DECIMALS)) continue;
      // Every deposit is final here: nothing is on chain that the balances do not know yet.
      expect(row.pending, `${row.currency} pending`).toBe("0");
      terms[row.currency as Coin].balances += units(row.available, row.currency as Coin);
    }
    for (const { id, address } of await list<{ id: string; address: string | null }>("/v1/payments", key)) {
      if (address) addresses.add(getAddress(address));
      const fetched = await get(h, `/v1/payments/${id}`, key);
      expect(fetched.status, fetched.text).toBe(200);
      for (const deposit of fetched.body.deposits as Deposit[]) {
        terms[deposit.currency as Coin].fees += units(deposit.fee, deposit.currency as Coin);
      }
    }
    const payouts = [...(await list<Payout>("/v1/withdrawals", key)), ...(await list<Payout>("/v1/refunds", key))];
    for (const payout of payouts) {
      const coin = payout.currency as Coin;
      if (payout.status === "FAILED") continue;
      terms[coin].fees += units(payout.fee, coin);
      if (payout.status !== "PROCESSING") continue;
      // PROCESSING says "not final", not "not sent": only the chain tells whether its coins left.
      const receipt = payout.txHash ? await node.public.getTransactionReceipt({ hash: payout.txHash }).catch(() => null) : null;
      if (receipt?.status !== "success") terms[coin].unsentPayouts += units(payout.amount, coin);
    }
  }
  const report = await h.router.admin.operatorReport({ mode: "live" });
  for (const reversed of report.reversedDeposits) {
    terms[reversed.coin as Coin].reversedOnChain += units(reversed.amount, reversed.coin as Coin);
    terms[reversed.creditedAsset as Coin].takenBack += units(reversed.creditedAmount!, reversed.creditedAsset as Coin);
  }
  terms.ETH.gas = await gasPaidByHotWallet();

  // The chain's side, at every address the service controls.
  for (const address of addresses) {
    terms.ETH.holdings += await holding(null, address);
    terms.USDT.holdings += await holding(usdt, address);
  }
  for (const coin of COINS) {
    const t = terms[coin];
    const explained = t.balances + t.fees + t.unsentPayouts + t.takenBack - t.reversedOnChain + t.float - t.gas;
    expect({ coin, holdings: t.holdings }).toEqual({ coin, holdings: explained });
  }

  // The unlisted token: never credited, never swept; the report names every unit of it.
  let airHeld = 0n;
  for (const address of addresses) airHeld += await holding(air, address);
  const airListed = report.unlistedTransfers
    .filter((transfer) => getAddress(transfer.token) === air)
    .reduce((sum, transfer) => sum + BigInt(transfer.amount), 0n);
  expect(airHeld).toBe(airListed);
  return { terms, report, airHeld, addresses };
}

async function withdraw(body: Record<string, unknown>) {
  const res = await h.post("/v1/withdrawals", { chain: "ETH", ...body }, h.liveKey);
  expect(res.status, res.text).toBe(200);
  return res.body as Payout & { id: string };
}

describe("the books against the chain", () => {
  it("explains on-chain holdings by the balances, the fees, unsent payouts, the float, gas, and the operator report, to the smallest unit", async () => {
    // Two payments to PAID, a stray coin, an unlisted token.
    const usdtPayment = await livePayment(h, { amount: "25", currency: "USDT", chain: "ETH" });
    const ethPayment = await livePayment(h, { amount: "0.1", currency: "ETH", chain: "ETH" });
    await payToken(node, usdt, 6, usdtPayment.address, "25");
    await payNative(node, ethPayment.address, "0.1");
    await payNative(node, usdtPayment.address, "0.06"); // stray: ETH to the USDT payment's address
    await payToken(node, air, 18, ethPayment.address, "777.000000000000000123"); // unlisted
    await node.mine(12);
    await settle(h);
    expect(await payment(h, usdtPayment.id)).toMatchObject({ status: "PAID", receivedAmount: "25" });
    expect(await payment(h, ethPayment.id)).toMatchObject({ status: "PAID", receivedAmount: "0.1" });
    expect((await payment(h, usdtPayment.id)).deposits).toContainEqual(
      expect.objectContaining({ currency: "ETH", amount: "0.06", status: "CONFIRMED", countsTowardPayment: false }),
    );

    // Payouts: USDT from the hot wallet's float (nothing is swept yet), ETH after.
    const usdtPayout = await withdraw({ currency: "USDT", amount: "10", address: node.account(4).address });
    // The sweep: both coins out of the deposit addresses (the factory is deployed on the way).
    await rounds(10);
    for (const address of [usdtPayment.address, ethPayment.address] as Address[]) {
      expect(await holding(null, address)).toBe(0n);
      expect(await holding(usdt, address)).toBe(0n);
    }
    expect(await holding(air, ethPayment.address as Address)).toBe(parseUnits("777.000000000000000123", 18));
    const ethPayout = await withdraw({ currency: "ETH", amount: "0.02", address: node.account(5).address });
    await node.mine(12);
    await settle(h);
    for (const payout of [usdtPayout, ethPayout]) expect((await get(h, `/v1/withdrawals/${payout.id}`, h.liveKey)).body.status).toBe("COMPLETED");
    await checkBooks();

    // A deep reorg: a credited deposit is removed by a branch longer than its 12 confirmations.
    const doomed = await livePayment(h, { amount: "0.02", currency: "ETH", chain: "ETH" });
    const mark = await node.test.snapshot();
    await payNative(node, doomed.address, "0.02");
    await node.mine(12);
    await settle(h);
    expect(await payment(h, doomed.id)).toMatchObject({ status: "PAID", receivedAmount: "0.02" });
    await node.test.revert({ id: mark });
    await node.mine(20);
    await settle(h);
    expect(await payment(h, doomed.id)).toMatchObject({ status: "PAID", receivedAmount: "0", reversedAmount: "0.02" });

    // One more payout, left in the node's pool: debited, not carried out.
    await node.test.setAutomine(false);
    try {
      const pending = await withdraw({ currency: "ETH", amount: "0.01", address: node.account(6).address });
      expect(pending.status).toBe("PROCESSING");
      const { terms, report, airHeld } = await checkBooks();
      // Every term the identity names is really at work here, in both coins.
      expect(report.reversedDeposits).toEqual([
        expect.objectContaining({ invoiceId: doomed.id, coin: "ETH", amount: "0.02", status: "REVERSED", creditedAsset: "ETH", creditedAmount: "0.0199" }),
      ]);
      expect(report.strayDeposits).toEqual([expect.objectContaining({ invoiceId: usdtPayment.id, coin: "ETH", amount: "0.06" })]);
      expect(airHeld).toBe(parseUnits("777.000000000000000123", 18));
      expect(terms.ETH.unsentPayouts).toBe(parseEther("0.01"));
      // 0.0005 + 0.0003 + 0.0001 of the deposits, 0.001 of each ETH payout; 0.125 and 5 in USDT.
      expect(terms.ETH.fees).toBe(parseEther("0.0029"));
      expect(terms.USDT.fees).toBe(parseUnits("5.125", 6));
      expect(terms.ETH.gas).toBeGreaterThan(0n);
    } finally {
      await node.test.setAutomine(true);
    }

    // Mined, one confirmation of 12: still PROCESSING, but its coins and gas have left.
    await node.mine(1);
    await settle(h);
    const mined = await list<Payout>("/v1/withdrawals?status=PROCESSING", h.liveKey);
    expect(mined).toHaveLength(1);
    expect((await checkBooks()).terms.ETH.unsentPayouts).toBe(0n);

    // Final: COMPLETED, and the books still agree.
    await node.mine(11);
    await settle(h);
    expect(await list<Payout>("/v1/withdrawals?status=PROCESSING", h.liveKey)).toEqual([]);
    await checkBooks();
  });
});
