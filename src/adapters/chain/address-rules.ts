import { sha256 } from "@noble/hashes/sha2.js";
import { keccak_256 } from "@noble/hashes/sha3.js";
import { bech32, bech32m, createBase58check } from "@scure/base";
import { isMoneroAddress, type MoneroNetType } from "./monero/address";

/**
 * Per-network address rules, shared by the sandbox chain and the real chain adapters so that a
 * destination refused in live mode is refused in test mode too.
 *
 * Every function here is pure and total: any string (empty, huge, unicode, NUL) gives false,
 * never an exception. Long inputs are refused by length before any decoding, so garbage costs
 * no more than a valid address.
 *
 * The sandbox, and with it the main entry point, imports this module: it uses @scure/base and
 * @noble/hashes (a few kB) and not viem, whose import alone costs a few hundred milliseconds
 * and which only the `express-crypto-pay/evm` entry point loads.
 */

/** Which chain of a network an address belongs to: the public one, its testnet (and signet), or a local regtest. */
export type ChainKind = "main" | "test" | "regtest";

/** The address rule a network follows. */
export type AddressFamily = "evm" | "bitcoin" | "litecoin" | "tron" | "monero";

/** Every {@link ChainKind}: what the sandbox accepts, as merchants test with any of them. */
export const ANY_CHAIN: readonly ChainKind[] = Object.freeze(["main", "test", "regtest"] as const);

/**
 * Network codes whose rule is known, by code. The codes of the default currency list (BTC, LTC,
 * ETH, BSC, TRX, XMR) and common EVM networks a host may configure. A host with another code passes
 * its own table (`{ ...DEFAULT_ADDRESS_FAMILIES, MYCHAIN: "evm" }`) as the `families` option.
 * A network in no table has no rule: {@link addressFamily} answers null and the caller decides
 * (the sandbox falls back to a loose shape check; a real adapter should refuse to serve it).
 */
export const DEFAULT_ADDRESS_FAMILIES: Readonly<Record<string, AddressFamily>> = Object.freeze({
  BTC: "bitcoin",
  LTC: "litecoin",
  TRX: "tron",
  XMR: "monero",
  ETH: "evm",
  BSC: "evm",
  POLYGON: "evm",
  ARBITRUM: "evm",
  OP: "evm",
  OPTIMISM: "evm",
  BASE: "evm",
  AVAXC: "evm",
});

/** Options of {@link isValidAddress} and {@link isValidAddressOfFamily}. */
export interface AddressRuleOptions {
  /**
   * The chain (or chains) whose address forms are accepted. Defaults to "main": a live adapter
   * that forgets to say which chain its node is on then refuses testnet addresses rather than
   * accepting them. The sandbox passes {@link ANY_CHAIN}. EVM and TRON addresses are the same on
   * every chain, so their rules ignore it.
   */
  chain?: ChainKind | readonly ChainKind[];
  /** Network code to family table; defaults to {@link DEFAULT_ADDRESS_FAMILIES}. Used by {@link isValidAddress} only. */
  families?: Readonly<Record<string, AddressFamily>>;
}

/**
 * Which rule `network` follows, or null when the table has no entry for it (a host's own
 * network code): the caller then decides, since no rule here can judge its addresses. Looks the
 * code up as given, then upper-cased.
 */
export function addressFamily(network: string, families: Readonly<Record<string, AddressFamily>> = DEFAULT_ADDRESS_FAMILIES): AddressFamily | null {
  if (typeof network !== "string") return null;
  const own = Object.prototype.hasOwnProperty;
  if (own.call(families, network)) return families[network] ?? null;
  const upper = network.toUpperCase();
  return own.call(families, upper) ? (families[upper] ?? null) : null;
}

/**
 * Whether `address` is a valid payout destination on `network` (see
 * {@link isValidAddressOfFamily} for each family's rule). False for a network with no rule:
 * call {@link addressFamily} first to tell "no rule" from "invalid".
 */
export function isValidAddress(network: string, address: string, options: AddressRuleOptions = {}): boolean {
  const family = addressFamily(network, options.families);
  return family !== null && isValidAddressOfFamily(family, address, options);
}

