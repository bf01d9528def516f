import { UTXO_PARAMS, type ChainKind } from "../address-rules";

/**
 * Network parameters of the Bitcoin family adapter: address encodings per coin and chain, and
 * the BIP32 version bytes of the extended keys it accepts. Data only; the address *validation*
 * rules, and the bech32 prefixes and base58 versions they check, live in `../address-rules` and
 * are not repeated here: only the WIF versions are added.
 */

export type { ChainKind };

/** The coins a Bitcoin Core compatible node can serve: Bitcoin Core and Litecoin Core. */
export type CoinFamily = "bitcoin" | "litecoin";

/**
 * How addresses of one chain are encoded, in the shape of `@scure/btc-signer`'s `NETWORK` and
 * `TEST_NETWORK` objects: bech32 prefix (hrp), base58 versions of P2PKH and P2SH, and the WIF
 * version of private keys.
 */
export interface AddressParams {
  readonly bech32: string;
  readonly pubKeyHash: number;
  readonly scriptHash: number;
  readonly wif: number;
}

// The WIF version of private keys, from Bitcoin Core and Litecoin Core chainparams.cpp: the one
// field address-rules' table has no use for. Neither @scure/btc-signer nor bitcoinjs-lib ships
// Litecoin's parameters, hence these tables.
const WIF_VERSIONS: Readonly<Record<CoinFamily, Readonly<Record<ChainKind, number>>>> = {
  bitcoin: { main: 0x80, test: 0xef, regtest: 0xef },
  litecoin: { main: 0xb0, test: 0xef, regtest: 0xef },
};

// Built once, so that addressParams hands out the same frozen object on every call.
const ADDRESS_PARAMS: Readonly<Record<CoinFamily, Readonly<Record<ChainKind, AddressParams>>>> = freezeTable({
  bitcoin: networksOf("bitcoin"),
  litecoin: networksOf("litecoin"),
});

/**
 * The address parameters of `family` on `chain`, to pass to `@scure/btc-signer` (`p2wpkh`,
 * `Address`, `Transaction.addOutputAddress`). The returned object is frozen and shared.
 * Throws a TypeError for a family or chain outside the table.
 */
export function addressParams(family: CoinFamily, chain: ChainKind): AddressParams {
  const params = Object.hasOwn(ADDRESS_PARAMS, family) ? ADDRESS_PARAMS[family] : undefined;
  const entry = params && Object.hasOwn(params, chain) ? params[chain] : undefined;
  if (!entry)
    throw new TypeError(
      `No address parameters for ${String(family)} on chain ${String(chain)}: expected "bitcoin" or "litecoin" and "main", "test" or "regtest"`,
    );
  return entry;
}

/**
 * The {@link ChainKind} of the chain a node reports in `getblockchaininfo.chain`, or null when
 * the name is unknown (the adapter should refuse to start rather than guess). Bitcoin Core says
 * "main", "test", "testnet4" (v28+), "signet" or "regtest"; Litecoin Core "main", "test" or
 * "regtest". Every test network shares testnet's address encoding (tb / tltc), hence "test".
 */
export function chainKindOfNode(chain: string): ChainKind | null {
  switch (chain) {
    case "main":
      return "main";
    case "test":
    case "testnet4":
    case "signet":
      return "test";
    case "regtest":
      return "regtest";
    default:
      return null;
  }
}

/**
 * What the version bytes of an extended key conventionally announce about the account behind
 * it. Only a convention: the key material is the same whatever the prefix, and this adapter
 * always derives BIP84 P2WPKH addresses `0/i` and `1/i` from the account key it is given.
 *
 * - `bip84`: a native segwit account (m/84'/coin'/account'), what the adapter expects.
 * - `bip49`: a nested segwit account (m/49'/...). Its wallet shows P2SH-P2WPKH addresses and
 *   may never scan the P2WPKH addresses the adapter derives from the same key: payments to them
 *   stay spendable by the key's holder but can be invisible in that wallet.
 * - `generic`: BIP32's original prefix, used by Bitcoin Core and Litecoin Core descriptors for
 *   every purpose, and by BIP44 (P2PKH) wallets: what it marks depends on the exporting wallet.
 */
export type KeyConvention = "bip84" | "bip49" | "generic";

/** One serialisation of BIP32 extended keys (a "kind" such as `zpub`) accepted by the adapter. */
export interface ExtendedKeyVersion {
  /** The base58 prefix the version bytes produce, e.g. "zpub". */
  readonly kind: string;
  /** The 4 version bytes, big-endian. */
  readonly version: number;
  /** Whether keys of this version hold a private key (xprv) or only a public one (xpub). */
  readonly isPrivate: boolean;
  /** The public and private version pair of this serialisation, as `HDKey` takes them. */
  readonly versions: { readonly public: number; readonly private: number };
  /** Coins whose keys are written this way. */
  readonly families: readonly CoinFamily[];
  /** Chains whose keys are written this way. */
  readonly chains: readonly ChainKind[];
  /** What the prefix conventionally says about the account. */
  readonly convention: KeyConvention;
}

