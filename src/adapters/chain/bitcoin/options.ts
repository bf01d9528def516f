import { z } from "zod";
import { optionsError } from "../../../options-error";
import { parseDecimal } from "../../../money";

/** Options of `bitcoinChain()`. */
export interface BitcoinChainOptions {
  /** The currency list's coin ("BTC", "LTC"). */
  coin: string;
  /** The currency list's network code ("BTC", "LTC"). */
  network: string;
  /** Address rules and key formats: "bitcoin" or "litecoin". Default: "litecoin" for LTC, else "bitcoin". */
  family?: "bitcoin" | "litecoin";
  /**
   * JSON-RPC of a Bitcoin Core compatible node, credentials in the URL
   * (`http://user:password@127.0.0.1:8332`). The node needs no wallet and no `txindex`.
   * The credentials never reach a log or an error.
   */
  rpcUrl: string;
  /**
   * The account-level extended public key (BIP84 native segwit, m/84'/coin'/account'):
   * xpub/zpub (tpub/vpub on test networks), or Litecoin's Ltub/Mtub. Deposit addresses are its
   * receive addresses 0/i, within `gapLimit`.
   */
  xpub: string;
  /** The same account's extended private key: enables payouts (signed in process). Optional. */
  hotWallet?: string;
  /** Confirmations for this coin instead of the currency list's minConfirm. */
  confirmations?: number;
  /** Block height the very first scan starts at. Default: a reorg window below the head at the first scan. */
  startHeight?: number;
  /** Blocks read per poll. Default 50. */
  blocksPerPoll?: number;
  /** Payout fee rate in sat/vB: `estimatesmartfee` for `target` blocks, else `fallback`, never above `ceiling`. */
  feeRate?: { target?: number; fallback?: number; ceiling?: number };
  /** Per-request timeout in ms. Default 15000. */
  timeoutMs?: number;
  /**
   * Most deposit addresses left unused at once (the gap limit of the wallet that restores the
   * account: 20 in BIP44 and most wallets). Past it, an unpaid address of an expired payment is
   * handed out again, or a new payment answers 503. Raise it only with the wallet's own gap limit. Default 20.
   */
  gapLimit?: number;
  /** Typical seconds between blocks, reported in the sync status (health measures the scanner's lag from the blocks' own timestamps). Default: 150 for LTC, else 600. */
  blockSeconds?: number;
  /**
   * Low-balance threshold of the hot wallet, keyed by the coin (`{ LTC: "0.5" }`), a decimal
   * string in coin units. A balance below it is logged as a warning once (and once when it is
   * back above) and shown low by `payments.admin.hotWallets()`. Default: none.
   */
  lowBalance?: Record<string, string>;
  /**
   * The operator's own money in the hot wallet, keyed by the coin (`{ LTC: "0.1" }`), a decimal
   * string in coin units: what was put in for fees, not the merchants'. Reported by `holdings()`
   * so that reconciliation counts it. Default: none.
   */
  float?: Record<string, string>;
}

/** The options after checking, with defaults. */
export interface BitcoinSettings {
  coin: string;
  network: string;
  family: "bitcoin" | "litecoin";
  rpcUrl: string;
  xpub: string;
  hotWallet: string | null;
  confirmations: number | null;
  startHeight: number | null;
  blocksPerPoll: number;
  fee: { target: number; fallback: number; ceiling: number };
  timeoutMs: number;
  gapLimit: number;
  blockSeconds: number;
  /** The threshold in sats, or null. */
  lowBalance: bigint | null;
  /** The declared float in sats, or null. */
  float: bigint | null;
}

const schema = z.strictObject({
  coin: z.string().regex(/^[A-Z0-9]{2,10}$/, { error: "must be the currency list's symbol, such as BTC or LTC" }),
  network: z.string().regex(/^[A-Z0-9_-]{2,20}$/, { error: "must be the currency list's network code, such as BTC or LTC" }),
  family: z.enum(["bitcoin", "litecoin"]).optional(),
  rpcUrl: z.url({ protocol: /^https?$/, error: "must be an http(s) URL of the node's JSON-RPC, such as http://user:password@127.0.0.1:8332" }),
  // Keys are checked by parseAccountKey, whose messages never show them.
  xpub: z.string({ error: "is required: the account's extended public key" }).min(1, { error: "is required: the account's extended public key" }),
  hotWallet: z.string().min(1).optional(),
  confirmations: z.int().min(1).max(10_000).optional(),
  startHeight: z.int().min(0).optional(),
  blocksPerPoll: z.int().min(1).max(1_000).optional(),
  feeRate: z
    .strictObject({
      target: z.int().min(1).max(1008).optional(),
      fallback: z.number().positive().max(10_000).optional(),
      ceiling: z.number().positive().max(100_000).optional(),
    })
    .optional(),
  timeoutMs: z.int().min(100).max(300_000).optional(),
  gapLimit: z.int().min(1).max(100_000).optional(),
  blockSeconds: z.number().positive().max(86_400).optional(),
  lowBalance: z.record(z.string(), z.string().regex(/^\d+(\.\d+)?$/, { error: 'must be a decimal string in coin units, such as "0.5"' })).optional(),
  float: z.record(z.string(), z.string().regex(/^\d+(\.\d+)?$/, { error: 'must be a decimal string in coin units, such as "0.1"' })).optional(),
});

/** Checks `bitcoinChain()`'s options; messages name the option and never show a key or the URL. */
export function checkBitcoinOptions(options: BitcoinChainOptions): BitcoinSettings {
  const result = schema.safeParse(options ?? {});
  if (!result.success) throw optionsError("bitcoinChain", result.error, " ", schema);
  const value = result.data;
  const fee = { target: value.feeRate?.target ?? 6, fallback: value.feeRate?.fallback ?? 10, ceiling: value.feeRate?.ceiling ?? 500 };
  if (fee.fallback > fee.ceiling) throw new TypeError("bitcoinChain: feeRate.fallback is above feeRate.ceiling");
  return {
    coin: value.coin,
    network: value.network,
    family: value.family ?? (value.coin === "LTC" ? "litecoin" : "bitcoin"),
    rpcUrl: value.rpcUrl,
    xpub: value.xpub,
    hotWallet: value.hotWallet ?? null,
    confirmations: value.confirmations ?? null,
    startHeight: value.startHeight ?? null,
    blocksPerPoll: value.blocksPerPoll ?? 50,
    fee,
    timeoutMs: value.timeoutMs ?? 15_000,
    gapLimit: value.gapLimit ?? 20,
    blockSeconds: value.blockSeconds ?? (value.coin === "LTC" ? 150 : 600),
    lowBalance: coinAmount("lowBalance", value.lowBalance, value.coin),
    float: coinAmount("float", value.float, value.coin),
  };
}

/**
 * The sats of an option keyed by the coin (`lowBalance`, `float`: `{ LTC: "0.5" }`), or null
 * when it is not set. Throws, naming the option, for another coin or a finer amount than a sat.
 */
function coinAmount(option: string, amounts: Record<string, string> | undefined, served: string): bigint | null {
  let sats: bigint | null = null;
  for (const [coin, text] of Object.entries(amounts ?? {})) {
    if (coin !== served) throw new TypeError(`bitcoinChain: ${option}.${coin} names a coin this adapter does not serve; it serves ${served}`);
    try {
      sats = parseDecimal(text, 8);
    } catch {
      throw new TypeError(`bitcoinChain: ${option}.${coin} has more than 8 decimal places`);
    }
  }
  return sats;
}