/**
 * Whether `address` is a valid payout destination under `family`'s rule, on the chains of
 * `options.chain` (default "main").
 *
 * - **evm**: `0x` and 40 hex digits, either all lowercase (no checksum to check) or EIP-55
 *   checksummed; any other mix of cases is refused, as it is most likely a checksummed address
 *   with a typo. An all-uppercase string is judged as a checksummed one: it passes only when it
 *   happens to be its own checksum (as the EIP's "all caps" vectors are); upper-casing is no
 *   recognised way of writing an address, and rather than guess whether its checksum was lost,
 *   the payee is asked for the checksummed or lowercase form (as viem's
 *   `isAddress(a, { strict: true })` does). A `0X` prefix is refused.
 * - **bitcoin**: segwit per BIP173/BIP350 with hrp bc (main), tb (test, signet) or bcrt
 *   (regtest): version 0 in bech32 with a 20- or 32-byte program, versions 1 to 16 in bech32m
 *   with 2 to 40 bytes (higher versions are accepted, as BIP350 asks senders to do); all
 *   lowercase or all uppercase. Base58check P2PKH (0x00 main, 0x6f test/regtest) and P2SH
 *   (0x05 main, 0xc4 test/regtest).
 * - **litecoin**: the same segwit rules with hrp ltc, tltc or rltc. Base58check P2PKH (0x30
 *   main, 0x6f test/regtest) and P2SH (0x32 main "M...", 0x3a test/regtest "Q..."). The old
 *   P2SH versions Litecoin Core still decodes (0x05 "3..." main, 0xc4 "2..." test) are refused:
 *   they are byte for byte Bitcoin addresses, and telling coins apart is the point of this
 *   rule; the payee can give the same script in its M/Q form. A test/regtest P2PKH (0x6f, "m..."
 *   or "n...") is the same string on Bitcoin and Litecoin test chains; it is accepted for both,
 *   as refusing it would refuse every Litecoin test P2PKH address.
 * - **tron**: base58check of 0x41 and a 20-byte account ("T...", 34 characters); the same on
 *   every TRON chain.
 * - **monero**: Monero's base58 of a network prefix, two public keys that are points of the
 *   curve (and a payment id in an integrated address) and a Keccak checksum: standard,
 *   integrated and subaddresses of mainnet (main, and regtest, which uses mainnet's), or of
 *   testnet and stagenet (test).
 *
 * Refused in every family, as a payout there burns the money: an all-zero payload (the EVM zero
 * address `0x0000...0000`, TRON's `T9yD14Nj9j7xAB4dbGeiX9h8unkKHxuWwb`, and all-zero hashes and
 * witness programs, which no one holds a key for).
 */
export function isValidAddressOfFamily(family: AddressFamily, address: string, options: Pick<AddressRuleOptions, "chain"> = {}): boolean {
  if (typeof address !== "string") return false;
  const chains = toChains(options.chain);
  try {
    switch (family) {
      case "evm":
        return isEvm(address);
      case "tron":
        return isTron(address);
      case "bitcoin":
      case "litecoin":
        return isUtxo(UTXO_PARAMS[family], address, chains);
      case "monero":
        return moneroNets(chains).some((net) => isMoneroAddress(address, net));
      default:
        return false;
    }
  } catch {
    // The decoders throw on malformed input; reaching here means the string is not an address.
    return false;
  }
}

/** How addresses of one Bitcoin-family chain are encoded: bech32 prefix and base58 versions. */
export interface UtxoChainParams {
  /** The bech32 human-readable part of segwit addresses ("bc", "tltc"...). */
  readonly hrp: string;
  /** The base58check version byte of P2PKH addresses. */
  readonly pubKeyHash: number;
  /** The base58check version byte of P2SH addresses. */
  readonly scriptHash: number;
}

/**
 * Address encodings of Bitcoin and Litecoin per chain, from Bitcoin Core and Litecoin Core
 * chainparams (signet shares testnet's). The one table of them: the Bitcoin adapter's
 * `addressParams` builds its btc-signer networks from it, so the addresses it derives and the
 * addresses these rules accept cannot drift apart. Frozen, as it is shared. Litecoin's P2SH is
 * its own 0x32 "M..." / 0x3a "Q..." (SCRIPT_ADDRESS2): the 0x05 / 0xc4 forms Litecoin Core still
 * decodes are byte for byte Bitcoin addresses, and are refused for Litecoin.
 */
export const UTXO_PARAMS: Readonly<Record<"bitcoin" | "litecoin", Readonly<Record<ChainKind, UtxoChainParams>>>> = freezeTable({
  bitcoin: {
    main: { hrp: "bc", pubKeyHash: 0x00, scriptHash: 0x05 },
    test: { hrp: "tb", pubKeyHash: 0x6f, scriptHash: 0xc4 },
    regtest: { hrp: "bcrt", pubKeyHash: 0x6f, scriptHash: 0xc4 },
  },
  litecoin: {
    main: { hrp: "ltc", pubKeyHash: 0x30, scriptHash: 0x32 },
    test: { hrp: "tltc", pubKeyHash: 0x6f, scriptHash: 0x3a },
    regtest: { hrp: "rltc", pubKeyHash: 0x6f, scriptHash: 0x3a },
  },
});

const base58check = createBase58check(sha256);

