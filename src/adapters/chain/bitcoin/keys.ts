import { sha256 } from "@noble/hashes/sha2.js";
import { bech32m, createBase58check, hex } from "@scure/base";
import { HDKey } from "@scure/bip32";
import { Address, OutScript, Script, p2wpkh } from "@scure/btc-signer";
import { EXTENDED_KEY_VERSIONS, coinType, extendedKeyVersion, type AddressParams, type ChainKind, type CoinFamily } from "./params";

/**
 * BIP84 keys of the Bitcoin family adapter: parse the account key a merchant configures, derive
 * its P2WPKH deposit (`0/i`) and change (`1/i`) addresses, and go between addresses and the
 * scriptPubKeys blocks carry. Key text never appears in an error: it may be a private key.
 */

/** An account-level extended key, decoded by {@link parseAccountKey}. */
export interface AccountKey {
  /** The key, built with its serialisation's version pair (so `publicExtendedKey` keeps the prefix: zprv gives zpub). */
  key: HDKey;
  /** Whether the key holds its private key (xprv, zprv...): the caller decides whether it wanted one. */
  isPrivate: boolean;
  /** The chains this serialisation is written for: refuse to start when the node's chain is not one of them. */
  chains: ChainKind[];
  /** The serialisation, e.g. "zpub", "tprv", "Ltub". */
  kind: string;
}

/** Branches of a BIP44-style account: 0 receives (deposit addresses), 1 is change. */
export type Branch = 0 | 1;

/** The depth of an account key: m / purpose' / coin_type' / account'. */
const ACCOUNT_DEPTH = 3;
/** A serialised extended key: version(4) depth(1) parent fingerprint(4) index(4) chain code(32) key(33). */
const EXTENDED_KEY_BYTES = 78;
/** Base58check of 82 bytes is 111 or 112 characters; the bound keeps the quadratic decoder away from long garbage. */
const EXTENDED_KEY_MAX_LENGTH = 120;
/** Indexes at or above this are hardened: a public key cannot derive them. */
const HARDENED = 0x80000000;

const base58check = createBase58check(sha256);

/**
 * Decodes an account-level extended key (an "xpub") for `family`, by its version bytes: any
 * serialisation of {@link EXTENDED_KEY_VERSIONS} whose families include `family` (Bitcoin's
 * xpub/tpub/zpub/vpub for both coins; Litecoin's Ltub/Mtub/ttub for Litecoin only).
 *
 * The key must be at depth 3 (m/84'/coin'/account'): the adapter derives `0/i` and `1/i` from
 * it, so a master key or a deeper key would give addresses no wallet shows. The prefix is not
 * trusted to say which addresses the exporting wallet uses: whatever it is, the adapter derives
 * P2WPKH addresses (see `KeyConvention`).
 *
 * Whitespace around the text is ignored (keys pasted into environment files). Throws a
 * TypeError that names `label`, never the key text, when the text is not an extended key, is
 * of the other coin's serialisation, or is not at depth 3. A private key is accepted and
 * reported by `isPrivate`: whether one is wanted is the caller's decision.
 *
 * @param label names the key in error messages, e.g. "bitcoinChain: xpub".
 */
export function parseAccountKey(text: string, family: CoinFamily, label = "account key"): AccountKey {
  if (typeof text !== "string") throw new TypeError(`${label} must be a string (an extended key such as "zpub...")`);
  const trimmed = text.trim();
  if (trimmed.length === 0) throw new TypeError(`${label} is empty: expected an account-level extended key such as "zpub..."`);
  const payload = decodeExtendedKey(trimmed);
  if (!payload) {
    throw new TypeError(
      `${label} is not an extended key (base58check of ${EXTENDED_KEY_BYTES} bytes, such as "zpub..." or "xpub..."): check it was copied whole`,
    );
  }
  const version = readUint32(payload, 0);
  const entry = extendedKeyVersion(version);
  if (!entry) {
    throw new TypeError(
      `${label} has version bytes 0x${version.toString(16).padStart(8, "0")}, not one of the accepted serialisations (${acceptedKinds(family)}); ` +
        "export the account key as an xpub or zpub (tpub or vpub on test chains)",
    );
  }
  if (!entry.families.includes(family)) {
    throw new TypeError(
      `${label} is a ${entry.kind}, a ${entry.families.join("/")} serialisation, but this chain is ${family}: accepted are ${acceptedKinds(family)}`,
    );
  }
  // BIP32: a private key is serialised as 0x00 || k, a public one as its compressed point (0x02/0x03).
  const holdsPrivate = payload[45] === 0;
  if (holdsPrivate !== entry.isPrivate) {
    throw new TypeError(
      `${label} is damaged: its ${entry.kind} prefix says ${entry.isPrivate ? "private" : "public"} but it holds a ${holdsPrivate ? "private" : "public"} key`,
    );
  }
  const depth = payload[4]!;
  if (depth !== ACCOUNT_DEPTH) throw new TypeError(depthMessage(label, entry.kind, depth, family, entry.chains));
  let key: HDKey;
  try {
    key = HDKey.fromExtendedKey(trimmed, { public: entry.versions.public, private: entry.versions.private });
  } catch {
    // The library's message is left out: nothing in it helps, and it must not echo key bytes.
    throw new TypeError(`${label} is not a valid ${entry.kind}: its key is not a valid secp256k1 ${entry.isPrivate ? "private key" : "point"}`);
  }
  return { key, isPrivate: entry.isPrivate, chains: [...entry.chains], kind: entry.kind };
}

