import { hex } from "@scure/base";
import type { HDKey } from "@scure/bip32";
import { p2wpkh } from "@scure/btc-signer";
import { derive } from "./keys";

/**
 * The outputs a Bitcoin-family adapter keeps track of (final deposits and the change of its own
 * payouts), each with the account whose keys spend it, and how an account tells its own.
 */

/** An output the service received: a final deposit, or change of its own payouts. */
export interface Coin {
  txid: string;
  vout: number;
  sats: string;
  branch: 0 | 1;
  index: number;
  /**
   * The account whose key `branch/index` spends it ({@link accountId}). Absent on outputs stored
   * before outputs carried their account: those are told apart by their script (see {@link CoinOwner.owns}).
   */
  account?: string;
  /** Change waits for its payout's confirmations before it is spent again. */
  confirmed: boolean;
  /** The payout whose transaction spends it, once signed ("unknown": found spent by something else). */
  spentBy: string | null;
}

/** Where an output is: transaction and index. */
export interface Outpoint {
  txid: string;
  vout: number;
}

/** The one node call the coin reads need. */
export interface CoinNode {
  /**
   * For each outpoint, the scriptPubKey (hex) of the output when it is unspent (`gettxout` with
   * the mempool: an output a waiting transaction spends is spent), else null. Batched.
   */
  unspentScripts(outpoints: readonly Outpoint[]): Promise<Array<string | null>>;
}

/** Outputs asked of the node per batch: bounded requests however many outputs the service holds. */
export const COIN_PAGE = 100;

/**
 * The identity of an account: the BIP32 identifier of its account-level key (hash160 of its
 * public key, whose first 4 bytes are the key's fingerprint), in hex. The same for the xpub and
 * the xprv of one account, different for any other account.
 */
export function accountId(key: HDKey): string {
  if (!key.identifier) throw new TypeError("The account key has no public key");
  return hex.encode(key.identifier);
}

/** The stored coin list (JSON under the adapter's `coins` key). */
export function parseCoins(text: string | null): Coin[] {
  return JSON.parse(text ?? "[]") as Coin[];
}

/** `coin`'s key in maps of outpoints. */
export function outpointKey(coin: Outpoint): string {
  return `${coin.txid}:${coin.vout}`;
}

/** The unspent scripts of `coins` (see {@link CoinNode.unspentScripts}), asked in pages of {@link COIN_PAGE}. */
export async function unspentScripts(node: CoinNode, coins: readonly Outpoint[]): Promise<Array<string | null>> {
  const answers: Array<string | null> = [];
  for (let i = 0; i < coins.length; i += COIN_PAGE) answers.push(...(await node.unspentScripts(coins.slice(i, i + COIN_PAGE))));
  return answers;
}

/** Tells the configured account's outputs from those of accounts configured before it (key rotation). */
export class CoinOwner {
  /** The current account's identity ({@link accountId}). */
  readonly id: string;

  constructor(private readonly key: HDKey) {
    this.id = accountId(key);
  }

  /**
   * Whether the current account's key spends `coin`. A coin that names its account is the
   * current one's when the names match; one stored before coins named their account is when its
   * unspent output's `script` (from the node) pays the current account's key at the coin's path.
   * Without the script (spent, or not asked), such a coin is not taken as ours.
   */
  owns(coin: Coin, script: string | null): boolean {
    if (coin.account !== undefined) return coin.account === this.id;
    return script !== null && script.toLowerCase() === this.scriptAt(coin.branch, coin.index);
  }

  /** The P2WPKH scriptPubKey (hex) of `branch/index` of the current account: the same on every network. */
  scriptAt(branch: 0 | 1, index: number): string {
    const publicKey = derive(this.key, branch, index).publicKey;
    if (!publicKey) throw new TypeError("The derived key has no public key");
    return hex.encode(p2wpkh(publicKey).script);
  }
}