const MAIN: readonly ChainKind[] = ["main"];
const TEST: readonly ChainKind[] = ["test", "regtest"];
const BOTH: readonly CoinFamily[] = ["bitcoin", "litecoin"];
const LITECOIN: readonly CoinFamily[] = ["litecoin"];

/**
 * Public/private version pairs, from BIP32 (xpub, tpub) and SLIP-132 (the rest).
 *
 * Bitcoin's serialisations are accepted for Litecoin too, as the key material is the same:
 * Litecoin Core itself exports xpub on mainnet and tpub on its test chains, and Trezor's coin
 * definitions write native segwit Litecoin accounts as zpub (vpub on testnet): SLIP-132
 * registers no Litecoin native segwit prefix. The Litecoin-only prefixes (Ltub, Mtub, ttub) are
 * refused for Bitcoin, as they say the key was exported for another coin. Note Mtub is SLIP-132's BIP49 (nested segwit) prefix,
 * not a native segwit one. Litecoin testnet's ttub/ttpv are SLIP-132's (0x0436f6e1/0x0436ef7d);
 * some libraries swap the two numbers, the test suite checks which one encodes "ttub".
 * Bitcoin's ypub/upub (BIP49) and multisig prefixes are not accepted.
 */
const PAIRS: ReadonlyArray<{
  pub: string;
  prv: string;
  versions: { public: number; private: number };
  families: readonly CoinFamily[];
  chains: readonly ChainKind[];
  convention: KeyConvention;
}> = [
  { pub: "xpub", prv: "xprv", versions: { public: 0x0488b21e, private: 0x0488ade4 }, families: BOTH, chains: MAIN, convention: "generic" },
  { pub: "tpub", prv: "tprv", versions: { public: 0x043587cf, private: 0x04358394 }, families: BOTH, chains: TEST, convention: "generic" },
  { pub: "zpub", prv: "zprv", versions: { public: 0x04b24746, private: 0x04b2430c }, families: BOTH, chains: MAIN, convention: "bip84" },
  { pub: "vpub", prv: "vprv", versions: { public: 0x045f1cf6, private: 0x045f18bc }, families: BOTH, chains: TEST, convention: "bip84" },
  { pub: "Ltub", prv: "Ltpv", versions: { public: 0x019da462, private: 0x019d9cfe }, families: LITECOIN, chains: MAIN, convention: "generic" },
  { pub: "Mtub", prv: "Mtpv", versions: { public: 0x01b26ef6, private: 0x01b26792 }, families: LITECOIN, chains: MAIN, convention: "bip49" },
  { pub: "ttub", prv: "ttpv", versions: { public: 0x0436f6e1, private: 0x0436ef7d }, families: LITECOIN, chains: TEST, convention: "generic" },
];

/** Every extended key serialisation the adapter accepts, public and private, in {@link PAIRS} order. */
export const EXTENDED_KEY_VERSIONS: readonly ExtendedKeyVersion[] = Object.freeze(
  PAIRS.flatMap(({ pub, prv, versions, families, chains, convention }) =>
    [false, true].map((isPrivate) =>
      Object.freeze({
        kind: isPrivate ? prv : pub,
        version: isPrivate ? versions.private : versions.public,
        isPrivate,
        versions: Object.freeze({ ...versions }),
        families: Object.freeze([...families]),
        chains: Object.freeze([...chains]),
        convention,
      }),
    ),
  ),
);

/** The accepted serialisation with these version bytes, or null when none is (ypub, Zpub, another coin's). */
export function extendedKeyVersion(version: number): ExtendedKeyVersion | null {
  return EXTENDED_KEY_VERSIONS.find((entry) => entry.version === version) ?? null;
}

/**
 * The BIP44 coin type of the account path keys of `family` on `chain` are expected at:
 * 0 for Bitcoin, 2 for Litecoin, 1 on every test chain (SLIP-44).
 */
export function coinType(family: CoinFamily, chain: ChainKind): number {
  if (chain !== "main") return 1;
  return family === "litecoin" ? 2 : 0;
}

/** The btc-signer network of each chain of `family`: address-rules' encodings plus the WIF version. */
function networksOf(family: CoinFamily): Record<ChainKind, AddressParams> {
  const network = (chain: ChainKind): AddressParams => {
    const { hrp, pubKeyHash, scriptHash } = UTXO_PARAMS[family][chain];
    return { bech32: hrp, pubKeyHash, scriptHash, wif: WIF_VERSIONS[family][chain] };
  };
  return { main: network("main"), test: network("test"), regtest: network("regtest") };
}

function freezeTable<T extends Record<string, Record<string, object>>>(table: T): T {
  for (const chains of Object.values(table)) {
    for (const entry of Object.values(chains)) Object.freeze(entry);
    Object.freeze(chains);
  }
  return Object.freeze(table);
}
