import { formatDecimal } from "../../money";
import type { CoreContext } from "../context";
import type { ChainAdapter, ChainHoldings, CoinHoldings } from "../ports/chain";
import { type DepositTotal, type PayoutTotal, requireStoragePart, type UnlistedTotal } from "../ports/storage/index";
import type {
  ReconcileAsset,
  ReconcileChain,
  ReconcileCount,
  ReconcileOptions,
  ReconcileReport,
  ReconcileRow,
  ReconcileUnlistedToken,
} from "./reconcile-report";

/** A count and an amount, in units. */
interface Sum {
  count: number;
  amount: bigint;
}
const none = (): Sum => ({ count: 0, amount: 0n });
const add = (sum: Sum, total: { count: number; amount: bigint }) => {
  sum.count += total.count;
  sum.amount += total.amount;
};

/** The records' side of one (network, coin), summed from the storage's totals. */
interface RecordSide {
  received: bigint;
  sent: bigint;
  payoutsInFlight: Sum;
  payoutsNotSent: Sum;
  pendingDeposits: Sum;
  reversedDeposits: Sum;
  strayDeposits: Sum;
}

/** A live chain and the networks it serves. */
interface LiveChain {
  adapter: ChainAdapter;
  networks: string[];
}

/**
 * Compares, per live chain and coin, what the records say the service holds with what the
 * chain says it holds (docs/operations.md, "Reconciliation"), then per asset what the chains
 * hold with what is owed to merchants. Reads the storage in aggregate (a few rows, no lock) and
 * each chain's `holdings()` in parallel; a chain that cannot be read gets an error entry and
 * the rest of the report still runs. Throws a TypeError for a `chain` no live chain serves.
 */
export async function reconcile(context: CoreContext, options: ReconcileOptions = {}): Promise<ReconcileReport> {
  const live = liveChains(context);
  const wanted = options.chain;
  if (wanted !== undefined && (typeof wanted !== "string" || !live.some((chain) => chain.networks.includes(wanted)))) {
    const known = live.flatMap((chain) => chain.networks);
    throw new TypeError(`reconcile: chain must be the network of a live chain (${known.join(", ") || "none is configured"}), not ${JSON.stringify(wanted)}`);
  }
  const chosen = wanted === undefined ? live : live.filter((chain) => chain.networks.includes(wanted));
  const storage = requireStoragePart(context.storage, "reconcile", "The reconcile report");
  const [deposits, payouts, balances, unlisted, readings] = await Promise.all([
    storage.depositTotals("live"),
    storage.payoutTotals("live"),
    storage.balanceTotals("live"),
    storage.unlistedTotals("live"),
    Promise.all(chosen.map((chain) => readHoldings(context, chain))),
  ]);
  const records = recordSides(deposits, payouts);
  const decimals = (coin: string) => context.currencies.decimalsOf(coin) ?? 18; // 18: a native coin the list lacks (read for gas only)
  const chains: ReconcileChain[] = [];
  // What each read network holds per coin, float taken out, and the network fees it paid, for the assets below.
  const held = new Map<string, bigint>();
  const paid = new Map<string, bigint>();
  const readNetworks = new Set<string>();
  for (const [i, chain] of chosen.entries()) {
    const reading = readings[i]!;
    for (const network of wanted === undefined ? chain.networks : [wanted]) {
      const tokens = unlistedTokens(unlisted, network);
      if ("error" in reading) {
        chains.push({ network, error: reading.error, unlistedTokens: tokens });
        continue;
      }
      if (reading.network !== network) continue; // An adapter reads the one network it serves.
      readNetworks.add(network);
      const rows = rowsOf(network, reading, records, decimals);
      for (const coin of reading.coins) {
        held.set(coin.coin, (held.get(coin.coin) ?? 0n) + coin.hotWallet + coin.depositAddresses - coin.float);
        paid.set(coin.coin, (paid.get(coin.coin) ?? 0n) + coin.networkFees);
      }
      chains.push({ network, height: reading.height, rows, unlistedTokens: tokens });
    }
  }
  const assets = assetRows(context, { balances, deposits, payouts, held, paid, readNetworks, chosen: wanted, decimals });
  const differences =
    chains.reduce((count, chain) => count + ("rows" in chain ? chain.rows.filter((row) => row.difference !== "0").length : 0), 0) +
    assets.filter((asset) => asset.shortfall).length;
  const errors = chains.filter((chain) => "error" in chain && chain.error !== undefined).length;
  for (const asset of assets.filter((row) => row.shortfall)) {
    context.logger.error(`reconcile: the chains hold ${asset.held} ${asset.asset} (float taken out) but ${asset.owed} ${asset.asset} is owed to merchants`);
  }
  return { mode: "live", generatedAt: new Date(context.now()).toISOString(), differences, errors, clean: differences === 0 && errors === 0, chains, assets };
}

