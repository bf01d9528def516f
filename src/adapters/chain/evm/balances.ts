import { erc20Abi, type Address, type PublicClient } from "viem";
import type { HotWalletBalance } from "../../../core/ports/chain";
import { rescaleDown, rescaleUp } from "../../../money";
import type { WatchedAsset } from "./scanner";

/** Gas a payout transfer takes: a plain transfer, and the hot wallet's fallback limit for a token transfer. */
const NATIVE_TRANSFER_GAS = 21_000n;
const TOKEN_TRANSFER_GAS = 120_000n;

/** What the balance reader needs of the adapter. */
export interface HotWalletBalancesSettings {
  client: PublicClient;
  network: string;
  address: Address;
  /** The native coin's symbol, or null when the adapter serves tokens only (gas is then not checked). */
  nativeCoin: string | null;
  /** The coins the adapter pays out. */
  assets: readonly WatchedAsset[];
  /** Ledger decimals of a coin (18 for a native coin the currency list lacks). */
  decimals: (coin: string) => number;
  /** Low-balance thresholds in ledger units. */
  lowBalance: ReadonlyMap<string, bigint>;
}

/**
 * The hot wallet's balances at the pending block (so payouts broadcast and not yet mined are
 * out of them already): the native coin, which pays the gas, and every token paid out, in
 * ledger units rounded down (what can surely be paid).
 */
export async function readHotWalletBalances(settings: HotWalletBalancesSettings): Promise<HotWalletBalance[]> {
  const { client, address, network } = settings;
  const coins: Array<{ coin: string; token: Address | null; chainDecimals: number }> = settings.assets.map((asset) => ({ ...asset }));
  if (settings.nativeCoin !== null && !coins.some((asset) => asset.token === null))
    coins.unshift({ coin: settings.nativeCoin, token: null, chainDecimals: 18 });
  // A few calls in one batched request (the transport batches): no multicall contract needed.
  const amounts = await Promise.all(
    coins.map((asset) =>
      asset.token === null
        ? client.getBalance({ address, blockTag: "pending" })
        : client.readContract({ address: asset.token, abi: erc20Abi, functionName: "balanceOf", args: [address], blockTag: "pending" }),
    ),
  );
  return coins.map((asset, i) => ({
    coin: asset.coin,
    network,
    address,
    amount: rescaleDown(amounts[i]!, asset.chainDecimals, settings.decimals(asset.coin)),
    lowBalance: settings.lowBalance.get(asset.coin) ?? null,
  }));
}

/**
 * What a payout takes from the hot wallet: its amount, and gas in the native coin at today's
 * gas price for the gas limit a transfer of it takes (the estimate the hot wallet falls back
 * on for a token). An estimate: the fee actually paid is usually lower.
 */
export async function payoutNeeds(
  settings: HotWalletBalancesSettings,
  request: { coin: string; amount: bigint },
): Promise<Array<{ coin: string; amount: bigint }>> {
  if (settings.nativeCoin === null) return [{ coin: request.coin, amount: request.amount }];
  const isToken = settings.assets.some((asset) => asset.coin === request.coin && asset.token !== null);
  const gasPrice = await settings.client.getGasPrice();
  const gas = rescaleUp((isToken ? TOKEN_TRANSFER_GAS : NATIVE_TRANSFER_GAS) * gasPrice, 18, settings.decimals(settings.nativeCoin));
  if (!isToken) return [{ coin: request.coin, amount: request.amount + gas }];
  return [
    { coin: request.coin, amount: request.amount },
    { coin: settings.nativeCoin, amount: gas },
  ];
}
