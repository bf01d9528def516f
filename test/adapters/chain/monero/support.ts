import { keccak_256 } from "@noble/hashes/sha3.js";
import { DEFAULT_CURRENCIES, type CurrencyConfig } from "../../../../src/currencies";
import { moneroChain, type MoneroChainOptions } from "../../../../src/monero";
import type { Monerod } from "./monerod";

/** XMR final after 3 blocks instead of 10: the confirmation tests stay short. */
export const MIN_CONFIRM = 3;

/** The default currency list with XMR's minConfirm at {@link MIN_CONFIRM}. */
export const currencies: CurrencyConfig[] = DEFAULT_CURRENCIES.map((currency) => ({
  ...currency,
  networks: currency.networks.map((network) => (network.network === "XMR" ? { ...network, minConfirm: MIN_CONFIRM } : network)),
}));

let walletCount = 0;

/** The adapter on the test node: the merchant's view-only wallet under `walletName` (a fresh one by default), the hot wallet when asked. */
export function xmrChain(node: Monerod, options: { hot?: boolean; walletName?: string } & Partial<MoneroChainOptions> = {}) {
  const { hot = true, walletName, ...rest } = options;
  return moneroChain({
    daemonUrl: node.daemonUrl,
    walletRpcUrl: node.viewWalletRpcUrl,
    address: node.merchant.address,
    viewKey: node.merchant.viewKey,
    walletName: walletName ?? `view-${process.pid}-${++walletCount}`,
    walletPassword: "view-wallet-password",
    ...(hot ? { hotWallet: { walletRpcUrl: node.hotWalletRpcUrl, walletName: node.hotWalletName, password: node.hotPassword } } : {}),
    ...rest,
  });
}

const ALPHABET = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
const ENCODED_SIZE = [0, 2, 3, 5, 6, 7, 9, 10, 11];

/** Monero's base58 of `bytes` (blocks of 8 bytes as 11 characters). */
function encodeBase58(bytes: Uint8Array): string {
  let out = "";
  for (let start = 0; start < bytes.length; start += 8) {
    const block = bytes.subarray(start, start + 8);
    let value = 0n;
    for (const byte of block) value = (value << 8n) | BigInt(byte);
    let chars = "";
    for (let i = 0; i < ENCODED_SIZE[block.length]!; i++) {
      chars = ALPHABET[Number(value % 58n)]! + chars;
      value /= 58n;
    }
    out += chars;
  }
  return out;
}

/** The address of network prefix `prefix` with the keys of `address` (another network's address of the same keys). */
export function withPrefix(keys: { spend: Uint8Array; view: Uint8Array }, prefix: number): string {
  const body = new Uint8Array([prefix, ...keys.spend, ...keys.view]);
  return encodeBase58(new Uint8Array([...body, ...keccak_256(body).subarray(0, 4)]));
}