/**
 * The BIP84 P2WPKH address `branch/index` of the account `key`, encoded for `params` (bc1...,
 * tb1..., ltc1...). Works with a public or a private account key. Throws a RangeError for an
 * index outside 0..2^31-1 (hardened indexes cannot be derived from a public key).
 */
export function deriveAddress(key: HDKey, branch: Branch, index: number, params: AddressParams): string {
  const publicKey = derive(key, branch, index).publicKey;
  if (!publicKey) throw new TypeError("The derived key has no public key");
  const address = p2wpkh(publicKey, toNetwork(params)).address;
  if (!address) throw new TypeError("Could not encode a P2WPKH address");
  return address;
}

/**
 * The 32-byte private key of address `branch/index` of the account, to sign its inputs. A copy:
 * the caller may wipe it after use. Throws a TypeError when `key` is public, a RangeError for an
 * index outside 0..2^31-1.
 */
export function derivePrivateKey(key: HDKey, branch: Branch, index: number): Uint8Array {
  if (!key.privateKey) throw new TypeError("Cannot derive a private key from a public extended key: the hot wallet needs the account's xprv/zprv");
  const privateKey = derive(key, branch, index).privateKey;
  if (!privateKey) throw new TypeError("The derived key has no private key");
  return privateKey.slice();
}

/**
 * Whether `privateKey` (the hot wallet's account xprv) is the private side of the account
 * `publicKey` (the configured xpub): same public key and same chain code, hence the same
 * addresses at every `branch/index`. False for another account, another wallet, or a key
 * missing either part. Used at start-up to refuse a mismatched pair, whose payouts would spend
 * from addresses the deposits never reach.
 */
export function sameAccount(publicKey: HDKey, privateKey: HDKey): boolean {
  const [a, b] = [publicKey.publicKey, privateKey.publicKey];
  const [c, d] = [publicKey.chainCode, privateKey.chainCode];
  return a !== null && b !== null && c !== null && d !== null && equalBytes(a, b) && equalBytes(c, d);
}

/**
 * The scriptPubKey (lowercase hex) paying `address` on the chain of `params`: the form block
 * outputs are matched by, whatever the node version reports as the output's address. Any
 * segwit version is encoded (as address-rules accepts them). Throws a TypeError for an address
 * not of this chain (another coin's, another chain's, malformed).
 *
 * The scanner matches by decoding scripts ({@link addressOfScript}) and does not call this; it is
 * kept as that function's inverse, by which the tests check every address it writes round-trips
 * to the very script it came from.
 */
export function scriptOf(address: string, params: AddressParams): string {
  try {
    return hex.encode(OutScript.encode(Address(toNetwork(params)).decode(address)));
  } catch {
    // Not a form btc-signer knows (it refuses witness versions 2 to 16, and version 1 programs
    // other than valid 32-byte taproot keys): try a generic segwit output.
  }
  const segwit = decodeFutureSegwit(address, params);
  if (segwit) return hex.encode(Script.encode([segwit.version, segwit.program]));
  throw new TypeError(`${String(address).slice(0, 100)} is not a valid address for bech32 prefix "${params.bech32}"`);
}

/**
 * The address of scriptPubKey `script` (hex) on the chain of `params`, or null when the script
 * has no address form: bare public key or multisig, OP_RETURN, non-standard, malformed hex.
 */