/** Every live chain, with the networks of the currency list it serves (in list order). */
function liveChains(context: CoreContext): LiveChain[] {
  return context.chains.all("live").map((adapter) => {
    const networks = new Set<string>();
    for (const currency of context.currencies.currencies) {
      for (const { network } of currency.networks) if (context.chains.forPair("live", currency.symbol, network) === adapter) networks.add(network);
    }
    return { adapter, networks: [...networks] };
  });
}

/** One chain's holdings, or why it could not be read (adapters scrub node errors of URLs and keys). */
async function readHoldings(context: CoreContext, chain: LiveChain): Promise<ChainHoldings | { error: string }> {
  const refused = context.chains.refusal(chain.adapter);
  if (refused) return { error: `out of service: ${refused}` };
  if (!chain.adapter.holdings) return { error: `the ${chain.adapter.name} chain adapter cannot report its holdings` };
  try {
    return await chain.adapter.holdings();
  } catch (error) {
    return { error: error instanceof Error ? error.message : String(error) };
  }
}

/** The records' side of every (network, coin) found in the totals. */
function recordSides(deposits: readonly DepositTotal[], payouts: readonly PayoutTotal[]): Map<string, RecordSide> {
  const sides = new Map<string, RecordSide>();
  const side = (network: string, coin: string): RecordSide => {
    const key = `${network}\u0000${coin}`;
    let found = sides.get(key);
    if (!found) {
      found = {
        received: 0n,
        sent: 0n,
        payoutsInFlight: none(),
        payoutsNotSent: none(),
        pendingDeposits: none(),
        reversedDeposits: none(),
        strayDeposits: none(),
      };
      sides.set(key, found);
    }
    return found;
  };
  for (const total of deposits) {
    const row = side(total.network, total.coin);
    if (total.status === "CONFIRMED") row.received += total.amount;
    if (total.status === "CONFIRMED" && total.stray) add(row.strayDeposits, total);
    if (total.status === "PENDING") add(row.pendingDeposits, total);
    if (total.status === "REVERSED") add(row.reversedDeposits, total);
  }
  for (const total of payouts) {
    const row = side(total.network, total.coin);
    if (total.status === "COMPLETED" || (total.status === "PROCESSING" && total.sent)) row.sent += total.amount;
    if (total.status === "PROCESSING") add(total.sent ? row.payoutsInFlight : row.payoutsNotSent, total);
    // Held for approval, or a refund claim link's hold: debited, never sent (a rejection, cancel or expiry credits it back).
    if (total.status === "AWAITING_APPROVAL" || total.status === "AWAITING_CLAIM") add(row.payoutsNotSent, total);
  }
  return sides;
}

/** The rows of one read network: every coin the chain reported, and any the records have there besides. */
function rowsOf(network: string, reading: ChainHoldings, records: Map<string, RecordSide>, decimals: (coin: string) => number): ReconcileRow[] {
  const coins = new Map<string, CoinHoldings>(reading.coins.map((coin) => [coin.coin, coin]));
  for (const key of records.keys()) {
    const [net, coin] = key.split("\u0000") as [string, string];
    if (net === network && !coins.has(coin)) coins.set(coin, { coin, hotWallet: 0n, depositAddresses: 0n, networkFees: 0n, float: 0n });
  }
  return [...coins.values()].map((chain) => {
    const side = records.get(`${network}\u0000${chain.coin}`) ?? emptySide();
    const expected = side.received - side.sent - chain.networkFees + chain.float;
    const onChain = chain.hotWallet + chain.depositAddresses;
    const d = decimals(chain.coin);
    const text = (units: bigint) => formatDecimal(units, d);
    const count = (sum: Sum): ReconcileCount => ({ count: sum.count, amount: text(sum.amount) });
    return {
      coin: chain.coin,
      received: text(side.received),
      sent: text(side.sent),
      networkFees: text(chain.networkFees),
      float: text(chain.float),
      expected: text(expected),
      hotWallet: text(chain.hotWallet),
      depositAddresses: text(chain.depositAddresses),
      onChain: text(onChain),
      difference: text(onChain - expected),
      explained: {
        payoutsInFlight: count(side.payoutsInFlight),
        payoutsNotSent: count(side.payoutsNotSent),
        pendingDeposits: count(side.pendingDeposits),
        reversedDeposits: count(side.reversedDeposits),
        strayDeposits: count(side.strayDeposits),
      },
    };
  });
}

