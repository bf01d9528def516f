import { createHmac, timingSafeEqual } from "node:crypto";

/** How long a page's form token stays valid: a page left open for a while still submits. */
const FORM_TOKEN_HOURS = 12;

const HOUR_MS = 3_600_000;

/** What a form token is bound to: the record's stored secret hash (the key), what the form does, and which record. */
export interface FormTokenScope {
  /** The stored hash of the page's secret link: only who holds the link can see a page carrying a token made with it. */
  key: string;
  /** What the form does ("subscription-cancel", "refund-claim"): a token for one form is refused by another. */
  purpose: string;
  /** The record the page is about. */
  id: string;
}

/**
 * The CSRF token of a hosted page's form (the pages reached through a secret link: no session):
 * an HMAC, keyed by the record's stored secret hash, of the purpose, the record and the hour it
 * was issued. Another site cannot read it (same-origin, strict CSP), anyone without the secret
 * link cannot make it, and every instance sharing the database checks it alike.
 */
export function formToken(scope: FormTokenScope, now: number): string {
  return tokenOfHour(scope, Math.floor(now / HOUR_MS));
}

/** Whether `token` is one `formToken` made for `scope` within the last 12 hours; compared in constant time. */
export function formTokenValid(scope: FormTokenScope, token: unknown, now: number): boolean {
  if (typeof token !== "string") return false;
  const match = /^(\d{1,10})\.[A-Za-z0-9_-]{43}$/.exec(token);
  if (!match) return false;
  const hour = Number(match[1]);
  const age = Math.floor(now / HOUR_MS) - hour;
  if (age < 0 || age >= FORM_TOKEN_HOURS) return false;
  return timingSafeEqual(Buffer.from(token), Buffer.from(tokenOfHour(scope, hour)));
}

function tokenOfHour(scope: FormTokenScope, hour: number): string {
  return `${hour}.${createHmac("sha256", scope.key).update(`${scope.purpose}\n${scope.id}\n${hour}`).digest("base64url")}`;
}
