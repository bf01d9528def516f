import { z } from "zod";
import { INVOICE_STATUSES } from "../core/invoices/records";
import { PAYOUT_STATUSES } from "../core/payouts/records";
import { parseDecimal } from "../money";
import { address, filterId, lifeTime, metadata, recordId, returnUrl, symbol } from "./fields";
import { pageQuery } from "./webhooks";

/**
 * Request schemas of the provider-level /v1 endpoints. Amounts are decimal strings (exact at any
 * precision, unlike the JSON numbers of /api/v1); objects are strict.
 */

/** A non-negative decimal string such as "12" or "0.0005". */
export const decimalString = z
  .string({ error: 'must be a decimal string such as "12.50"' })
  .max(40, { error: "must be at most 40 characters" })
  .regex(/^(0|[1-9]\d*)(\.\d+)?$/, { error: 'must be a decimal string such as "12.50" (no sign, no exponent)' });

/** Underpayment cover as a decimal string, 0 to 50 in steps of 0.1, turned into tenths. */
const underPaidCover = decimalString
  .refine((value) => /^\d+(\.\d)?$/.test(value), { error: "must be a multiple of 0.1" })
  .transform((value) => Number(parseDecimal(value, 1)))
  .refine((tenths) => tenths <= 500, { error: "must be at most 50" });

const invoiceSettings = {
  feePaidByPayer: z
    .boolean({ error: "must be true or false" })
    .default(false)
    .meta({ description: "True: the payer's amount is grossed up by the 0.5% fee, so the merchant is credited the full amount." }),
  underPaidCover: underPaidCover
    .prefault("0")
    .meta({ description: "Underpayment to accept, in percent: a decimal string from 0 to 50, in steps of 0.1.", examples: ["0"] }),
  lifeTime: lifeTime.default(1440).meta({ description: "Minutes the payment stays open.", examples: [60] }),
  returnUrl: returnUrl.optional().meta({ description: "Where the hosted page sends the payer back to.", examples: ["https://shop.example/orders/1042"] }),
  metadata: metadata.optional().meta({
    description:
      "Free-form data (at most 50 keys, 8 KB of JSON, nested at most 32 levels deep), returned as given; `orderId` comes back in every webhook event.",
    examples: [{ orderId: "1042" }],
  }),
  settleCurrency: symbol.nullable().optional(),
};

/** POST /v1/payments */
export const paymentCreateRequest = z.strictObject({
  amount: decimalString.meta({ description: "Amount to charge, in amountCurrency: a decimal string.", examples: ["25"] }),
  /** The coin the payer pays in. */
  currency: symbol.meta({ description: "The coin the payer pays in.", examples: ["USDT"] }),
  /** The network; left out, the payer picks one on the hosted page (or it is the coin's only one). */
  chain: symbol
    .optional()
    .meta({ description: "Network code. Left out: a coin with one network uses it; with several, the payer picks one on the hosted page.", examples: ["TRX"] }),
  /** Currency of `amount`; defaults to `currency` itself. Give "USD" (or another fiat) to price in fiat at the live rate. */
  amountCurrency: symbol.optional().meta({
    description: "Currency of amount; defaults to `currency` (the amount is in the coin). Give a fiat such as USD to price at the live rate.",
    examples: ["USDT"],
  }),
  ...invoiceSettings,
  settleCurrency: invoiceSettings.settleCurrency.meta({
    description:
      "Auto-conversion: each credit of this payment is converted into this coin at the live rate. null keeps the coin paid in; left out, the merchant's default.",
    examples: ["USDT"],
  }),
});

const isoDate = z.iso.datetime({ offset: true, error: "must be an ISO 8601 date-time such as 2026-01-31T00:00:00Z" }).transform((value) => Date.parse(value));

/** GET /v1/payments */
export const paymentListQuery = z.strictObject({
  ...pageQuery,
  status: z.enum(INVOICE_STATUSES, { error: `must be one of ${INVOICE_STATUSES.join(", ")}` }).optional(),
  createdFrom: isoDate.optional().meta({ description: "Only payments created at or after this time (ISO 8601).", examples: ["2026-01-01T00:00:00Z"] }),
  createdTo: isoDate.optional().meta({ description: "Only payments created before this time (ISO 8601, exclusive).", examples: ["2026-02-01T00:00:00Z"] }),
  chain: symbol.optional().meta({ description: "Only payments on this network.", examples: ["TRX"] }),
});

/** POST /v1/withdrawals */
export const withdrawalCreateRequest = z.strictObject({
  currency: symbol.meta({ description: "The coin to send.", examples: ["USDT"] }),
  chain: symbol.optional().meta({ description: "Network code; may be left out when the coin has one network.", examples: ["TRX"] }),
  amount: decimalString.meta({ description: "Amount the address receives, in currency; the fee is debited on top.", examples: ["10"] }),
  address: address.meta({ description: "Destination address, checked by the chain.", examples: ["TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7"] }),
});

