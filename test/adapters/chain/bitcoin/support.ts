import { HDKey } from "@scure/bip32";
import { generateMnemonic, mnemonicToSeedSync } from "@scure/bip39";
import { wordlist } from "@scure/bip39/wordlists/english";
import { expect } from "vitest";
import { bitcoinChain, type BitcoinChain, type BitcoinChainOptions } from "../../../../src/bitcoin";
import type { Harness } from "../../../helpers";
import type { Litecoind } from "./litecoind";

/**
 * Shared steps of the live Litecoin tests: a fresh BIP84 account (its keys as a wallet exports
 * them), an LTC adapter on the test's own litecoind, and payments read over HTTP.
 */

/** tpub/tprv: the serialisation test networks (and regtest) use. */
const TEST_VERSIONS = { private: 0x04358394, public: 0x043587cf };

/** A new BIP84 testnet-path account (m/84'/1'/0'): its tpub and tprv, as a wallet would export them. */
export function newAccount(): { xpub: string; xprv: string } {
  const seed = mnemonicToSeedSync(generateMnemonic(wordlist));
  const account = HDKey.fromMasterSeed(seed, TEST_VERSIONS).derive("m/84'/1'/0'");
  return { xpub: account.publicExtendedKey, xprv: account.privateExtendedKey };
}

/** An LTC adapter on `node` for `account`, with its hot wallet unless `hotWallet: false`. */
export function ltcChain(
  node: Litecoind,
  account: { xpub: string; xprv: string },
  options: Omit<Partial<BitcoinChainOptions>, "hotWallet"> & { hotWallet?: string | false } = {},
): BitcoinChain {
  const { hotWallet, ...rest } = options;
  return bitcoinChain({
    coin: "LTC",
    network: "LTC",
    rpcUrl: node.rpcUrl,
    xpub: account.xpub,
    ...(hotWallet === false ? {} : { hotWallet: hotWallet ?? account.xprv }),
    feeRate: { fallback: 2 },
    ...rest,
  });
}

/** GET /v1/payments/:id with the live key. */
export async function payment(h: Harness, id: string) {
  const res = await h.post("/api/v1/merchants/invoice/fetch", { invoiceId: id }, h.liveKey);
  expect(res.status, res.text).toBe(200);
  return res.body as { id: string; status: string; address: string; payAmount: number; [key: string]: unknown };
}

/** Creates a live LTC payment of `amount` LTC and returns its id and address. */
export async function ltcPayment(h: Harness, amount: string, extra: Record<string, unknown> = {}): Promise<{ id: string; address: string }> {
  const res = await h.post("/v1/payments", { amount, currency: "LTC", ...extra }, h.liveKey);
  expect(res.status, res.text).toBe(200);
  expect(res.body.address).toMatch(/^rltc1q[0-9a-z]{38}$/);
  return { id: res.body.id, address: res.body.address };
}
