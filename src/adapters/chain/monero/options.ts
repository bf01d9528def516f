import { z } from "zod";
import { optionsError } from "../../../options-error";
import { parseMoneroAddress, type MoneroAddress } from "./address";
import { isPrivateKeyHex } from "./keys";

/** Options of `moneroChain()`. */
export interface MoneroChainOptions {
  /** The currency list's network code. Default "XMR". */
  network?: string;
  /** `monerod`'s RPC (`http://127.0.0.1:18081`): its network, height, pool and transactions. */
  daemonUrl: string;
  /**
   * A `monero-wallet-rpc` for the service's view-only wallet (run with `--wallet-dir`, on a
   * private interface, with `--disable-rpc-login`): the adapter opens the wallet named
   * `walletName` there, or makes it from `address` and `viewKey` when it does not exist. That
   * wallet RPC serves this wallet only (a wallet RPC holds one wallet open at a time).
   */
  walletRpcUrl: string;
  /** The merchant's primary address (standard, 4... on mainnet and regtest, 5... on stagenet, 9... on testnet). */
  address: string;
  /** The private view key of `address` (64 hex digits): sees incoming payments, cannot spend. Never logged or shown. */
  viewKey: string;
  /** The view-only wallet's file name in the wallet RPC's `--wallet-dir`. Default "express-crypto-pay-view". */
  walletName?: string;
  /** Its password. Default "" (the file holds a view key only). Never logged or shown. */
  walletPassword?: string;
  /** Block height the view-only wallet starts scanning at when it is made. Default: the node's height then. */
  restoreHeight?: number;
  /**
   * The hot wallet that pays payouts: a second `monero-wallet-rpc` with a full wallet (spend key)
   * in its `--wallet-dir`, opened by name with its password. Without it, payouts answer 503.
   */
  hotWallet?: { walletRpcUrl: string; walletName?: string; password?: string };
  /** Confirmations after which a deposit is final, instead of the currency list's minConfirm (10 for XMR). */
  confirmations?: number;
  /** Per-request timeout in ms. Default 30000 (a wallet refresh after a long pause can take long). */
  timeoutMs?: number;
  /** Typical seconds between blocks, reported in the sync status (health measures the scanner's lag from the blocks' own timestamps). Default 120. */
  blockSeconds?: number;
}

/** The options after checking, with defaults. */
export interface MoneroSettings {
  coin: "XMR";
  network: string;
  daemonUrl: string;
  walletRpcUrl: string;
  address: string;
  decoded: MoneroAddress;
  viewKey: string;
  walletName: string;
  walletPassword: string;
  restoreHeight: number | null;
  hotWallet: { walletRpcUrl: string; walletName: string; password: string } | null;
  confirmations: number | null;
  timeoutMs: number;
  blockSeconds: number;
}

const url = (what: string) => z.url({ protocol: /^https?$/, error: `must be an http(s) URL of ${what}` });
const walletName = z.string().regex(/^[A-Za-z0-9._-]{1,100}$/, { error: "must be a file name (letters, digits, . _ -)" });

const schema = z.strictObject({
  network: z
    .string()
    .regex(/^[A-Z0-9_-]{2,20}$/, { error: "must be the currency list's network code, such as XMR" })
    .optional(),
  daemonUrl: url("monerod's RPC, such as http://127.0.0.1:18081"),
  walletRpcUrl: url("monero-wallet-rpc, such as http://127.0.0.1:18083"),
  // The address and keys are checked below, by messages that never show the key.
  address: z.string({ error: "is required: the merchant's primary Monero address" }),
  viewKey: z.string({ error: "is required: the private view key of address" }),
  walletName: walletName.optional(),
  walletPassword: z.string().max(1000).optional(),
  restoreHeight: z.int().min(0).optional(),
  hotWallet: z
    .strictObject({ walletRpcUrl: url("the hot wallet's monero-wallet-rpc"), walletName: walletName.optional(), password: z.string().max(1000).optional() })
    .optional(),
  confirmations: z.int().min(1).max(10_000).optional(),
  timeoutMs: z.int().min(100).max(600_000).optional(),
  blockSeconds: z.number().positive().max(86_400).optional(),
});

/** Checks `moneroChain()`'s options; messages name the option and never show a key, a password or a URL. */
export function checkMoneroOptions(options: MoneroChainOptions): MoneroSettings {
  const result = schema.safeParse(options ?? {});
  if (!result.success) throw optionsError("moneroChain", result.error, " ", schema);
  const value = result.data;
  const decoded = parseMoneroAddress(value.address);
  if (!decoded) throw new TypeError("moneroChain: address is not a Monero address (a bad checksum, or not base58 of 95 characters)");
  if (decoded.kind !== "standard")
    throw new TypeError(
      `moneroChain: address is ${decoded.kind === "integrated" ? "an integrated address" : "a subaddress"}; give the wallet's primary address (its view key sees every subaddress)`,
    );
  if (!isPrivateKeyHex(value.viewKey)) throw new TypeError("moneroChain: viewKey must be a private key of 64 hex digits (the wallet's secret view key)");
  return {
    coin: "XMR",
    network: value.network ?? "XMR",
    daemonUrl: value.daemonUrl,
    walletRpcUrl: value.walletRpcUrl,
    address: value.address,
    decoded,
    viewKey: value.viewKey.toLowerCase(),
    walletName: value.walletName ?? "express-crypto-pay-view",
    walletPassword: value.walletPassword ?? "",
    restoreHeight: value.restoreHeight ?? null,
    hotWallet: value.hotWallet
      ? {
          walletRpcUrl: value.hotWallet.walletRpcUrl,
          walletName: value.hotWallet.walletName ?? "express-crypto-pay-hot",
          password: value.hotWallet.password ?? "",
        }
      : null,
    confirmations: value.confirmations ?? null,
    timeoutMs: value.timeoutMs ?? 30_000,
    blockSeconds: value.blockSeconds ?? 120,
  };
}