export function addressOfScript(script: string, params: AddressParams): string | null {
  let bytes: Uint8Array;
  try {
    bytes = hex.decode(script.toLowerCase());
  } catch {
    return null;
  }
  try {
    return Address(toNetwork(params)).encode(OutScript.decode(bytes));
  } catch {
    // Either no address form (pk, ms, unknown) or a segwit version btc-signer does not know.
  }
  try {
    const ops = Script.decode(bytes);
    const [version, program] = ops;
    if (ops.length !== 2 || typeof version !== "number" || !(program instanceof Uint8Array)) return null;
    if (version < 1 || version > 16 || program.length < 2 || program.length > 40) return null;
    // Script.decode also turns minimal pushes of small numbers into numbers; the round trip makes
    // sure the bytes are exactly OP_n <push program>, the only form BIP141 calls a witness output.
    if (hex.encode(Script.encode([version, program])) !== hex.encode(bytes)) return null;
    return bech32m.encode(params.bech32, [version, ...bech32m.toWords(program)], 90);
  } catch {
    return null;
  }
}

/** btc-signer's network type also declares a `script` field its own NETWORK objects lack; only the four address fields are read. */
type BtcNetwork = NonNullable<Parameters<typeof Address>[0]>;

function toNetwork(params: AddressParams): BtcNetwork {
  return params as unknown as BtcNetwork;
}

// Deposits derive index after index from the same account: its two branch keys are kept per
// account key (a WeakMap, so they go when the key goes) rather than derived again each time.
const branchKeys = new WeakMap<HDKey, [HDKey | undefined, HDKey | undefined]>();

/**
 * The key of address `branch/index` of the account `key` (public or private, as `key` is), its
 * branch key cached per account. For a caller that needs both halves of one address's key (the
 * wallet signs an input with the private key and commits to the script of its public key):
 * deriving once serves both. Throws a RangeError for a branch other than 0 or 1 or an index
 * outside 0..2^31-1 (hardened indexes cannot be derived from a public key).
 */
export function derive(key: HDKey, branch: Branch, index: number): HDKey {
  if (branch !== 0 && branch !== 1) throw new RangeError(`branch must be 0 (receive) or 1 (change), got ${String(branch)}`);
  if (!Number.isSafeInteger(index) || index < 0 || index >= HARDENED)
    throw new RangeError(`index must be an integer from 0 to ${HARDENED - 1}, got ${String(index)}`);
  let cached = branchKeys.get(key);
  if (!cached) branchKeys.set(key, (cached = [undefined, undefined]));
  const branchKey = (cached[branch] ??= key.deriveChild(branch));
  return branchKey.deriveChild(index);
}

function decodeExtendedKey(text: string): Uint8Array | null {
  if (text.length > EXTENDED_KEY_MAX_LENGTH) return null;
  try {
    const payload = base58check.decode(text);
    return payload.length === EXTENDED_KEY_BYTES ? payload : null;
  } catch {
    return null;
  }
}

function readUint32(bytes: Uint8Array, offset: number): number {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(offset, false);
}

function acceptedKinds(family: CoinFamily): string {
  return EXTENDED_KEY_VERSIONS.filter((entry) => entry.families.includes(family))
    .map((entry) => entry.kind)
    .join(", ");
}

const DEPTH_NAMES: Record<number, string> = {
  0: "a master (root) key",
  1: "a purpose-level key (m/84')",
  2: "a coin-level key (m/84'/coin')",
  4: "a branch-level key (m/84'/coin'/account'/0)",
  5: "an address-level key (m/84'/coin'/account'/0/i)",
};

function depthMessage(label: string, kind: string, depth: number, family: CoinFamily, chains: readonly ChainKind[]): string {
  const coin = coinType(family, chains[0] ?? "main");
  const path = `m/84'/${coin}'/0'`;
  return (
    `${label} is ${DEPTH_NAMES[depth] ?? `a key at depth ${depth}`}, not an account key: expected the account-level ${kind} at depth 3 ` +
    `(${path} for the first ${family} account${coin === 1 ? " on test chains" : ""}), from which deposit addresses 0/i and change addresses 1/i are derived. ` +
    "Export the account's extended public key from the wallet (shown as its account xpub/zpub; in Bitcoin Core, the key inside the " +
    `wpkh([fingerprint/84h/${coin}h/0h]xpub.../0/*) descriptor listed by listdescriptors), not the master key or an address key`
  );
}

/** A version 1 to 16 segwit address of `params` with a 2- to 40-byte program (BIP141/BIP350), or null. */
function decodeFutureSegwit(address: string, params: AddressParams): { version: number; program: Uint8Array } | null {
  if (typeof address !== "string" || address.length > 90) return null;
  try {
    const decoded = bech32m.decode(address as `${string}1${string}`, 90);
    const [version, ...words] = decoded.words;
    if (decoded.prefix !== params.bech32 || version === undefined || version < 1 || version > 16) return null;
    const program = bech32m.fromWords(words);
    return program.length >= 2 && program.length <= 40 ? { version, program } : null;
  } catch {
    return null;
  }
}

function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i]! ^ b[i]!;
  return diff === 0;
}
