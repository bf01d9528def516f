import { z } from "zod";
import { AmountFormatError, numberToDecimal, parseDecimal } from "../money";
import { address, externalId, lifeTime, metadata, plainText, recordId, returnUrl, symbol } from "./fields";

/**
 * Request schemas of the merchant endpoints (POST /api/v1/merchants/..., docs/merchant-api.md)
 * and the sandbox endpoints. Objects are strict: a misspelt field ("lifetime") is an error, not
 * a silently ignored option. Amounts arrive as JSON numbers (the merchant API types them so) and
 * leave the schema as exact decimal strings.
 */

/** Largest amount the merchant endpoints take: beyond it a JSON number stops being exact. */
const MAX_AMOUNT = 1e15;

/** A non-negative JSON number, turned into its exact decimal string. */
export const amountNumber = z
  .number({ error: "must be a number" })
  .min(0, { error: "must be at least 0" })
  .max(MAX_AMOUNT, { error: `must be at most ${MAX_AMOUNT}` })
  .transform((value) => numberToDecimal(value));

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

const invoiceOptions = {
  amount: amountNumber.meta({ description: "Amount to charge, in amountCurrency.", examples: [25] }),
  amountCurrency: symbol
    .default("USD")
    .meta({ description: "Currency of amount: a fiat currency (USD, EUR) or a coin, priced at the live rate.", examples: ["USD"] }),
  underPaidCover: underPaidCover.default(0).meta({ description: "Underpayment to accept, in percent (0 to 50, in steps of 0.1).", examples: [0] }),
  feePaidByPayer: z
    .boolean({ error: "must be true or false" })
    .default(false)
    .meta({ description: "True: the payer's amount is grossed up by the 0.5% fee, so the merchant is credited the full amount." }),
  lifeTime: lifeTime.default(1440).meta({ description: "Minutes the invoice stays open.", examples: [60] }),
  returnUrl: returnUrl.optional().meta({ description: "Where the hosted page sends the payer back to.", examples: ["https://shop.example/orders/1042"] }),
  metadata: metadata.optional().meta({
    description:
      "Free-form data (at most 50 keys, 8 KB of JSON, nested at most 32 levels deep), returned as given; `orderId` comes back in every webhook event.",
    examples: [{ orderId: "1042" }],
  }),
};

/** POST /api/v1/merchants/invoice/create */
export const invoiceCreateRequest = z.strictObject({
  ...invoiceOptions,
  acceptedCoins: z
    .array(symbol, { error: "must be an array of coin symbols" })
    .max(50)
    .optional()
    .meta({ description: "Coins the payer may pick from on the hosted page; left out, every supported coin.", examples: [["USDT", "BTC"]] }),
});

/** POST /api/v1/merchants/whitelabel/create (defaults as invoice/create; network optional when the coin has one). */
export const whitelabelCreateRequest = z.strictObject({
  ...invoiceOptions,
  payCurrency: symbol.meta({ description: "The coin the payer pays in.", examples: ["USDT"] }),
  network: symbol.optional().meta({ description: "Network code (see the currency list); may be left out when the coin has one network.", examples: ["TRX"] }),
});

/** POST /api/v1/merchants/invoice/fetch */
export const invoiceFetchRequest = z.strictObject({ invoiceId: recordId("invoice").meta({ description: "The invoice's `id`." }) });

/** POST /api/v1/merchants/payout/create */
export const payoutCreateRequest = z.strictObject({
  currency: symbol.meta({ description: "The coin to send.", examples: ["USDT"] }),
  network: symbol.optional().meta({ description: "Network code; may be left out when the coin has one network.", examples: ["TRX"] }),
  amount: amountNumber.meta({ description: "Amount the address receives, in currency; the fees are debited on top.", examples: [10] }),
  address: address.meta({ description: "Destination address, checked by the chain.", examples: ["TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7"] }),
});

/** POST /api/v1/merchants/payout/fetch */
export const payoutFetchRequest = z.strictObject({ payoutId: recordId("payout").meta({ description: "The payout's `id`." }) });

/** POST /api/v1/merchants/exchange/create */
export const exchangeCreateRequest = z.strictObject({
  fromCurrency: symbol.meta({ description: "The balance to convert from.", examples: ["USDT"] }),
  toCurrency: symbol.meta({ description: "The balance to credit.", examples: ["TRX"] }),
  amount: amountNumber.meta({ description: "Amount taken from fromCurrency.", examples: [20] }),
});

/** Reference endpoints take no body; an empty object is accepted. */
export const emptyRequest = z.strictObject({});

const confirmations = z.int({ error: "must be a whole number" }).min(0, { error: "must be at least 0" }).max(1_000_000);

/** POST /api/v1/sandbox/deposit/create */
export const sandboxDepositCreateRequest = z.strictObject({
  address: plainText(z.string({ error: "must be a string" }).min(1).max(256)).meta({
    description: "A deposit address issued to this merchant in test mode (an invoice's `address`).",
  }),
  amount: amountNumber.meta({ description: "Amount sent, in the coin of the address (an invoice's `payAmount` pays it in full).", examples: [25] }),
  confirmations: confirmations.default(0).meta({ description: "Confirmations the deposit starts with; the network's `minConfirm` makes it final." }),
  coin: symbol.optional().meta({
    description:
      "The coin sent. Default: the coin the address was issued for. Another coin of the address's network (ETH to a USDT invoice's address) makes a stray deposit, as a payer's mistake would.",
    examples: ["ETH"],
  }),
});

/** POST /api/v1/sandbox/deposit/confirm */
export const sandboxDepositConfirmRequest = z.strictObject({
  txHash: externalId("sandbox deposit").meta({ description: "The `txHash` deposit/create answered." }),
  confirmations: confirmations.meta({ description: "The deposit's confirmations from now on.", examples: [19] }),
});

/** POST /api/v1/sandbox/deposit/drop */
export const sandboxDepositDropRequest = z.strictObject({
  txHash: externalId("sandbox deposit").meta({ description: "The `txHash` deposit/create answered." }),
});

/** POST /api/v1/sandbox/invoice/expire */
export const sandboxInvoiceExpireRequest = z.strictObject({ invoiceId: recordId("invoice").meta({ description: "The invoice's `id`." }) });

/** POST /api/v1/sandbox/refund/expire */
export const sandboxRefundExpireRequest = z.strictObject({
  refundId: recordId("refund").meta({ description: "The `id` of a refund claim link awaiting its claim." }),
});

/** POST /api/v1/sandbox/payout/fail */
export const sandboxPayoutFailRequest = z.strictObject({
  payoutId: recordId("payout").meta({ description: "The payout's `id`." }),
  reason: plainText(z.string({ error: "must be a string" }).min(1).max(200))
    .default("rejected by the sandbox chain")
    .meta({ description: "Becomes the payout's `failureReason`." }),
});
