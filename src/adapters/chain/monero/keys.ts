import { timingSafeEqual } from "node:crypto";
import { ed25519 } from "@noble/curves/ed25519";

/**
 * The little of ed25519 a Monero view-only setup needs, from `@noble/curves`: whether 32 bytes
 * are a point of the curve (a public key), and the public key of a private one (k·G), so that
 * the view key given can be checked against the address before any wallet is made from it. A
 * wallet RPC accepts a view key that is not the address's (monero-wallet-rpc 0.18 makes a
 * view-only wallet from it all the same), and that wallet would then never see a payment.
 *
 * Monero's private keys are plain scalars below the group order, little-endian (not the hashed
 * and clamped seeds of EdDSA), hence the point arithmetic rather than `ed25519.getPublicKey`.
 */

const Point = ed25519.ExtendedPoint;
/** The order of the base point. */
const L = ed25519.CURVE.n;

function littleEndian(bytes: Uint8Array): bigint {
  return BigInt(`0x${Buffer.from(bytes).reverse().toString("hex") || "0"}`);
}

/** Whether 32 bytes encode a point of the curve (what Monero's `check_key` asks of a public key). */
export function isPoint(bytes: Uint8Array): boolean {
  if (bytes.length !== 32) return false;
  try {
    Point.fromHex(bytes);
    return true;
  } catch {
    return false;
  }
}

/** Whether a 64-hex-digit private key is a reduced scalar (below the group order), as Monero keys are. */
export function isPrivateKeyHex(key: string): boolean {
  if (!/^[0-9a-f]{64}$/i.test(key)) return false;
  const scalar = littleEndian(Buffer.from(key, "hex"));
  return scalar > 0n && scalar < L;
}

/** The public key of a private key (64 hex digits, a reduced non-zero scalar): k·G, encoded. */
export function publicKeyOf(privateKeyHex: string): Uint8Array {
  return Point.BASE.multiply(littleEndian(Buffer.from(privateKeyHex, "hex")) % L).toRawBytes();
}

/** Whether `viewKeyHex` is the private key of `publicViewKey` (compared in constant time). */
export function isViewKeyOf(viewKeyHex: string, publicViewKey: Uint8Array): boolean {
  if (!isPrivateKeyHex(viewKeyHex)) return false;
  return timingSafeEqual(Buffer.from(publicKeyOf(viewKeyHex)), Buffer.from(publicViewKey));
}
