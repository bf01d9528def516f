import { keccak_256 } from "@noble/hashes/sha3.js";
import { isPoint } from "./keys";

/**
 * Monero addresses, decoded and checked offline: Monero's own base58 (blocks of 8 bytes written
 * as 11 characters, no leading-zero rule), a varint network prefix, the public spend and view
 * keys (and an 8-byte payment id in an integrated address), and the first 4 bytes of the
 * Keccak-256 of all that as a checksum. Both keys must be points of the curve, as Monero's own
 * parser (and `validate_address`) requires.
 */

/** Monero's networks, as an address names them. A regtest node ("fakechain") uses mainnet addresses. */
export type MoneroNetType = "mainnet" | "testnet" | "stagenet";

/** What an address is. */
export type MoneroAddressKind = "standard" | "integrated" | "subaddress";

/** A decoded address. */
export interface MoneroAddress {
  nettype: MoneroNetType;
  kind: MoneroAddressKind;
  publicSpendKey: Uint8Array;
  publicViewKey: Uint8Array;
}

/** The network prefixes of cryptonote_config.h. */
const PREFIXES: ReadonlyMap<number, { nettype: MoneroNetType; kind: MoneroAddressKind }> = new Map([
  [18, { nettype: "mainnet", kind: "standard" }],
  [19, { nettype: "mainnet", kind: "integrated" }],
  [42, { nettype: "mainnet", kind: "subaddress" }],
  [53, { nettype: "testnet", kind: "standard" }],
  [54, { nettype: "testnet", kind: "integrated" }],
  [63, { nettype: "testnet", kind: "subaddress" }],
  [24, { nettype: "stagenet", kind: "standard" }],
  [25, { nettype: "stagenet", kind: "integrated" }],
  [36, { nettype: "stagenet", kind: "subaddress" }],
]);

const ALPHABET = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
const VALUE = new Map([...ALPHABET].map((char, index) => [char, BigInt(index)]));
/** Characters that encode a block of n bytes, n = 0..8. */
const ENCODED_SIZE = [0, 2, 3, 5, 6, 7, 9, 10, 11];

/** Monero's base58 decoded, or null when `text` is not in it. */
export function decodeBase58(text: string): Uint8Array | null {
  const full = Math.floor(text.length / 11);
  const rest = ENCODED_SIZE.indexOf(text.length % 11);
  if (rest < 0) return null;
  const out = new Uint8Array(full * 8 + rest);
  for (let block = 0; block <= full; block++) {
    const chars = text.slice(block * 11, block * 11 + 11);
    if (chars.length === 0) break;
    const size = block < full ? 8 : rest;
    let value = 0n;
    for (const char of chars) {
      const digit = VALUE.get(char);
      if (digit === undefined) return null;
      value = value * 58n + digit;
    }
    // A block that overflows its bytes is not an encoding Monero writes.
    if (value >> BigInt(size * 8) !== 0n) return null;
    for (let i = size - 1; i >= 0; i--) {
      out[block * 8 + i] = Number(value & 0xffn);
      value >>= 8n;
    }
  }
  return out;
}

/** The decoded address, or null when `address` is not a well-formed Monero address of any network. */
export function parseMoneroAddress(address: string): MoneroAddress | null {
  // 95 characters (standard, subaddress) or 106 (integrated): anything else is refused before decoding.
  if (typeof address !== "string" || (address.length !== 95 && address.length !== 106)) return null;
  const bytes = decodeBase58(address);
  if (!bytes) return null;
  // Every prefix in use is below 128: a one-byte varint.
  const kind = PREFIXES.get(bytes[0]!);
  if (!kind) return null;
  const length = kind.kind === "integrated" ? 1 + 64 + 8 + 4 : 1 + 64 + 4;
  if (bytes.length !== length) return null;
  const body = bytes.subarray(0, length - 4);
  const checksum = keccak_256(body).subarray(0, 4);
  for (let i = 0; i < 4; i++) if (checksum[i] !== bytes[length - 4 + i]) return null;
  const publicSpendKey = bytes.slice(1, 33);
  const publicViewKey = bytes.slice(33, 65);
  if (!isPoint(publicSpendKey) || !isPoint(publicViewKey)) return null;
  return { ...kind, publicSpendKey, publicViewKey };
}

/** Whether `address` is a Monero address (standard, integrated or subaddress) of `nettype`. Never throws. */
export function isMoneroAddress(address: string, nettype: MoneroNetType): boolean {
  try {
    return parseMoneroAddress(address)?.nettype === nettype;
  } catch {
    return false;
  }
}

/** The address network a node's `get_info.nettype` stands for ("fakechain", regtest, uses mainnet's), or null for one unknown. */
export function addressNetOfNode(nettype: string): MoneroNetType | null {
  if (nettype === "mainnet" || nettype === "fakechain") return "mainnet";
  if (nettype === "testnet" || nettype === "stagenet") return nettype;
  return null;
}
