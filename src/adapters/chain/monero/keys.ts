import { timingSafeEqual } from "node:crypto";

/**
 * The little of ed25519 a Monero view-only setup needs, in plain bigint arithmetic: whether 32
 * bytes are a point of the curve (a public key), and the public key of a private one (k·G), so
 * that the view key given can be checked against the address before any wallet is made from it.
 * A wallet RPC accepts a view key that is not the address's (monero-wallet-rpc 0.18 makes a
 * view-only wallet from it all the same), and that wallet would then never see a payment.
 */

const P = 2n ** 255n - 19n;
/** The order of the base point. */
const L = 2n ** 252n + 27742317777372353535851937790883648493n;
const D = mod(-121665n * inverse(121666n));
const D2 = mod(2n * D);
const SQRT_M1 = pow(2n, (P - 1n) / 4n);

type Point = { x: bigint; y: bigint; z: bigint; t: bigint };

const BASE: Point = (() => {
  const y = mod(4n * inverse(5n));
  const x = recoverX(y, false)!;
  return { x, y, z: 1n, t: mod(x * y) };
})();

function mod(a: bigint): bigint {
  const r = a % P;
  return r >= 0n ? r : r + P;
}

function pow(base: bigint, exponent: bigint): bigint {
  let result = 1n;
  let b = mod(base);
  let e = exponent;
  while (e > 0n) {
    if (e & 1n) result = (result * b) % P;
    b = (b * b) % P;
    e >>= 1n;
  }
  return result;
}

function inverse(a: bigint): bigint {
  return pow(a, P - 2n);
}

/** The x of the point with `y` and x's parity `odd`, or null when there is none. */
function recoverX(y: bigint, odd: boolean): bigint | null {
  if (y >= P) return null;
  const u = mod(y * y - 1n);
  const v = mod(D * y * y + 1n);
  let x = mod(u * pow(v, 3n) * pow(u * pow(v, 7n), (P - 5n) / 8n));
  if (mod(v * x * x) !== u) {
    x = mod(x * SQRT_M1);
    if (mod(v * x * x) !== u) return null;
  }
  if (x === 0n && odd) return null;
  if ((x & 1n) === 1n) return odd ? x : mod(-x);
  return odd ? mod(-x) : x;
}

/** Extended-coordinate addition on -x²+y²=1+dx²y² (complete: doubles as well). */
function add(a: Point, b: Point): Point {
  const A = mod((a.y - a.x) * (b.y - b.x));
  const B = mod((a.y + a.x) * (b.y + b.x));
  const C = mod(a.t * D2 * b.t);
  const Dd = mod(2n * a.z * b.z);
  const E = B - A;
  const F = Dd - C;
  const G = Dd + C;
  const H = B + A;
  return { x: mod(E * F), y: mod(G * H), t: mod(E * H), z: mod(F * G) };
}

function littleEndian(bytes: Uint8Array): bigint {
  let value = 0n;
  for (let i = bytes.length - 1; i >= 0; i--) value = (value << 8n) | BigInt(bytes[i]!);
  return value;
}

function encode(point: Point): Uint8Array {
  const zi = inverse(point.z);
  const x = mod(point.x * zi);
  let y = mod(point.y * zi);
  if (x & 1n) y |= 1n << 255n;
  const out = new Uint8Array(32);
  for (let i = 0; i < 32; i++) {
    out[i] = Number(y & 0xffn);
    y >>= 8n;
  }
  return out;
}

/** Whether 32 bytes encode a point of the curve (what Monero's `check_key` asks of a public key). */
export function isPoint(bytes: Uint8Array): boolean {
  if (bytes.length !== 32) return false;
  const value = littleEndian(bytes);
  return recoverX(value & ((1n << 255n) - 1n), value >> 255n === 1n) !== null;
}

/** Whether a 64-hex-digit private key is a reduced scalar (below the group order), as Monero keys are. */
export function isPrivateKeyHex(key: string): boolean {
  if (!/^[0-9a-f]{64}$/i.test(key)) return false;
  const scalar = littleEndian(Buffer.from(key, "hex"));
  return scalar > 0n && scalar < L;
}

/** The public key of a private key (64 hex digits): k·G, encoded. */
export function publicKeyOf(privateKeyHex: string): Uint8Array {
  let scalar = littleEndian(Buffer.from(privateKeyHex, "hex")) % L;
  let result: Point = { x: 0n, y: 1n, z: 1n, t: 0n };
  let addend = BASE;
  while (scalar > 0n) {
    if (scalar & 1n) result = add(result, addend);
    addend = add(addend, addend);
    scalar >>= 1n;
  }
  return encode(result);
}

/** Whether `viewKeyHex` is the private key of `publicViewKey` (compared in constant time). */
export function isViewKeyOf(viewKeyHex: string, publicViewKey: Uint8Array): boolean {
  if (!isPrivateKeyHex(viewKeyHex)) return false;
  return timingSafeEqual(Buffer.from(publicKeyOf(viewKeyHex)), Buffer.from(publicViewKey));
}
