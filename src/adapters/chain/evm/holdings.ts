import {
  decodeFunctionData,
  erc20Abi,
  parseTransaction,
  TransactionNotFoundError,
  TransactionReceiptNotFoundError,
  type Address,
  type PublicClient,
} from "viem";
import type { ChainHoldings, ChainStateStore } from "../../../core/ports/chain";
import { rescaleDown } from "../../../money";
import type { HotWallet } from "./hot-wallet";
import type { WatchedAsset } from "./scanner";

/** Node calls sent together (the transport batches them into JSON-RPC batches of 100). */
const BATCH = 100;

/** What reading the holdings needs of the adapter. */
export interface HoldingsSettings {
  client: PublicClient;
  network: string;
  /** The hot wallet's address. */
  address: Address;
  /** The native coin (fees are paid in it), or null for a tokens-only adapter. */
  nativeCoin: string | null;
  /** The coins served. */
  assets: readonly WatchedAsset[];
  /** Ledger decimals of a coin (18 for a native coin the currency list lacks). */
  decimals: (coin: string) => number;
  /** The declared float, in ledger units. */
  float: ReadonlyMap<string, bigint>;
  wallet: () => Promise<HotWallet>;
  /** Deposit addresses holding final deposits not yet swept, with their coin. */
  depositAddresses: () => Promise<Array<{ coin: string; address: string }>>;
  /** Durable state: the fee checkpoint lives under `namespace`. */
  state: ChainStateStore;
  namespace: string;
  /** Blocks after which a receipt is taken as settled for good: the checkpoint never moves past a shallower one. */
  confirmations: number;
  logger: { warn(message: string): void };
}

/** Fees summed up to (not including) `nonce`, in wei. */
interface FeeCheckpoint {
  nonce: number;
  total: string;
}

/**
 * One reading of what the chain holds for the service, every balance at one block (the head
 * when read): the hot wallet, less what its transactions broadcast and not yet mined send (their
 * payouts have left in the records' view); the deposit addresses in the sweep list and the sweep
 * in flight; and the network fees the hot wallet's own transactions paid, summed from receipts
 * nonce by nonce from a stored checkpoint, so each run reads only new receipts.
 */
export async function readHoldings(settings: HoldingsSettings): Promise<ChainHoldings> {
  const { client, address } = settings;
  const wallet = await settings.wallet();
  const height = await client.getBlockNumber();
  const at = { blockNumber: height };
  const coins: WatchedAsset[] = settings.assets.map((asset) => ({ ...asset }));
  if (settings.nativeCoin !== null && !coins.some((asset) => asset.token === null))
    coins.unshift({ coin: settings.nativeCoin, token: null, chainDecimals: 18 });
  const balanceOf = (asset: WatchedAsset, holder: Address) =>
    asset.token === null
      ? client.getBalance({ address: holder, ...at })
      : client.readContract({ address: asset.token, abi: erc20Abi, functionName: "balanceOf", args: [holder], ...at });

  const [minedNonce, deposits] = await Promise.all([client.getTransactionCount({ address, ...at }), settings.depositAddresses()]);
  const hot = await Promise.all(coins.map((asset) => balanceOf(asset, address)));
  const atAddresses = new Map<string, bigint>(coins.map((asset) => [asset.coin, 0n]));
  const listed = deposits.filter((entry) => atAddresses.has(entry.coin));
  for (let i = 0; i < listed.length; i += BATCH) {
    const page = listed.slice(i, i + BATCH);
    const amounts = await Promise.all(page.map((entry) => balanceOf(coins.find((asset) => asset.coin === entry.coin)!, entry.address as Address)));
    for (const [j, entry] of page.entries()) atAddresses.set(entry.coin, atAddresses.get(entry.coin)! + amounts[j]!);
  }
  const leaving = await unminedSends(settings, wallet, minedNonce, coins);
  const fees = await feesPaid(settings, wallet, height, minedNonce);
  return {
    network: settings.network,
    height: Number(height),
    coins: coins.map((asset, i) => {
      const ledger = (units: bigint) => rescaleDown(units, asset.chainDecimals, settings.decimals(asset.coin));
      return {
        coin: asset.coin,
        hotWallet: ledger(hot[i]! - (leaving.get(asset.coin) ?? 0n)),
        depositAddresses: ledger(atAddresses.get(asset.coin)!),
        networkFees: asset.token === null ? ledger(fees) : 0n,
        float: settings.float.get(asset.coin) ?? 0n,
      };
    }),
  };
}

/**
 * What the hot wallet's transactions that the node has (in its pool) but that are not mined at
 * the block read will send, per coin in chain units: a native value, or an ERC-20 transfer of
 * a served token. Transactions signed but never broadcast are not counted (their payouts have
 * no transaction hash in the records either).
 */
