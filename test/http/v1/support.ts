import request from "supertest";
import { expect } from "vitest";
import type { Scope } from "../../../src/core/ports/storage/index";
import type { Harness } from "../../helpers";

/**
 * Shared steps of the /v1 suites: GETs with a key, paying a payment through the sandbox, and
 * the error-object assertion. Everything goes through HTTP; storage is only read.
 */

/** A valid sandbox destination (8+ characters, not starting with "invalid"). */
// A valid TRON address: the sandbox checks payout destinations with the same rules as live chains.
export const ADDRESS = "TCUmA2JEPuSiBFmNGRiVktBZKbLB89JnSq";

/** GETs a path under the mount point with a key (the test key unless told). */
export function get(h: Harness, path: string, key: string = h.testKey) {
  return request(h.app).get(`${h.prefix}${path}`).set("Authorization", `Bearer ${key}`);
}

/** The harness merchant's scope in one mode, for storage reads. */
export function scopeOf(h: Harness, mode: Scope["mode"] = "test", merchantId: string = h.merchant.id): Scope {
  return { merchantId, mode };
}

/** Asserts the error object `{ error, message }` with this status and catalogue code (and message pattern). */
export function expectError(res: { status: number; body: unknown; text?: string }, status: number, code: number, message?: RegExp): void {
  expect(res.status, res.text).toBe(status);
  const body = res.body as { error?: unknown; message?: unknown };
  expect(body.error).toBe(code);
  expect(typeof body.message).toBe("string");
  if (message) expect(body.message).toMatch(message);
}

/** Creates a /v1 payment and asserts it was created. */
export async function createPayment(h: Harness, body: Record<string, unknown>, key: string = h.testKey) {
  const res = await h.post("/v1/payments", body, key);
  expect(res.status, res.text).toBe(200);
  return res.body as PaymentBody;
}

/** Sends `amount` (a decimal string in the payment's coin) to a test payment's address with `confirmations`. */
export async function deposit(h: Harness, address: string, amount: string, confirmations: number, key: string = h.testKey): Promise<string> {
  const res = await h.post("/api/v1/sandbox/deposit/create", { address, amount: Number(amount), confirmations }, key);
  expect(res.status, res.text).toBe(200);
  return res.body.txHash as string;
}

/**
 * A fixed-coin test payment of `amount` paid in full and confirmed (19 confirmations covers
 * every default network), so its coin is credited: `amount` less the 0.5% fee.
 */
export async function paidPayment(h: Harness, amount: string, currency = "USDT", chain = "TRX", extra: Record<string, unknown> = {}) {
  const payment = await createPayment(h, { amount, currency, chain, ...extra });
  await deposit(h, payment.address!, payment.payAmount!, 19);
  const fetched = await get(h, `/v1/payments/${payment.id}`);
  expect(fetched.body.status).toBe("PAID");
  return fetched.body as PaymentBody;
}

/** One row of GET /v1/balances. */
export interface BalanceRow {
  currency: string;
  available: string;
  pending: string;
  lastSettledAt: string | null;
}

/** GET /v1/balances as a map by currency. */
export async function balances(h: Harness, key: string = h.testKey): Promise<Record<string, BalanceRow>> {
  const res = await get(h, "/v1/balances", key);
  expect(res.status, res.text).toBe(200);
  return Object.fromEntries((res.body.data as BalanceRow[]).map((row) => [row.currency, row]));
}

/** The /v1 payment object as the tests read it. */
export interface PaymentBody {
  id: string;
  object: "payment";
  livemode: boolean;
  status: string;
  amount: string;
  amountCurrency: string;
  currency: string | null;
  chain: string | null;
  address: string | null;
  rate: string | null;
  payAmount: string | null;
  receivedAmount: string;
  checkoutUrl: string;
  metadata: Record<string, unknown> | null;
  createdAt: string;
  [field: string]: unknown;
}

/** A /v1 list page. */
export interface Page<T = { id: string }> {
  data: T[];
  hasMore: boolean;
  nextCursor: string | null;
}

/** Walks a /v1 list to the end with `query` (without cursor) and returns every page. */
export async function walk<T extends { id: string }>(h: Harness, path: string, query: string, key: string = h.testKey): Promise<Array<Page<T>>> {
  const pages: Array<Page<T>> = [];
  let cursor: string | null = null;
  for (let guard = 0; guard < 200; guard++) {
    const separator = query ? "&" : "";
    const res = await get(h, `${path}?${query}${cursor ? `${separator}cursor=${encodeURIComponent(cursor)}` : ""}`, key);
    expect(res.status, res.text).toBe(200);
    const page = res.body as Page<T>;
    pages.push(page);
    if (!page.hasMore) return pages;
    cursor = page.nextCursor;
    expect(cursor).toEqual(expect.any(String));
  }
  throw new Error(`${path} did not end within 200 pages`);
}
