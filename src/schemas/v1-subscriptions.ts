import { z } from "zod";
import { SUBSCRIPTION_STATUSES } from "../core/subscriptions/records";
import { metadata, plainText, symbol } from "./fields";
import { page } from "./resources";
import { decimalString } from "./v1";
import { pageQuery } from "./webhooks";

/**
 * Schemas of /v1/subscriptions: its requests (strict, as every /v1 request) and the subscription
 * it answers with (strict too, as test/http/resources.test.ts checks every view against its schema).
 */

const wholeDays = (what: string, max: number) =>
  z
    .int({ error: "must be a whole number of days" })
    .min(0, { error: "must be 0 or more" })
    .max(max, { error: `must be at most ${max}` })
    .meta({ description: what });

const interval = z
  .union([z.enum(["week", "month", "year"]), z.strictObject({ days: z.int({ error: "must be a whole number of days" }).min(1).max(3650) })], {
    error: 'must be "week", "month", "year" or { "days": n }',
  })
  .meta({
    description:
      'How often the payer is invoiced: "week", "month", "year", or `{ "days": n }`. In UTC calendar terms: a month plan started on the 31st renews on the last day of a shorter month and on the 31st again after; a year plan from Feb 29 on Feb 28.',
    examples: ["month"],
  });

/** POST /v1/subscriptions */
export const subscriptionCreateRequest = z.strictObject({
  customer: plainText(
    z.string({ error: "must be a string" }).trim().min(1, { error: "must not be empty" }).max(200, { error: "must be at most 200 characters" }),
  ).meta({
    description: "Your own reference of the customer (an id in your system); the list filters by it.",
    examples: ["cus_1042"],
  }),
  amount: decimalString.meta({ description: "Amount of each period's payment, in currency: a decimal string.", examples: ["9.99"] }),
  currency: symbol.meta({
    description: "Currency of amount: a fiat currency (priced in the coin the payer picks, at that time) or a coin.",
    examples: ["USD"],
  }),
  acceptedCoins: z
    .array(symbol, { error: "must be an array of coin symbols" })
    .min(1)
    .max(50)
    .optional()
    .meta({ description: "Coins the payer may pick from; left out, every supported coin.", examples: [["USDT", "BTC"]] }),
  interval,
  startAt: z.iso
    .datetime({ offset: true, error: "must be an ISO 8601 date-time such as 2026-01-31T00:00:00Z" })
    .transform((value) => Date.parse(value))
    .optional()
    .meta({ description: "When the subscription starts (not in the past); left out, now.", examples: ["2026-12-01T00:00:00Z"] }),
  trialDays: wholeDays("Days of free trial before the first paid period; its payment is made renewBeforeDays before the trial ends.", 730).default(0),
  gracePeriodDays: wholeDays(
    "Days a period may stay unpaid after it started before the subscription is past_due (less than the shortest period).",
    365,
  ).default(3),
  renewBeforeDays: wholeDays("Days before a period starts that its payment is made (less than the shortest period).", 365).default(3),
  payerCanCancel: z
    .boolean({ error: "must be true or false" })
    .default(false)
    .meta({ description: "True: the payer's page offers to cancel at the end of the current period." }),
  metadata: metadata.optional().meta({
    description: "Free-form data; copied into each period's payment, with `subscriptionId` and `subscriptionPeriod` added.",
    examples: [{ plan: "pro" }],
  }),
});

/** POST /v1/subscriptions/:id */
export const subscriptionUpdateRequest = z.strictObject({
  amount: decimalString.optional().meta({
    description:
      "The new amount of each period, in the subscription's currency: applies to every payment made after this change (a payment made already keeps its amount).",
    examples: ["12"],
  }),
  metadata: metadata.nullable().optional().meta({ description: "Replaces the metadata (null clears it)." }),
  payerCanCancel: z.boolean({ error: "must be true or false" }).optional(),
  cancelAtPeriodEnd: z.literal(false, { error: "can only be false (takes back a cancellation at period end)" }).optional().meta({
    description: "false takes back a cancellation at period end that has not happened yet.",
  }),
});

/** POST /v1/subscriptions/:id/cancel */
export const subscriptionCancelRequest = z.strictObject({
  atPeriodEnd: z.boolean({ error: "must be true or false" }).default(false).meta({
    description: "True: it stays active until the current period ends, makes no further payment, then is cancelled. False (default): cancelled now.",
  }),
});

/** GET /v1/subscriptions */
export const subscriptionListQuery = z.strictObject({
  ...pageQuery,
  status: z.enum(SUBSCRIPTION_STATUSES, { error: `must be one of ${SUBSCRIPTION_STATUSES.join(", ")}` }).optional(),
  customer: plainText(z.string().min(1, { error: "must not be empty" }).max(200, { error: "must be at most 200 characters" }))
    .optional()
    .meta({ description: "Only this customer's subscriptions (exact match)." }),
});

const dateTime = z.iso.datetime();
const nullableTime = z.iso.datetime().nullable();

/** A subscription, as /v1 answers it and its events carry it. */
export const subscription = z
  .strictObject({
    id: z.string().meta({ examples: ["sub_..."] }),
    object: z.literal("subscription"),
    livemode: z.boolean(),
    customer: z.string(),
    status: z.enum(SUBSCRIPTION_STATUSES).meta({
      description:
        "active (in its trial, or its current period paid or within its grace days), past_due (the current period unpaid past its grace days), cancelled (final).",
    }),
    amount: z
      .string()
      .regex(/^\d+(\.\d+)?$/)
      .meta({ description: "Amount of each period's payment, in currency.", examples: ["9.99"] }),
    currency: z.string().meta({ examples: ["USD"] }),
    acceptedCoins: z.array(z.string()).nullable(),
    interval: z.union([z.enum(["week", "month", "year"]), z.object({ days: z.int() })]).meta({ description: '"week", "month", "year" or `{ "days": n }`.' }),
    startAt: dateTime,
    trialEnd: nullableTime,
    currentPeriodStart: nullableTime.meta({ description: "Start of the period running now (the trial's start during the trial); null before a later start." }),
    currentPeriodEnd: nullableTime.meta({ description: "End of the period running now: when the next one begins." }),
    cancelAtPeriodEnd: z.boolean(),
    cancelledAt: nullableTime,
    cancellationReason: z.enum(["requested", "payer", "period_end", "unpaid"]).nullable().meta({
      description: "Who or what ended it (or will, with cancelAtPeriodEnd): the API, the payer on its page, the period end, or a period left unpaid.",
    }),
    gracePeriodDays: z.int(),
    renewBeforeDays: z.int(),
    payerCanCancel: z.boolean(),
    openPaymentId: z.string().nullable().meta({ description: "The payment of a period that is made and not yet seen paid." }),
    metadata: z.record(z.string(), z.unknown()).nullable(),
    createdAt: dateTime,
    updatedAt: dateTime,
  })
  .meta({
    id: "Subscription",
    description: "A schedule of payments, one per billing period: crypto cannot be pulled from a payer, so each period is a payment the payer makes.",
  });

/** The answer of creation: the subscription and its payer page's secret link, given this once. */
export const createdSubscription = subscription
  .extend({
    payerUrl: z.url().optional().meta({
      description:
        "The payer's page (its secret link: show it only to the payer). Only in this answer (a replay of its Idempotency-Key leaves it out): it cannot be read again.",
    }),
  })
  .meta({ id: "CreatedSubscription" });

/** A list page of subscriptions. */
export const subscriptionPage = page(subscription);
