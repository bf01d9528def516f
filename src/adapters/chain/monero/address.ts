import { keccak_256 } from "@noble/hashes/sha3.js";
import { base58xmr } from "@scure/base";
import { isPoint } from "./keys";

/**
 * Monero addresses, decoded and checked offline: Monero's own base58 (blocks of 8 bytes written
 * as 11 characters, no leading-zero rule; `@scure/base`), a varint network prefix, the public spend and view
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

/** Monero's base58 decoded (blocks of 8 bytes as 11 characters), or null when `text` is not in it. */
export function decodeBase58(text: string): Uint8Array | null {
  try {
    return base58xmr.decode(text);
  } catch {
    return null;
  }
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
