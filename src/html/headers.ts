import { randomBytes } from "node:crypto";
import type { Response } from "express";

/**
 * The response headers every server-rendered page shares, the hosted pages' and the
 * dashboard's: each family sets its own Content-Security-Policy around a nonce from here.
 */

/** A fresh CSP nonce for one response. */
export function newNonce(): string {
  return randomBytes(16).toString("base64");
}

/**
 * The headers every page and its status JSON carry: no framing (clickjacking on a payment or
 * an admin page), no referrer to other sites (a hosted page's URL is its capability), never
 * cached (the pages show state that changes, money and keys), and no content sniffing.
 */
export function setCommonHeaders(res: Response): void {
  res.setHeader("X-Frame-Options", "DENY");
  res.setHeader("Referrer-Policy", "same-origin");
  res.setHeader("Cache-Control", "no-store");
  res.setHeader("X-Content-Type-Options", "nosniff");
}