async function unminedSends(settings: HoldingsSettings, wallet: HotWallet, minedNonce: number, coins: readonly WatchedAsset[]): Promise<Map<string, bigint>> {
  const leaving = new Map<string, bigint>();
  const next = await wallet.nextNonce();
  for (let nonce = minedNonce; nonce < next; nonce++) {
    for (const signed of await wallet.signedAt(nonce)) {
      if (!(await known(settings.client, signed.hash))) continue;
      const tx = parseTransaction(signed.raw);
      const native = coins.find((asset) => asset.token === null);
      if (native && tx.value) leaving.set(native.coin, (leaving.get(native.coin) ?? 0n) + tx.value);
      const token = coins.find((asset) => asset.token !== null && tx.to?.toLowerCase() === asset.token.toLowerCase());
      if (token && tx.data) {
        const amount = transferAmount(tx.data);
        if (amount !== null) leaving.set(token.coin, (leaving.get(token.coin) ?? 0n) + amount);
      }
    }
  }
  return leaving;
}

/** The amount of an ERC-20 `transfer` call, or null for other data. */
function transferAmount(data: `0x${string}`): bigint | null {
  try {
    const call = decodeFunctionData({ abi: erc20Abi, data });
    return call.functionName === "transfer" ? call.args[1] : null;
  } catch {
    return null;
  }
}

async function known(client: PublicClient, hash: `0x${string}`): Promise<boolean> {
  try {
    await client.getTransaction({ hash });
    return true;
  } catch (error) {
    if (error instanceof TransactionNotFoundError) return false;
    throw error;
  }
}

/**
 * Gas the hot wallet paid in wei (gasUsed x effectiveGasPrice) for every nonce it used up to
 * the block read, from the stored checkpoint on. The checkpoint moves only past nonces mined
 * `confirmations` deep, so a reorg never leaves a fee counted that the chain no longer has.
 * A nonce used by a transaction the service did not sign (the key used elsewhere, or sent
 * before the wallet kept its nonce index) is not counted and is logged.
 */
async function feesPaid(settings: HoldingsSettings, wallet: HotWallet, height: bigint, minedNonce: number): Promise<bigint> {
  const { client, state } = settings;
  const key = `${settings.namespace}:fees`;
  const stored = parseCheckpoint(await state.get(key));
  const deep = height - BigInt(settings.confirmations) + 1n;
  const settledNonce = deep < 0n ? 0 : await client.getTransactionCount({ address: settings.address, blockNumber: deep });
  let total = BigInt(stored.total);
  let settledTotal = total;
  const unknown: number[] = [];
  for (let first = stored.nonce; first < minedNonce; first += BATCH) {
    const nonces = Array.from({ length: Math.min(BATCH, minedNonce - first) }, (_, i) => first + i);
    const paid = await Promise.all(nonces.map((nonce) => feeAt(client, wallet, nonce)));
    for (const [i, fee] of paid.entries()) {
      if (fee === null) unknown.push(nonces[i]!);
      else total += fee;
      if (nonces[i]! < settledNonce) settledTotal = total;
    }
  }
  if (unknown.length > 0) {
    settings.logger.warn(
      `${settings.network}: the fees of the hot wallet's nonces ${unknown.slice(0, 10).join(", ")}${unknown.length > 10 ? "…" : ""} are not counted: no transaction the service signed is mined at them`,
    );
  }
  const reach = Math.min(settledNonce, minedNonce);
  if (reach > stored.nonce) {
    await state.withLock(key, async (view) => {
      // Another instance may have moved it further meanwhile: keep the furthest.
      if (parseCheckpoint(await view.get(key)).nonce >= reach) return;
      await view.set(key, JSON.stringify({ nonce: reach, total: settledTotal.toString() } satisfies FeeCheckpoint));
    });
  }
  return total;
}

/** The fee of the transaction mined at `nonce` among those the wallet signed there, or null when none of them is mined. */
async function feeAt(client: PublicClient, wallet: HotWallet, nonce: number): Promise<bigint | null> {
  for (const signed of await wallet.signedAt(nonce)) {
    try {
      const receipt = await client.getTransactionReceipt({ hash: signed.hash });
      return receipt.gasUsed * receipt.effectiveGasPrice;
    } catch (error) {
      if (!(error instanceof TransactionReceiptNotFoundError)) throw error;
    }
  }
  return null;
}

function parseCheckpoint(text: string | null): FeeCheckpoint {
  return text === null ? { nonce: 0, total: "0" } : (JSON.parse(text) as FeeCheckpoint);
}