// A 25-byte base58check string (version, 20-byte hash, checksum) has 26 to 35 characters; the
// bound keeps the quadratic base58 decoder away from long garbage.
const BASE58_MAX_LENGTH = 35;
// BIP173: a segwit address is at most 90 characters.
const BECH32_MAX_LENGTH = 90;
const TRON_VERSION = 0x41;
const EVM_SHAPE = /^0x[0-9a-fA-F]{40}$/;

function toChains(chain: AddressRuleOptions["chain"]): readonly ChainKind[] {
  if (chain === undefined) return ["main"];
  return typeof chain === "string" ? [chain] : chain;
}

function isEvm(address: string): boolean {
  if (!EVM_SHAPE.test(address)) return false;
  const hex = address.slice(2);
  const lower = hex.toLowerCase();
  if (/^0+$/.test(lower)) return false;
  return hex === lower || hex === eip55(lower);
}

/** EIP-55: the hex digits (lowercase in) with each letter upper-cased where keccak256(hex) has a nibble >= 8. */
function eip55(lower: string): string {
  const hash = keccak_256(new TextEncoder().encode(lower));
  let out = "";
  for (let i = 0; i < lower.length; i++) {
    const nibble = i % 2 === 0 ? hash[i >> 1]! >> 4 : hash[i >> 1]! & 0x0f;
    out += nibble >= 8 ? lower[i]!.toUpperCase() : lower[i]!;
  }
  return out;
}

function isTron(address: string): boolean {
  const payload = decodeBase58check(address);
  return payload !== null && payload.length === 21 && payload[0] === TRON_VERSION && !isAllZero(payload.subarray(1));
}

function isUtxo(params: Readonly<Record<ChainKind, UtxoChainParams>>, address: string, chains: readonly ChainKind[]): boolean {
  const selected = chains.map((chain) => params[chain]).filter((entry) => entry !== undefined);
  const segwit = decodeSegwit(address);
  if (segwit) return !isAllZero(segwit.program) && selected.some((entry) => entry.hrp === segwit.hrp);
  const payload = decodeBase58check(address);
  if (payload === null || payload.length !== 21 || isAllZero(payload.subarray(1))) return false;
  const version = payload[0];
  return selected.some((entry) => entry.pubKeyHash === version || entry.scriptHash === version);
}

/** The decoded payload (checksum removed), or null when `text` is not base58check of an address's size. */
function decodeBase58check(text: string): Uint8Array | null {
  if (text.length === 0 || text.length > BASE58_MAX_LENGTH) return null;
  try {
    return base58check.decode(text);
  } catch {
    return null;
  }
}

/** A BIP173/BIP350 segwit address split into hrp (lowercase), version and program, or null. */
function decodeSegwit(text: string): { hrp: string; version: number; program: Uint8Array } | null {
  const decoded = decodeBech32(text);
  if (!decoded) return null;
  const [version, ...data] = decoded.words;
  if (version === undefined || version > 16) return null;
  // fromWords refuses padding of more than 4 bits and non-zero padding, as BIP173 requires.
  const program = bech32.fromWordsUnsafe(data);
  if (!program || program.length < 2 || program.length > 40) return null;
  if (version === 0) {
    if (decoded.encoding !== "bech32" || (program.length !== 20 && program.length !== 32)) return null;
  } else if (decoded.encoding !== "bech32m") return null;
  return { hrp: decoded.prefix, version, program };
}

/** The string decoded with whichever checksum (bech32 or bech32m) it carries, or null. */
function decodeBech32(text: string): { prefix: string; words: number[]; encoding: "bech32" | "bech32m" } | null {
  for (const [encoding, coder] of [
    ["bech32", bech32],
    ["bech32m", bech32m],
  ] as const) {
    // The cast only satisfies the typing of @scure/base 1.x; decode checks the separator itself.
    try {
      return { ...coder.decode(text as `${string}1${string}`, BECH32_MAX_LENGTH), encoding };
    } catch {
      // Not this checksum (no string is valid under both); try the other.
    }
  }
  return null;
}

function isAllZero(bytes: Uint8Array): boolean {
  return bytes.every((byte) => byte === 0);
}

/** Freezes a two-level table of entries, so that a module sharing it cannot change it for every other. */
function freezeTable<T extends Record<string, Record<string, object>>>(table: T): T {
  for (const chains of Object.values(table)) {
    for (const entry of Object.values(chains)) Object.freeze(entry);
    Object.freeze(chains);
  }
  return Object.freeze(table);
}

/** The Monero networks whose addresses the chains take: regtest uses mainnet's, "test" is testnet and stagenet. */
function moneroNets(chains: readonly ChainKind[]): MoneroNetType[] {
  const nets = new Set<MoneroNetType>();
  for (const chain of chains) {
    if (chain === "test") {
      nets.add("testnet");
      nets.add("stagenet");
    } else nets.add("mainnet");
  }
  return [...nets];
}
