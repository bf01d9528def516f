import { z } from "zod";
import { EVENT_TYPES } from "../core/webhooks/records";
import { INVOICE_STATUSES } from "../core/invoices/records";
import { PAYOUT_STATUSES } from "../core/payouts/records";
import { paymentDataSchema } from "./events";

/**
 * Schemas of what the service answers: the resources of the merchant API (invoice, payout,
 * exchange, currency, exchange pair, the error object; docs/merchant-api.md) as the presenters
 * render them, the webhook management views and the list pages. They are the one source of the
 * response shapes in the OpenAPI document, and test/http/resources.test.ts parses real answers
 * of every route with them, so the document cannot drift from the code.
 *
 * Objects are strict: an answer with a field the schema does not list fails that test, which
 * is how a new presenter field gets documented. The document itself leaves them open
 * (src/http/openapi.ts): answers may gain fields, and clients are told to ignore unknown ones.
 * `id` in `.meta()` makes each one a named component of the document.
 */

/** ISO 8601 date-time, as every timestamp is written (always UTC, with milliseconds). */
const dateTime = z.iso.datetime();
const symbolRef = z.strictObject({ symbol: z.string().meta({ description: "Currency symbol, e.g. USDT.", examples: ["USDT"] }) });
const networkRef = z.strictObject({ network: z.string().meta({ description: "Network code, e.g. TRX.", examples: ["TRX"] }) });
/** A JSON amount of the /api/v1 endpoints: a number with at most 8 decimals, so it is exact as a double. */
const amount = (description: string) => z.number().meta({ description });

/** Invoice statuses: PENDING, CONFIRMING, UNDER_PAID, PAID, FAILED, EXPIRED (the invoice lifecycle table in docs/money.md). */
export const invoiceStatus = z.enum(INVOICE_STATUSES).meta({
  id: "InvoiceStatus",
  description: "PENDING -> CONFIRMING -> PAID, or UNDER_PAID, FAILED (underpaid when the window closed), EXPIRED (nothing received in time).",
});

/** One transfer to an invoice's address (the /v1 payment's `deposits` entries have the same shape). */
export const deposit = z
  .strictObject({
    id: z.string().meta({ examples: ["dep_..."] }),
    object: z.literal("deposit"),
    txHash: z.string(),
    outputIndex: z.int().meta({ description: "Output (UTXO chains) or log index (EVM) within the transaction." }),
    currency: z.string().meta({ description: "The coin received: the invoice's, or another one sent to its address (a stray deposit)." }),
    chain: z.string().meta({ description: "Network code." }),
    amount: z
      .string()
      .regex(/^\d+(\.\d+)?$/)
      .meta({ description: "What the payer sent, as an exact decimal string in currency." }),
    fee: z
      .string()
      .regex(/^\d+(\.\d+)?$/)
      .meta({ description: 'The 0.5% fee taken when it was credited ("0" before).' }),
    status: z.enum(["PENDING", "CONFIRMED", "DROPPED", "REVERSED"]).meta({
      description:
        "PENDING (seen), CONFIRMED (final and credited), DROPPED (left the chain before it was final), REVERSED (credited, then left the chain in a deep reorg: the credit was taken back).",
    }),
    countsTowardPayment: z.boolean().meta({
      description: "False for a coin other than the invoice's (a stray deposit) or a transfer after its window closed: credited, but the status does not move.",
    }),
    confirmations: z.int(),
    reversals: z.int().meta({ description: "How many times it left the chain after it was credited." }),
    createdAt: dateTime.meta({ description: "When it was first seen." }),
    creditedAt: dateTime.nullable().meta({ description: "When its standing credit was posted; null while not credited." }),
  })
  .meta({ id: "Deposit", description: "A transfer to an issued address, as this service tracks it." });

