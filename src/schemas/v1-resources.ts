import { z } from "zod";
import { page, payment, payoutStatus } from "./resources";

/**
 * Schemas of what the provider-level /v1 endpoints answer: withdrawals, refunds, conversions,
 * balances and payment links as src/core/views/v1.ts renders them, and the list pages of
 * those and of payments (a payment is `resources.payment`, the `data` of every webhook event).
 *
 * As in resources.ts, objects are strict so that test/http/resources.test.ts fails on a view
 * field the schema does not list (the document leaves them open), `id` in `.meta()` makes each
 * one a named component, and the same test checks with tsc that the view types match.
 */

/** ISO 8601 date-time, always UTC with milliseconds. */
const dateTime = z.iso.datetime();

/** An amount of the /v1 API: an exact decimal string, no sign, no exponent ("25", "0.0005"). */
const decimal = (description: string, example: string) =>
  z
    .string()
    .regex(/^\d+(\.\d+)?$/)
    .meta({ description, examples: [example] });

const coin = (description: string, example = "USDT") => z.string().meta({ description, examples: [example] });
const chain = z.string().meta({ description: "Network code, e.g. TRX.", examples: ["TRX"] });
const livemode = z.boolean().meta({ description: "True for a live-mode (`sk_live_`) object, false in test mode." });

/** The fields a withdrawal and a refund share (both are payouts from the balance). */
const payoutFields = {
  status: payoutStatus,
  currency: coin("The coin sent."),
  chain,
  amount: decimal("Amount sent to the address, in currency.", "10"),
  fee: decimal("Network fee debited on top of amount (the network's withdrawFee + staticFixedFee).", "2"),
  address: z.string().meta({ description: "Destination address." }),
  txHash: z.string().nullable().meta({ description: "Transaction hash, once the chain has one." }),
  failureReason: z.string().nullable().meta({ description: "Why the chain refused it (FAILED), or the reason it was rejected (REJECTED); null otherwise." }),
  // Optional for the events of versions before it; this version always sends it.
  pendingReason: z
    .string()
    .nullable()
    .optional()
    .meta({
      description:
        "Why a PROCESSING payout has no transaction yet: the chain's last answer when it was tried (its node not answering, the hot wallet's coins still locked). It is tried again each background round and sent once it can be; null once sent, and while nothing stands in its way.",
      examples: ["XMR hot wallet: not enough unlocked money"],
    }),
  createdAt: dateTime,
  updatedAt: dateTime,
};

/** A withdrawal (a payout that is not a refund). */
export const withdrawal = z
  .strictObject({
    id: z.string().meta({ examples: ["po_..."] }),
    object: z.literal("withdrawal"),
    livemode,
    ...payoutFields,
  })
  .meta({ id: "Withdrawal", description: "A payout from the merchant's balance to an external address. Amounts are decimal strings." });

/** A refund claim link's terms. */
const refundClaim = z
  .strictObject({
    expiresAt: dateTime.meta({ description: "When the link lapses (EXPIRED, its hold credited back)." }),
    chains: z.array(z.string()).meta({ description: "The networks of `currency` the payer may choose; `chain` is the first until the payer chooses." }),
    coins: z
      .record(z.string(), z.array(z.string()))
      .meta({ description: "Other coins the payer may choose instead of the refund's own, each with its networks; {} when none." }),
    fiatAmount: z
      .string()
      .regex(/^\d+(\.\d+)?$/)
      .nullable()
      .meta({ description: "An amount fixed in fiat (converted to the coin at the live rate when the payer claims); null when fixed in the coin." }),
    fiatCurrency: z.string().nullable().meta({ description: "The fiat currency of `fiatAmount`." }),
    held: decimal(
      "What the link held from the balance when it was made: amount + fee as held (for a fiat amount, at the rate of creation plus a 5% margin).",
      "12",
    ),
    heldCurrency: z.string().meta({ description: "The coin of `held`: the refund's own (`currency` is the coin chosen once claimed in another)." }),
    claimedAt: dateTime.nullable().meta({ description: "When the payer claimed it." }),
  })
  .meta({ id: "RefundClaim", description: "The terms of a refund claim link. The secret link itself is only in `claimUrl` of the creating answer." });

/** A refund: a payout tied to the payment it gives money back for. */
export const refund = z
  .strictObject({
    id: z.string().meta({ examples: ["po_..."] }),
    object: z.literal("refund"),
    livemode,
    paymentId: z.string().meta({ description: "The payment refunded." }),
    depositId: z.string().nullable().meta({ description: "The one deposit refunded (in its coin), or null for a refund of the payment's own coin." }),
    ...payoutFields,
    claim: refundClaim
      .nullable()
      .meta({ description: "For a refund made as a claim link (created without `address`): its terms; null for a refund sent to an address." }),
  })
  .meta({ id: "Refund", description: "Money given back for a payment, in its coin: a payout with the same statuses, the balance paying the network fee." });

