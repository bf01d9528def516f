import request from "supertest";
import { expect } from "vitest";
import type { Harness } from "../../helpers";
import { balances, get } from "./support";

/** A TRX address the sandbox accepts (Tron rules). */
export const PAYER_ADDRESS = "TQjw9LfWkygUMPoV5tvokXQX2YLdStctTe";
/** An EVM address the sandbox accepts on ETH and BSC. */
export const PAYER_EVM_ADDRESS = "0x000000000000000000000000000000000000dEaD";

/** The refund as POST /v1/refunds answers a claim link. */
export interface ClaimRefund {
  id: string;
  status: string;
  amount: string;
  fee: string;
  chain: string;
  address: string;
  claimUrl?: string;
  claim: { expiresAt: string; chains: string[]; fiatAmount: string | null; fiatCurrency: string | null; held: string; claimedAt: string | null } | null;
}

/** Creates a refund claim link (no address) and asserts it was made. */
export async function createClaim(h: Harness, body: Record<string, unknown>, key?: string): Promise<ClaimRefund & { claimUrl: string }> {
  const res = await h.post("/v1/refunds", body, key);
  expect(res.status, res.text).toBe(200);
  expect(res.body.status).toBe("AWAITING_CLAIM");
  expect(res.body.claimUrl).toMatch(/\/pay\/refund\/po_[A-Za-z0-9]+\/[A-Za-z0-9_-]{43}$/);
  return res.body;
}

/** The path of a claim URL (supertest requests the host app by path). */
export const pathOf = (claimUrl: string) => new URL(claimUrl).pathname;

/** GET of the claim page. */
export const claimPage = (h: Harness, claimUrl: string, query = "") => request(h.app).get(`${pathOf(claimUrl)}${query}`);

/** The CSRF token the claim page's form carries now; "" when the page shows no form (claimed, closed). */
export async function claimCsrf(h: Harness, claimUrl: string): Promise<string> {
  const page = await claimPage(h, claimUrl);
  return /name="csrf" value="([^"]+)"/.exec(page.text)?.[1] ?? "";
}

/** A POST of the claim page's form as the browser sends it from the page (same origin), with the page's CSRF token unless `form` names one. */
export async function claimPost(h: Harness, claimUrl: string, form: Record<string, string>) {
  const csrf = form.csrf ?? (await claimCsrf(h, claimUrl));
  return request(h.app)
    .post(pathOf(claimUrl))
    .set("Sec-Fetch-Site", "same-origin")
    .type("form")
    .send({ ...form, csrf });
}

/** Claims through the page's confirm step, as the review showed it, and asserts the 303 back to the page. */
export async function claimThroughPage(h: Harness, claim: ClaimRefund & { claimUrl: string }, network: string, address: string, coin?: string): Promise<void> {
  const review = await claimPost(h, claim.claimUrl, coin ? { step: "review", choice: `${coin}:${network}`, address } : { step: "review", network, address });
  expect(review.status, review.text).toBe(200);
  const amount = /name="amount" value="([0-9.]+)"/.exec(review.text)?.[1];
  expect(amount).toBeDefined();
  const confirmed = await claimPost(h, claim.claimUrl, { step: "confirm", ...(coin ? { coin } : {}), network, address, amount: amount! });
  expect(confirmed.status, confirmed.text).toBe(303);
  expect(confirmed.headers.location).toBe(pathOf(claim.claimUrl));
}

/** The refund as GET /v1/refunds/:id shows it. */
export async function refundOf(h: Harness, id: string): Promise<ClaimRefund> {
  const res = await get(h, `/v1/refunds/${id}`);
  expect(res.status, res.text).toBe(200);
  return res.body;
}

/** The available balance of one coin, as a decimal string. */
export async function available(h: Harness, coin = "USDT"): Promise<string> {
  return (await balances(h))[coin]!.available;
}

/** The event types the service recorded about one record, oldest first. */
export async function eventTypesOf(h: Harness, id: string): Promise<string[]> {
  const res = await get(h, "/v1/events?limit=100");
  expect(res.status, res.text).toBe(200);
  return (res.body.data as Array<{ type: string; data: { id: string } }>).filter((event) => event.data.id === id).map((event) => event.type);
}