function emptySide(): RecordSide {
  return { received: 0n, sent: 0n, payoutsInFlight: none(), payoutsNotSent: none(), pendingDeposits: none(), reversedDeposits: none(), strayDeposits: none() };
}

/** The unlisted-token rows of one network. */
function unlistedTokens(totals: readonly UnlistedTotal[], network: string): ReconcileUnlistedToken[] {
  return totals.filter((total) => total.network === network).map((total) => ({ token: total.token, transfers: total.count, amount: total.amount.toString() }));
}

/** Payout statuses whose debit stands (sent, on its way, or held): their fee is the service's. */
const FEE_KEPT: ReadonlySet<PayoutTotal["status"]> = new Set(["PROCESSING", "COMPLETED", "AWAITING_APPROVAL", "AWAITING_CLAIM"]);

/**
 * The service's own fees in `asset`, across every network: 0.5% of each deposit credited (and
 * not reversed), and the fees debited with payouts whose debit stands (a FAILED, REJECTED,
 * CANCELLED or EXPIRED payout gave its fee back). They are in the chains' holdings and owed to
 * no merchant: the operator's.
 */
function serviceFees(asset: string, deposits: readonly DepositTotal[], payouts: readonly PayoutTotal[]): bigint {
  let fees = 0n;
  for (const total of deposits) if (total.coin === asset && total.status === "CONFIRMED") fees += total.fee;
  for (const total of payouts) if (total.coin === asset && FEE_KEPT.has(total.status)) fees += total.fee;
  return fees;
}

/**
 * One row per asset that has a balance or is held: owed (balances and payouts not yet sent)
 * against held, with the service's fees (less the network fees its transactions paid) counted
 * as the operator's, so a clean run's surplus is 0. `held` is known only when every live
 * network serving the asset was read (and none was left out by the `chain` filter).
 */
function assetRows(
  context: CoreContext,
  input: {
    balances: ReadonlyArray<{ asset: string; amount: bigint; deficits: number; deficit: bigint }>;
    deposits: readonly DepositTotal[];
    payouts: readonly PayoutTotal[];
    held: ReadonlyMap<string, bigint>;
    paid: ReadonlyMap<string, bigint>;
    readNetworks: ReadonlySet<string>;
    chosen: string | undefined;
    decimals: (coin: string) => number;
  },
): ReconcileAsset[] {
  const symbols = new Set<string>([...input.balances.map((row) => row.asset), ...input.held.keys()]);
  return [...symbols].sort().flatMap((asset) => {
    const currency = context.currencies.currencies.find((entry) => entry.symbol === asset);
    const networks = currency ? context.chains.networks("live", currency).map((entry) => entry.network) : [];
    // A chain filter reports the assets of that chain only.
    if (input.chosen !== undefined && !networks.includes(input.chosen)) return [];
    const balance = input.balances.find((row) => row.asset === asset) ?? { amount: 0n, deficits: 0, deficit: 0n };
    const notSent = input.payouts
      .filter(
        (row) => row.coin === asset && (row.status === "PROCESSING" || row.status === "AWAITING_APPROVAL" || row.status === "AWAITING_CLAIM") && !row.sent,
      )
      .reduce((sum, row) => sum + row.amount, 0n);
    const owed = balance.amount + notSent;
    const complete = networks.every((network) => input.readNetworks.has(network));
    const held = complete ? (input.held.get(asset) ?? 0n) : null;
    const fees = serviceFees(asset, input.deposits, input.payouts);
    const networkFees = complete ? (input.paid.get(asset) ?? 0n) : null;
    const text = (units: bigint) => formatDecimal(units, input.decimals(asset));
    return [
      {
        asset,
        balances: text(balance.amount),
        deficits: { count: balance.deficits, amount: text(-balance.deficit) },
        payoutsNotSent: text(notSent),
        owed: text(owed),
        fees: text(fees),
        networkFees: networkFees === null ? null : text(networkFees),
        held: held === null ? null : text(held),
        surplus: held === null || networkFees === null ? null : text(held - owed - fees + networkFees),
        shortfall: held !== null && held < owed,
      },
    ];
  });
}
