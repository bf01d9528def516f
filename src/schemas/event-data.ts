import { z } from "zod";
import type { ConversionView, RefundView, WithdrawalView } from "../core/views/funds";
import type { PaymentView } from "../core/views/payment";
import type { SubscriptionView } from "../core/views/subscription";
import { INVOICE_STATUSES } from "../core/invoices/records";
import { PAYOUT_STATUSES } from "../core/payouts/records";
import { SUBSCRIPTION_STATUSES } from "../core/subscriptions/records";
import { described, field, isJsonObject, literal, nullable, oneOf, optional, shapeOf, testOf, type Field } from "./field-pair";

/**
 * The fields of each resource a webhook event carries as its `data` (the /v1 views: payment,
 * withdrawal, refund, conversion), as schema and predicate pairs. Every field the sender writes
 * today is here; what a receiver requires of an older sender is decided in events.ts.
 */

// Non-capturing groups: nothing reads the groups, and captures cost a third of the match time.
const DECIMAL = /^-?\d+(?:\.\d+)?$/;
const ISO_DATE_TIME = /^\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])T(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d(?:\.\d{1,9})?(?:Z|[+-](?:[01]\d|2[0-3]):[0-5]\d)$/;
const STATUSES: ReadonlySet<unknown> = new Set(INVOICE_STATUSES);

/** Any string. */
export const string = field(z.string(), (value) => typeof value === "string");
const boolean = field(z.boolean(), (value) => typeof value === "boolean");
/** A decimal string as the service writes amounts: exact, no exponent, no grouping. */
const decimal = field(z.string().regex(DECIMAL, { error: "must be a decimal string" }), (value) => typeof value === "string" && DECIMAL.test(value));
/** An ISO 8601 date-time, as the service writes times. */
export const isoTime = field(
  z.string().regex(ISO_DATE_TIME, { error: "must be an ISO 8601 date-time" }),
  (value) => typeof value === "string" && ISO_DATE_TIME.test(value),
);
const nullableString = nullable(string);
const stringList = field(z.array(z.string()), (value) => Array.isArray(value) && value.every((item) => typeof item === "string"));
const integer = field(z.int(), (value) => Number.isSafeInteger(value));

const DEPOSIT_STATUSES = ["PENDING", "CONFIRMED", "DROPPED", "REVERSED"] as const;
const DEPOSIT_STATUS_SET: ReadonlySet<unknown> = new Set(DEPOSIT_STATUSES);

/** The fields of a `DepositView` (one entry of a payment's `deposits`). */
const depositFields = {
  id: string,
  object: field(z.literal("deposit"), (value) => value === "deposit"),
  txHash: string,
  outputIndex: integer,
  currency: described(string, "The coin received: the payment's, or another one sent to its address (a stray deposit)"),
  chain: string,
  amount: described(decimal, "What the payer sent, in currency"),
  fee: described(decimal, 'The 0.5% fee taken when it was credited ("0" before)'),
  status: described(
    field(z.enum(DEPOSIT_STATUSES), (value) => DEPOSIT_STATUS_SET.has(value)),
    "PENDING (seen), CONFIRMED (final and credited), DROPPED (left the chain before it was final), REVERSED (credited, then left the chain in a deep reorg: the credit was taken back)",
  ),
  countsTowardPayment: described(boolean, "False for a coin other than the payment's (a stray deposit) or a transfer after the payment's window closed"),
  confirmations: integer,
  reversals: described(integer, "How many times it left the chain after it was credited"),
  createdAt: described(isoTime, "When it was first seen"),
  creditedAt: described(nullable(isoTime), "When its standing credit was posted; null while not credited"),
};

// Built once: every deposit of every payment is checked by it.
const testDeposit = testOf(depositFields);

/** The fields of `PaymentView`, one by one; a compile-time check below keeps them in step. */
export const paymentDataFields = {
  id: string,
  object: field(z.literal("payment"), (value) => value === "payment"),
  livemode: boolean,
  status: field(z.enum(INVOICE_STATUSES), (value) => STATUSES.has(value)),
  amount: decimal,
  amountCurrency: string,
  currency: nullableString,
  acceptedCoins: nullable(stringList),
  chain: nullableString,
  address: nullableString,
  rate: nullable(decimal),
  rateAt: described(nullable(isoTime), "When the locked rate was observed: for a rate combined from several sources, the oldest of their prices"),
  rateSources: described(nullable(stringList), 'The price sources the locked rate was combined from, e.g. ["coinbase","kraken"]; ["static"] for a fixed table'),
  payAmount: nullable(decimal),
  receivedAmount: decimal,
  overpaidAmount: described(decimal, 'What was received beyond payAmount, in the coin; "0" unless the payer sent too much'),
  txHash: nullableString,
  feePaidByPayer: boolean,
  underPaidCover: decimal,
  isWhiteLabel: boolean,
  checkoutUrl: string,
  returnUrl: nullableString,
  metadata: nullable(field(z.record(z.string(), z.unknown()), isJsonObject)),
  failureReason: nullableString,
  settleCurrency: nullableString,
  expiresAt: isoTime,
  createdAt: isoTime,
  updatedAt: isoTime,
  reversedAmount: described(
    optional(decimal),
    "Received in the payment's coin, then taken back because the deposit left the chain after it was credited; not part of receivedAmount",
  ),
  deposits: described(
    optional(field(z.array(z.object(shapeOf(depositFields))), (value) => Array.isArray(value) && value.every(testDeposit))),
    "Every deposit to the payment's address, counted or not (stray coins, transfers after the window)",
  ),
};

/** The fields of `WithdrawalView` (a withdrawal event's data). */
const withdrawalDataFields = {
  id: string,
  object: literal("withdrawal"),
  livemode: boolean,
  status: oneOf(PAYOUT_STATUSES),
  currency: string,
  chain: string,
  amount: decimal,
  fee: decimal,
  address: string,
  txHash: nullableString,
  failureReason: nullableString,
  pendingReason: described(optional(nullableString), "Why a PROCESSING payout has no transaction yet (the chain's last answer); null once sent"),
  createdAt: isoTime,
  updatedAt: isoTime,
};

/** A refund claim link's terms (`RefundClaimView`), one field. */
function refundClaimField() {
  const schema = z.strictObject({
    expiresAt: isoTime.schema,
    chains: z.array(z.string()),
    coins: z.record(z.string(), z.array(z.string())),
    fiatAmount: z.string().regex(DECIMAL).nullable(),
    fiatCurrency: z.string().nullable(),
    held: decimal.schema,
    heldCurrency: z.string(),
    claimedAt: isoTime.schema.nullable(),
  });
  return field(schema, (value) => schema.safeParse(value).success);
}

/** The fields of `RefundView`: a withdrawal's, with the payment refunded. */
const refundDataFields = {
  ...withdrawalDataFields,
  object: literal("refund"),
  paymentId: string,
  depositId: described(nullableString, "The deposit this refund gives back (a stray coin, say); null for a refund of the payment"),
  claim: described(nullable(refundClaimField()), "A refund made as a claim link: its terms (expiry, networks offered, fiat amount, hold); null otherwise"),
};

/** The fields of `ConversionView`. */
const conversionDataFields = {
  id: string,
  object: literal("conversion"),
  livemode: boolean,
  status: literal("SUCCESS"),
  fromCurrency: string,
  toCurrency: string,
  amount: decimal,
  rate: decimal,
  toAmount: decimal,
  paymentId: nullableString,
  createdAt: isoTime,
};

// Subscription events
const CANCELLATION_REASONS = ["requested", "payer", "period_end", "unpaid"] as const;
const interval = field(
  z.union([z.enum(["week", "month", "year"]), z.strictObject({ days: z.int().positive() })]),
  (value) =>
    value === "week" ||
    value === "month" ||
    value === "year" ||
    (isJsonObject(value) && Object.keys(value).length === 1 && Number.isSafeInteger(value.days) && (value.days as number) > 0),
);

/** The fields of `SubscriptionView`. */
const subscriptionDataFields = {
  id: string,
  object: literal("subscription"),
  livemode: boolean,
  customer: string,
  status: oneOf(SUBSCRIPTION_STATUSES),
  amount: decimal,
  currency: string,
  acceptedCoins: nullable(stringList),
  interval,
  startAt: isoTime,
  trialEnd: nullable(isoTime),
  currentPeriodStart: nullable(isoTime),
  currentPeriodEnd: nullable(isoTime),
  cancelAtPeriodEnd: boolean,
  cancelledAt: nullable(isoTime),
  cancellationReason: nullable(oneOf(CANCELLATION_REASONS)),
  gracePeriodDays: integer,
  renewBeforeDays: integer,
  payerCanCancel: boolean,
  openPaymentId: nullableString,
  metadata: nullable(field(z.record(z.string(), z.unknown()), isJsonObject)),
  createdAt: isoTime,
  updatedAt: isoTime,
};

// If a view gains, loses or retypes a field, this stops compiling until its schema follows.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type OutputOf<F extends Record<string, Field<z.ZodType>>> = z.output<z.ZodObject<{ [K in keyof F]: F[K]["schema"] }>>;
const schemasMatchViews: [
  Same<OutputOf<typeof paymentDataFields>, PaymentView>,
  Same<OutputOf<typeof withdrawalDataFields>, WithdrawalView>,
  Same<OutputOf<typeof refundDataFields>, RefundView>,
  Same<OutputOf<typeof conversionDataFields>, ConversionView>,
  Same<OutputOf<typeof subscriptionDataFields>, SubscriptionView>,
] = [true, true, true, true, true];
void schemasMatchViews;

/** A resource an event can carry, by the name of its `object`. */
export type Resource = "payment" | "withdrawal" | "refund" | "conversion" | "subscription";

/** The fields of each resource an event can carry. */
export const RESOURCE_FIELDS: { readonly [R in Resource]: Record<string, Field<z.ZodType>> } = {
  payment: paymentDataFields,
  withdrawal: withdrawalDataFields,
  refund: refundDataFields,
  conversion: conversionDataFields,
  subscription: subscriptionDataFields,
};
