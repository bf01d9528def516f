import { z } from "zod";
import { AmountFormatError, numberToDecimal, parseDecimal } from "../money";

/**
 * Request schemas of the merchant endpoints (spec section 4.1) and the sandbox endpoints.
 * Objects are strict: a misspelt field ("lifetime") is an error, not a silently ignored option.
 * Amounts arrive as JSON numbers (the spec's type) and leave the schema as exact decimal strings.
 */

/** Largest amount the merchant endpoints take: beyond it a JSON number stops being exact. */
const MAX_AMOUNT = 1e15;

/** A non-negative JSON number, turned into its exact decimal string. */
export const amountNumber = z
  .number({ error: "must be a number" })
  .min(0, { error: "must be at least 0" })
  .max(MAX_AMOUNT, { error: `must be at most ${MAX_AMOUNT}` })
  .transform((value) => numberToDecimal(value));

const symbol = z
  .string({ error: "must be a string" })
  .trim()
  .min(1, { error: "must not be empty" })
  .max(20, { error: "must be at most 20 characters" })
  .transform((value) => value.toUpperCase());

/** Underpayment cover: 0 to 50 in steps of 0.1, as tenths of a percent. */
const underPaidCover = z
  .number({ error: "must be a number" })
  .min(0, { error: "must be at least 0" })
  .max(50, { error: "must be at most 50" })
  .transform((value, context) => {
    try {
      return Number(parseDecimal(numberToDecimal(value), 1));
    } catch (error) {
      if (!(error instanceof AmountFormatError)) throw error;
      context.addIssue({ code: "custom", message: "must be a multiple of 0.1" });
      return z.NEVER;
    }
  });

const lifeTime = z
  .int({ error: "must be a whole number of minutes" })
  .min(1, { error: "must be at least 1 minute" })
  .max(1440, { error: "must be at most 1440 minutes" });

const returnUrl = z.url({ protocol: /^https?$/, error: "must be an absolute http(s) URL" }).max(2048);

/** Free-form merchant data; kept small because it travels in every webhook. */
const metadata = z
  .record(z.string().max(40), z.unknown())
  .refine((value) => Object.keys(value).length <= 50, { error: "may have at most 50 keys" })
  .refine((value) => JSON.stringify(value).length <= 8192, { error: "must serialize to at most 8 KB of JSON" });

const invoiceOptions = {
  amount: amountNumber,
  amountCurrency: symbol.default("USD"),
  underPaidCover: underPaidCover.default(0),
  feePaidByPayer: z.boolean({ error: "must be true or false" }).default(false),
  lifeTime: lifeTime.default(1440),
  returnUrl: returnUrl.optional(),
  metadata: metadata.optional(),
};

/** POST /api/v1/merchants/invoice/create */
export const invoiceCreateRequest = z.strictObject({
  ...invoiceOptions,
  acceptedCoins: z.array(symbol, { error: "must be an array of coin symbols" }).max(50).optional(),
});

/** POST /api/v1/merchants/whitelabel/create (defaults as invoice/create; network optional when the coin has one). */
export const whitelabelCreateRequest = z.strictObject({
  ...invoiceOptions,
  payCurrency: symbol,
  network: symbol.optional(),
});

const id = z.string({ error: "must be a string" }).min(1, { error: "must not be empty" }).max(100);

/** POST /api/v1/merchants/invoice/fetch */
export const invoiceFetchRequest = z.strictObject({ invoiceId: id });

/** POST /api/v1/merchants/payout/create */
export const payoutCreateRequest = z.strictObject({
  currency: symbol,
  network: symbol.optional(),
  amount: amountNumber,
  address: z.string({ error: "must be a string" }).trim().min(1, { error: "must not be empty" }).max(256),
});

/** POST /api/v1/merchants/payout/fetch */
export const payoutFetchRequest = z.strictObject({ payoutId: id });

/** POST /api/v1/merchants/exchange/create */
export const exchangeCreateRequest = z.strictObject({
  fromCurrency: symbol,
  toCurrency: symbol,
  amount: amountNumber,
});

/** Reference endpoints take no body; an empty object is accepted. */
export const emptyRequest = z.strictObject({});

const confirmations = z.int({ error: "must be a whole number" }).min(0, { error: "must be at least 0" }).max(1_000_000);

/** POST /api/v1/sandbox/deposit/create */
export const sandboxDepositCreateRequest = z.strictObject({
  address: z.string({ error: "must be a string" }).min(1).max(256),
  amount: amountNumber,
  confirmations: confirmations.default(0),
});

/** POST /api/v1/sandbox/deposit/confirm */
export const sandboxDepositConfirmRequest = z.strictObject({ txHash: id, confirmations });

/** POST /api/v1/sandbox/deposit/drop */
export const sandboxDepositDropRequest = z.strictObject({ txHash: id });

/** POST /api/v1/sandbox/invoice/expire */
export const sandboxInvoiceExpireRequest = z.strictObject({ invoiceId: id });

/** POST /api/v1/sandbox/payout/fail */
export const sandboxPayoutFailRequest = z.strictObject({
  payoutId: id,
  reason: z.string().min(1).max(200).default("rejected by the sandbox chain"),
});
