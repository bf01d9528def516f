import { z } from "zod";

/**
 * Field schemas both API prefixes share, so that a coin symbol, a lifetime, a return URL or
 * metadata is checked the same way (with the same message) wherever it is sent.
 */

/** A currency or network symbol; case-insensitive on the way in, upper case after. */
export const symbol = z
  .string({ error: "must be a string" })
  .trim()
  .min(1, { error: "must not be empty" })
  .max(20, { error: "must be at most 20 characters" })
  .transform((value) => value.toUpperCase());

/** Minutes an invoice stays open: 1 to 1440 (spec section 8). */
export const lifeTime = z
  .int({ error: "must be a whole number of minutes" })
  .min(1, { error: "must be at least 1 minute" })
  .max(1440, { error: "must be at most 1440 minutes" });

/** Where the payer goes after paying: absolute http(s) only, never `javascript:` and the like. */
export const returnUrl = z.url({ protocol: /^https?$/, error: "must be an absolute http(s) URL" }).max(2048);

/** Free-form merchant data; kept small because it travels in every webhook. */
export const metadata = z
  .record(z.string().max(40), z.unknown(), { error: "must be an object" })
  .refine((value) => Object.keys(value).length <= 50, { error: "may have at most 50 keys" })
  .refine((value) => JSON.stringify(value).length <= 8192, { error: "must serialize to at most 8 KB of JSON" });

/** A payout destination; the chain adapter judges whether it is valid. */
export const address = z.string({ error: "must be a string" }).trim().min(1, { error: "must not be empty" }).max(256);