/** An invoice as invoice/create, whitelabel/create and invoice/fetch answer it; `deposits` on a fetch only. */
export const invoice = z
  .strictObject({
    id: z.string().meta({ description: "Invoice identifier (the same id is the /v1 payment)." }),
    merchantId: z.string(),
    paymentUrl: z.url().meta({ description: "Hosted payment page to send the payer to." }),
    status: invoiceStatus,
    address: z.string().nullable().meta({ description: "Deposit address; null on a hosted invoice until the payer picks a coin." }),
    txHash: z.string().nullable().meta({ description: "Hash of the most recent deposit transaction." }),
    amount: amount("Requested amount, in amountCurrency."),
    amountCurrency: z.string(),
    rate: z.number().nullable().meta({ description: "Price of 1 unit of the crypto currency in amountCurrency; null until a coin is chosen." }),
    payAmount: z.number().nullable().meta({ description: "Crypto amount to pay (amount / rate, rounded up; grossed up by the 0.5% fee when feePaidByPayer)." }),
    receivedAmount: amount("Sum of the deposits seen so far, in the crypto currency."),
    overpaidAmount: amount("What was received beyond payAmount, in the crypto currency; 0 unless the payer sent too much (the merchant keeps it, refundable)."),
    cryptoCurrency: symbolRef.nullable().meta({ description: "The coin to pay in; null on a hosted invoice until the payer picks one." }),
    network: networkRef.nullable(),
    acceptedCoins: z.array(z.string()).nullable().meta({ description: "Coins the payer may choose from (hosted mode); null for every supported coin." }),
    feePaidByPayer: z.boolean(),
    underPaidCover: z.number().meta({ description: "Accepted underpayment, in percent (0 to 50)." }),
    isWhiteLabel: z.boolean(),
    returnUrl: z.url().nullable(),
    metadata: z.record(z.string(), z.unknown()).nullable().meta({ description: "The merchant's data as given at creation; orderId flows into every event." }),
    expiresAt: dateTime,
    createdAt: dateTime,
    reversedAmount: amount(
      "Received in the crypto currency, then taken back because its deposit left the chain after it was credited (a deep reorg); not part of receivedAmount.",
    ),
    deposits: z.array(deposit).optional().meta({ description: "Every transfer to the invoice's address, counted or not (fetch only)." }),
  })
  .meta({ id: "Invoice", description: "A payment invoice. Amounts are JSON numbers; payAmount has at most 8 decimals." });

/** Payout statuses: PROCESSING until the chain settles it; AWAITING_APPROVAL and REJECTED for payouts held for approval. */
export const payoutStatus = z.enum(PAYOUT_STATUSES).meta({
  id: "PayoutStatus",
  description:
    "PROCESSING until the chain settles it; on FAILED the amount and fee are credited back. A payout above the approval threshold starts AWAITING_APPROVAL (debited, not sent) until a second person approves it (then PROCESSING) or rejects it (REJECTED, amount and fee credited back).",
});

/** A payout as payout/create and payout/fetch answer it. */
export const payout = z
  .strictObject({
    id: z.string(),
    wallet: z.strictObject({ merchantId: z.string(), currency: symbolRef }),
    network: networkRef,
    status: payoutStatus,
    address: z.string().meta({ description: "Destination address." }),
    txHash: z.string().nullable().meta({ description: "Transaction hash, once the chain has one." }),
    amount: amount("Amount sent to the address."),
    fee: amount("Network fee debited on top of amount (withdrawFee + staticFixedFee)."),
    failureReason: z.string().nullable(),
    createdAt: dateTime,
  })
  .meta({ id: "Payout", description: "A payout to an external address." });

/** An exchange as exchange/create answers it. */
export const exchange = z
  .strictObject({
    id: z.string(),
    status: z.literal("SUCCESS").meta({ description: "Exchanges are atomic: they succeed or answer an error." }),
    fromWallet: z.strictObject({ currency: symbolRef }),
    toWallet: z.strictObject({ currency: symbolRef }),
    amount: amount("Amount taken from the source currency."),
    rate: amount("Price of 1 unit of the source currency in the target currency (no spread)."),
    toAmount: amount("Amount credited in the target currency."),
    createdAt: dateTime,
  })
  .meta({ id: "Exchange", description: "A conversion between two of the merchant's balances." });

/** One network of a currency in the currency list, with its limits and fees. */
export const currencyNetwork = z
  .strictObject({
    network: z.string(),
    name: z.string(),
    minConfirm: z.int().meta({ description: "Confirmations before a deposit counts." }),
    withdrawFee: z.number(),
    withdrawMin: z.number(),
    depositMin: z.number(),
    staticFixedFee: z.number(),
  })
  .meta({ id: "CurrencyNetwork" });

/** One currency of the currency list. */
export const currency = z
  .strictObject({ symbol: z.string(), name: z.string(), networks: z.array(currencyNetwork) })
  .meta({ id: "Currency", description: "A supported crypto currency with its networks and their limits." });

/** The currency list: the answer of POST /api/v1/currencies. */
export const currencyList = z.array(currency).meta({ description: "Every supported currency." });

/** One pair of the exchange pair list. */
export const exchangePair = z
  .strictObject({
    minAmount: amount("Smallest exchange amount, in fromCurrency."),
    rate: amount("Price of 1 fromCurrency in toCurrency."),
    fromCurrency: symbolRef,
    toCurrency: symbolRef,
  })
  .meta({ id: "ExchangePair", description: "An available exchange pair." });

/** The exchange pair list: the answer of POST /api/v1/exchange/pairs. */
export const exchangePairList = z.array(exchangePair).meta({ description: "Every available exchange pair." });

