import type { ChainAdapter, HotWalletBalance } from "./ports/chain";
import type { CoreContext } from "./context";
import { PaymentError } from "../errors";
import { formatDecimal } from "../money";
import type { Mode } from "./ports/records";

/**
 * Refuses (with `hot_wallet_insufficient`, before anything is debited) a payout the hot wallet
 * cannot fund: for each coin the payout spends (`ChainAdapter.payoutNeeds`: its amount, and gas
 * on EVM), the wallet's balance less the payouts of that coin not yet sent must cover it.
 *
 * The balance is read fresh from the node here rather than taken from the background reading:
 * that one may be a minute old, and a payout sent or a sweep made since would count wrongly;
 * creating a payout calls the node anyway (to send it). Payouts already broadcast are in the
 * balance the adapter reports (pending block, spent outputs); those not yet sent are counted
 * here. A node that cannot be read refuses nothing: the payout is taken and sent when the node
 * answers, as before. Two payouts created at the same instant may both pass; the second then
 * waits, PROCESSING, until the wallet is topped up.
 */
export async function refuseIfHotWalletShort(
  context: CoreContext,
  mode: Mode,
  chain: ChainAdapter,
  request: { merchantId: string; coin: string; network: string; amount: bigint; fee: bigint },
): Promise<void> {
  if (mode !== "live" || !chain.hotWalletBalances) return;
  // A merchant whose own balance falls short hears that (42201, from the debit), not the
  // operator's wallet state; the debit checks it again atomically.
  if ((await context.storage.getBalance({ merchantId: request.merchantId, mode }, request.coin)) < request.amount + request.fee) return;
  let balances: HotWalletBalance[];
  let needs: Array<{ coin: string; amount: bigint }>;
  try {
    [balances, needs] = await Promise.all([
      chain.hotWalletBalances(),
      chain.payoutNeeds?.({ coin: request.coin, network: request.network, amount: request.amount }) ?? [{ coin: request.coin, amount: request.amount }],
    ]);
  } catch (error) {
    context.logger.warn(`the ${request.network} hot wallet could not be read before a ${request.coin} payout; the payout is taken unchecked`, error);
    return;
  }
  if (balances.length === 0) return;
  const waiting = await unsent(context, mode, chain, request.network);
  for (const need of needs) {
    const balance = balances.find((entry) => entry.coin === need.coin && entry.network === request.network);
    if (!balance) continue;
    const available = balance.amount - (waiting.get(need.coin) ?? 0n);
    if (available >= need.amount) continue;
    const decimals = context.currencies.decimalsOf(need.coin) ?? 0;
    const gas = need.coin === request.coin ? "" : ` for the fee of a ${request.coin} payout`;
    throw new PaymentError(
      "hot_wallet_insufficient",
      `The ${request.network} hot wallet cannot fund this payout right now: it needs ${formatDecimal(need.amount, decimals)} ${need.coin}${gas} and has ${formatDecimal(available > 0n ? available : 0n, decimals)} available. Nothing was debited; try again once the operator has topped it up.`,
    );
  }
}

/** By coin, the amounts of this chain's payouts on `network` that are taken but not yet broadcast: one paged read. */
async function unsent(context: CoreContext, mode: Mode, chain: ChainAdapter, network: string): Promise<Map<string, bigint>> {
  const totals = new Map<string, bigint>();
  let after: string | null = null;
  for (;;) {
    const page = await context.storage.listPayoutsByStatus(mode, "PROCESSING", 500, after);
    for (const payout of page) {
      if (payout.txHash === null && payout.network === network && context.chains.forPair(mode, payout.coin, network) === chain)
        totals.set(payout.coin, (totals.get(payout.coin) ?? 0n) + payout.amount);
    }
    if (page.length < 500) return totals;
    after = page.at(-1)!.id;
  }
}