/** The answer of POST /v1/refunds: the refund, with `claimUrl` when it is a claim link (that answer only). */
export const createdRefund = refund
  .extend({
    claimUrl: z.url().optional().meta({
      description:
        "Only in the answer that creates a claim link: the secret link to send the payer (shown once: a replay of the request answers without it, and it is stored only hashed).",
    }),
  })
  .meta({ id: "CreatedRefund", description: "A refund as created: with `claimUrl` when it was made as a claim link (created without `address`)." });

/** A conversion between two balances; `paymentId` is set on an auto-conversion. */
export const conversion = z
  .strictObject({
    id: z.string().meta({ examples: ["ex_..."] }),
    object: z.literal("conversion"),
    livemode,
    status: z.literal("SUCCESS").meta({ description: "Conversions are atomic: they succeed or answer an error." }),
    fromCurrency: coin("The balance debited."),
    toCurrency: coin("The balance credited.", "TRX"),
    amount: decimal("Amount taken from fromCurrency.", "10"),
    rate: decimal("Price of 1 fromCurrency in toCurrency (no spread).", "8.333333333333333333"),
    toAmount: decimal("Amount credited in toCurrency.", "83.333333"),
    paymentId: z.string().nullable().meta({ description: "The payment whose credit auto-conversion converted; null for a conversion made through the API." }),
    createdAt: dateTime,
  })
  .meta({ id: "Conversion", description: "A conversion between two of the merchant's balances, at the pricing adapter's rate." });

/** One row of the balance list. */
export const balance = z
  .strictObject({
    currency: coin("The currency of this balance."),
    available: z
      .string()
      .regex(/^-?\d+(\.\d+)?$/)
      .meta({
        description:
          "Credited and spendable: withdrawals, conversions and refunds draw on it. Negative when a credited deposit left the chain after some of it was spent (its credit was taken back): every debit of this currency is then refused (42202) until credits cover the shortfall.",
        examples: ["99.5"],
      }),
    pending: decimal("Seen on chain but not yet confirmed: gross (before the fee), not spendable yet.", "0"),
    lastSettledAt: dateTime.nullable().meta({ description: "When the ledger last changed this balance; null if it never did." }),
  })
  .meta({ id: "Balance", description: "The merchant's balance in one currency, in this key's mode." });

/** GET /v1/balances: one row per currency (not paginated). */
export const balanceList = z
  .strictObject({
    data: z
      .array(balance)
      .meta({ description: "One row per currency of the list (zero where nothing was received), plus any currency still held that has left the list." }),
  })
  .meta({ description: "Every balance of the merchant in this key's mode." });

/** A payment link with its public URL. */
export const paymentLink = z
  .strictObject({
    id: z.string().meta({ examples: ["plink_..."] }),
    object: z.literal("payment_link"),
    livemode,
    url: z.url().meta({
      description:
        "The public URL to share: it shows the link's page, which creates nothing; its button (a POST to the same URL) creates a fresh hosted payment and redirects (303) to its page.",
    }),
    active: z.boolean().meta({ description: "False once deactivated: the URL then answers 410 and creates nothing." }),
    amount: decimal("Amount of each payment, in amountCurrency.", "25"),
    amountCurrency: coin("Currency of amount.", "USD"),
    acceptedCoins: z.array(z.string()).nullable().meta({ description: "Coins the payer may choose from; null for every supported coin." }),
    feePaidByPayer: z.boolean(),
    underPaidCover: decimal("Accepted underpayment, in percent (0 to 50).", "0"),
    lifeTime: z.int().meta({ description: "Minutes each created payment stays open." }),
    returnUrl: z.url().nullable(),
    metadata: z.record(z.string(), z.unknown()).nullable().meta({ description: "Copied into each created payment, with `paymentLinkId` added." }),
    settleCurrency: z.string().nullable().meta({ description: "Auto-conversion target of the created payments; null keeps the coin paid in." }),
    createdAt: dateTime,
    updatedAt: dateTime,
  })
  .meta({ id: "PaymentLink", description: "A reusable link: each payer who continues from its page gets a fresh hosted payment." });

/** List pages: newest first, `nextCursor` is the `cursor` of the next page. */
export const paymentPage = page(payment);
export const refundPage = page(refund);
export const withdrawalPage = page(withdrawal);
export const conversionPage = page(conversion);
export const paymentLinkPage = page(paymentLink);