/** The error object `{ error, message }`: every error response carries it. */
export const errorObject = z
  .strictObject({
    error: z
      .int32()
      .meta({ format: "int32", description: "HTTP status x 100 + a number from the error catalogue (docs/errors.md), e.g. 40001.", examples: [40001] }),
    message: z.string().meta({ description: "What was wrong and, where there is one, what to do instead. May be reworded between versions." }),
  })
  .meta({ id: "Error", description: "The error object of every error answer. Switch on `error`, never on `message`." });

/** The payment as webhooks and the /v1 API show it (the `data` of every event). */
export const payment = paymentDataSchema.meta({
  id: "Payment",
  description: "A payment as /v1 and webhook events show it: decimal strings for every amount. New fields may be added: ignore the ones you do not know.",
});

/** A list page of the /v1 API: newest first, `nextCursor` is the `cursor` of the next page. */
export function page<Item extends z.ZodType>(item: Item) {
  return z.strictObject({
    data: z.array(item),
    hasMore: z.boolean().meta({ description: "True when another page follows." }),
    nextCursor: z.string().nullable().meta({ description: "Pass as `cursor` to get the next page; null on the last one." }),
  });
}

/** A webhook endpoint (`secret` only in the answers of creation and rotation). */
export const webhookEndpoint = z
  .strictObject({
    id: z.string(),
    object: z.literal("webhook_endpoint"),
    livemode: z.boolean(),
    url: z.string(),
    events: z.array(z.enum(EVENT_TYPES)).nullable().meta({ description: "Event types it receives; null for all." }),
    status: z.enum(["enabled", "disabled"]),
    disabledReason: z.string().nullable(),
    secret: z.string().optional().meta({ description: "The whsec_ signing secret: shown only by creation and rotation, keep it." }),
    createdAt: dateTime,
    updatedAt: dateTime,
  })
  .meta({ id: "WebhookEndpoint", description: "Where a merchant receives signed events, in one mode." });

/** The list of a merchant's webhook endpoints (not paginated: a merchant has few). */
export const webhookEndpointList = z.strictObject({ data: z.array(webhookEndpoint) });

/** The answer to deleting a webhook endpoint. */
export const deletedWebhookEndpoint = z
  .strictObject({ id: z.string(), object: z.literal("webhook_endpoint"), deleted: z.literal(true) })
  .meta({ id: "DeletedWebhookEndpoint" });

/** One delivery of one event to one endpoint, with its attempt log. */
export const webhookDelivery = z
  .strictObject({
    id: z.string().meta({ description: "The webhook-id header the receiver saw; the same on every retry." }),
    object: z.literal("webhook_delivery"),
    livemode: z.boolean(),
    endpointId: z.string(),
    eventId: z.string(),
    eventType: z.string(),
    status: z.enum(["pending", "succeeded", "failed"]),
    attemptCount: z.int(),
    nextAttemptAt: dateTime.nullable().meta({ description: "When the next attempt is due; null once settled." }),
    lastStatusCode: z.int().nullable(),
    lastError: z.string().nullable(),
    attempts: z.array(
      z.strictObject({
        at: dateTime,
        statusCode: z.int().nullable().meta({ description: "The endpoint's HTTP status; null when no answer came (network error, timeout)." }),
        durationMs: z.number(),
        error: z.string().nullable(),
      }),
    ),
    createdAt: dateTime,
    updatedAt: dateTime,
  })
  .meta({ id: "WebhookDelivery", description: "An event on its way to an endpoint, with every attempt made." });

/** A page of webhook deliveries. */
export const webhookDeliveryPage = page(webhookDelivery);

/** One event of the event log, as GET /v1/events lists it. */
export const serviceEvent = z
  .strictObject({
    id: z.string().meta({ examples: ["evt_..."] }),
    object: z.literal("event"),
    livemode: z.boolean(),
    type: z.enum(EVENT_TYPES),
    createdAt: dateTime,
    data: z
      .record(z.string(), z.unknown())
      .meta({ description: "The resource as the webhook of this event carries it: a payment, withdrawal, refund or conversion." }),
  })
  .meta({ id: "Event" });

/** Answer of GET /v1/events: events oldest first, and where to read on. */
export const serviceEventPage = z.strictObject({
  data: z.array(serviceEvent),
  nextCursor: z.string().meta({ description: "Pass as `after` to read the events appended after these (after the `after` given when there were none)." }),
});

/** Answer of POST /api/v1/sandbox/deposit/create. */
export const sandboxDeposit = z.strictObject({
  txHash: z.string().meta({ description: "The simulated transaction; pass it to deposit/confirm or deposit/drop." }),
});

/** Answer of POST /api/v1/sandbox/deposit/confirm. */
export const sandboxDepositConfirmation = z.strictObject({ txHash: z.string(), confirmations: z.int() });

/** Answer of POST /api/v1/sandbox/deposit/drop. */
export const sandboxDepositDrop = z.strictObject({ txHash: z.string(), dropped: z.literal(true) });