/** GET /v1/withdrawals */
export const withdrawalListQuery = z.strictObject({
  ...pageQuery,
  status: z.enum(PAYOUT_STATUSES, { error: `must be ${PAYOUT_STATUSES.join(", ")}` }).optional(),
});

/** POST /v1/conversions */
export const conversionCreateRequest = z.strictObject({
  fromCurrency: symbol.meta({ description: "The balance to convert from.", examples: ["USDT"] }),
  toCurrency: symbol.meta({ description: "The balance to credit.", examples: ["TRX"] }),
  amount: decimalString.meta({ description: "Amount taken from fromCurrency, a decimal string.", examples: ["10"] }),
});

/** GET /v1/conversions, GET /v1/payment-links */
export const plainListQuery = z.strictObject({ ...pageQuery });

/** POST /v1/refunds */
export const refundCreateRequest = z.strictObject({
  paymentId: recordId("payment").meta({ description: "The payment to refund." }),
  depositId: recordId("deposit").optional().meta({
    description:
      "One deposit of the payment to give back, in that deposit's coin and on its network (a stray coin sent to the payment's address, say; see the payment's `deposits`). Left out, the payment's own coin is refunded.",
  }),
  /** Left out: everything still refundable. */
  amount: decimalString.optional().meta({
    description:
      "Amount to give back, in the payment's coin (the deposit's with `depositId`), or in `currency` for a claim link; left out, everything still refundable.",
    examples: ["5"],
  }),
  address: address.optional().meta({
    description:
      "Where to send the refund, checked by the chain. Left out, the refund is a claim link: the answer's `claimUrl` is for the payer to give an address.",
    examples: ["TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7"],
  }),
  chain: symbol
    .optional()
    .meta({ description: "Network to send on; defaults to the payment's. For a claim link: the network offered first.", examples: ["TRX"] }),
  // Refund claim links
  currency: symbol.optional().meta({
    description:
      "Claim links only: a fiat currency `amount` is fixed in (e.g. USD), converted to the coin at the live rate when the payer claims; left out, `amount` is in the coin.",
    examples: ["USD"],
  }),
  claimChains: z
    .array(symbol, { error: "must be a list of network codes" })
    .min(1, { error: "must name at least one network" })
    .max(20, { error: "must name at most 20 networks" })
    .optional()
    .meta({
      description: "Claim links only: the networks of the coin the payer may choose from; left out, `chain` (or the payment's network) alone.",
      examples: [["TRX", "ETH"]],
    }),
  claimCoins: z
    .record(symbol, z.array(symbol, { error: "must be a list of network codes" }).min(1, { error: "must name at least one network" }).max(20))
    .refine((coins) => Object.keys(coins).length <= 10, { error: "must name at most 10 coins" })
    .optional()
    .meta({
      description:
        "Claim links only: other coins the payer may choose instead of the refund's own, each with its networks. The amount (in the coin refunded, or in `currency`) is converted to the chosen coin at the live rate of the claim, and that coin's balance pays amount + fee (the hold in the refund's coin goes back).",
      examples: [{ USDC: ["ETH", "BSC"] }],
    }),
  expiresInDays: z
    .int({ error: "must be a whole number" })
    .min(1, { error: "must be at least 1" })
    .max(365, { error: "must be at most 365" })
    .optional()
    .meta({ description: "Claim links only: days until the link lapses and its hold goes back (default 30).", examples: [30] }),
});

/** GET /v1/refunds */
export const refundListQuery = z.strictObject({
  ...pageQuery,
  paymentId: filterId.optional().meta({ description: "Only the refunds of this payment." }),
});

/** POST /v1/payment-links */
export const paymentLinkCreateRequest = z.strictObject({
  amount: decimalString.meta({ description: "Amount of each payment, in amountCurrency: a decimal string.", examples: ["25"] }),
  amountCurrency: symbol
    .default("USD")
    .meta({ description: "Currency of amount: a fiat currency (USD, EUR) or a coin, priced at the live rate when the payer picks a coin.", examples: ["USD"] }),
  acceptedCoins: z
    .array(symbol, { error: "must be an array of coin symbols" })
    .min(1)
    .max(50)
    .optional()
    .meta({ description: "Coins the payer may pick from; left out, every supported coin.", examples: [["USDT", "BTC"]] }),
  ...invoiceSettings,
  settleCurrency: invoiceSettings.settleCurrency.meta({
    description: "Auto-conversion target of the payments the link creates; left out or null, they keep the coin paid in.",
    examples: ["USDT"],
  }),
});
