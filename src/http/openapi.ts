import { z } from "zod";
import { createDocument, type ZodOpenApiOperationObject, type ZodOpenApiPathsObject, type ZodOpenApiResponseObject, type oas31 } from "zod-openapi";
import { EVENT_TYPES, type EventType } from "../core/webhooks/records";
import { PAYMENT_EVENT_TYPES } from "../core/invoices/records";
import { PAYOUT_EVENT_TYPES } from "../core/payouts/records";
import { REFUND_EVENT_TYPES } from "../core/refunds/records";
import { SUBSCRIPTION_EVENT_TYPES } from "../core/subscriptions/records";
import { ERROR_CATALOGUE } from "../errors";
import { errorObject, payment } from "../schemas/resources";
import { conversion, refund, withdrawal } from "../schemas/v1-resources";
import { subscription } from "../schemas/v1-subscriptions";
import type { RouteOperation, RouteTable } from "../api/route-table";

/**
 * The OpenAPI 3.1 document of the service, generated from the route tables: each route's
 * request schema (the one that validates it) and the response schema and text it was
 * registered with. Nothing here is written by hand about a particular route, so the document
 * lists exactly the routes that are mounted.
 */

/** A route table and the path prefix it is mounted under. */
export interface MountedApi {
  prefix: string;
  table: RouteTable;
}

/** The document, without `servers`: those depend on where the request came from. */
export type OpenApiDocument = oas31.OpenAPIObject;

/** Tags in the order the reference shows them, with their descriptions. Tags not listed here follow, in order of use. */
const TAGS: Record<string, string> = {
  Invoices: "Payment invoices of the merchant endpoints: hosted and whitelabel.",
  Payouts: "Payouts from the merchant's balance to an external address.",
  Exchanges: "Conversions between two of the merchant's balances, at the pricing adapter's rate with no spread.",
  Reference: "Supported currencies with their networks and limits, and the available exchange pairs.",
  Sandbox: "Test mode only (`sk_test_` keys): drive the simulated chain. A live key gets 404.",
  Payments: "Payments of the /v1 API, with decimal-string amounts: the same records as the invoices of /api/v1.",
  Refunds: "Money given back for a payment, in its coin, never more than it received: to an address, or as a claim link the payer claims on a hosted page.",
  Withdrawals: "Payouts from the merchant's balance to an external address (the /api/v1 payouts).",
  Conversions: "Conversions between two of the merchant's balances (the /api/v1 exchanges), including auto-conversions of payments.",
  Balances: "What the merchant holds, per currency: available and pending.",
  "Payment links": "Reusable links: each payer who continues from a link's page gets a fresh hosted payment.",
  Subscriptions: "Schedules of payments, one per billing period, each paid by the payer on the hosted page; a secret page per subscription for the payer.",
  "Webhook endpoints": "Where signed events are delivered. The `whsec_` secret is shown once, at creation and rotation.",
  "Webhook deliveries": "The delivery log: every event sent to every endpoint, its attempts, and redelivery.",
  "Event log": "The event log, read forward from a cursor: what a client that cannot receive webhooks polls instead (the CLI's `listen`).",
  Events: "Webhook events sent to registered endpoints.",
};

const EVENT_MEANINGS: Record<EventType, string> = {
  "payment.created": "The payment was created and awaits a deposit.",
  "payment.confirming": "A deposit was detected; waiting for confirmations.",
  "payment.confirmed": "The deposits are confirmed on-chain (the payment may still be short: see `status`).",
  "payment.completed": "Final settled state: the ledger is credited. Mark the order paid here.",
  "payment.failed": "Terminal failure (e.g. underpaid when the window closed; received funds stay credited and refundable).",
  "payment.expired": "The payment window passed with nothing received.",
  "payment.unexpected_deposit":
    "A coin other than the payment's was sent to its address and credited to the balance in that coin, less the fee. It does not count toward the payment (see `deposits`); refund it with POST /v1/refunds and its `depositId`.",
  "payment.reversed":
    "A credited deposit left the chain in a reorg deeper than its confirmations: its credit was taken back (the balance may be below zero) and `reversedAmount` shows it. Hold the goods.",
  "payment.deposit_dropped":
    "A deposit seen but not yet final left the chain (reorg, replaced or double-spent): it no longer counts, and the payment went back as if it had never come.",
  "payout.processing":
    "A withdrawal was created (or, held for approval, approved): amount and fee are debited from the balance; it is on its way to the chain.",
  "payout.completed": "The withdrawal is confirmed on-chain (`txHash`).",
  "payout.failed": "The chain refused the withdrawal (`failureReason`); amount and fee are credited back.",
  "payout.awaiting_approval":
    "A withdrawal above the approval threshold was created: amount and fee are debited from the balance and held; it is sent once a second person approves it (`payout.processing`).",
  "payout.rejected": "A withdrawal held for approval was rejected (`failureReason`); amount and fee are credited back.",
  "refund.processing": "A refund of a payment was created: amount and fee are debited from the balance; it is on its way to the chain.",
  "refund.completed": "The refund is confirmed on-chain (`txHash`).",
  "refund.failed": "The chain refused the refund (`failureReason`); amount and fee are credited back and the payment can be refunded again.",
  "refund.awaiting_approval":
    "A refund above the approval threshold was created: amount and fee are debited from the balance and held; it is sent once a second person approves it (`refund.processing`).",
  "refund.rejected": "A refund held for approval was rejected (`failureReason`); amount and fee are credited back and the payment can be refunded again.",
  // Refund claim links
  "refund.created":
    "A refund was made as a claim link (no address yet, `AWAITING_CLAIM`): its amount and the highest network fee of the networks offered are held from the balance until the payer claims it.",
  "refund.claimed":
    "The payer claimed a refund link with an address: the hold was settled against the exact amount and fee sent (any difference credited back or debited) and the refund is a payout from here (`PROCESSING`, or `AWAITING_APPROVAL` above the approval threshold).",
  "refund.cancelled": "A refund claim link was cancelled before it was claimed; its whole hold is credited back and the payment can be refunded again.",
  "refund.expired": "A refund claim link lapsed unclaimed (`expiresInDays`); its whole hold is credited back and the payment can be refunded again.",
  "conversion.completed": "A conversion between two balances was made (through the API, or an auto-conversion of a payment: `paymentId`).",
  // Subscription events
  "subscription.created": "A subscription was created (its first payment too, unless it starts with a trial or later).",
  "subscription.renewed":
    "A period's payment was paid: any period after the first, or the first when that payment brings a past_due subscription back to active.",
  "subscription.past_due": "The current period is still unpaid `gracePeriodDays` after it began.",
  "subscription.cancelled":
    "The subscription ended (`cancellationReason`): cancelled through the API, at the end of a period it was set to end at (by the API or the payer), or a period still unpaid when the next began.",
};

/** What each event's `data` is, by the list its type is in: the resource's /v1 schema and name. */
function dataOf(type: EventType): { schema: z.ZodType; what: string } {
  if ((PAYMENT_EVENT_TYPES as readonly string[]).includes(type))
    return { schema: payment, what: "the payment right after the change, with `metadata.orderId` when one was given" };
  if ((PAYOUT_EVENT_TYPES as readonly string[]).includes(type)) return { schema: withdrawal, what: "the withdrawal right after the change" };
  if ((REFUND_EVENT_TYPES as readonly string[]).includes(type))
    return { schema: refund, what: "the refund right after the change (`paymentId` is the payment refunded)" };
  if ((SUBSCRIPTION_EVENT_TYPES as readonly string[]).includes(type)) return { schema: subscription, what: "the subscription right after the change" };
  return { schema: conversion, what: "the conversion" };
}

const DESCRIPTION = `
Crypto payments as an Express router: invoices, payouts, exchanges and reference lists under \`/api/v1\`
(the merchant API), provider-level endpoints and webhook management under \`/v1\`, and signed webhook events.

**Authentication.** Every endpoint takes \`Authorization: Bearer <API key>\`. Keys beginning \`sk_test_\` work in
test mode (sandbox chain, sandbox endpoints), keys beginning \`sk_live_\` in live mode; paths and shapes are the
same. A key only ever sees the records of its own merchant and mode: any other id answers 404.

**Errors.** Every error answer is the error object \`{ "error": <int>, "message": <string> }\` where \`error\` is the
HTTP status x 100 + a number from the catalogue (e.g. 40001 validation, 40101 invalid key, 42201 insufficient
balance). Switch on \`error\`; messages may be reworded. Any POST may also answer 413 (body over the size limit)
or 415 (a body that is not JSON), and any request 500 or 503.

**Compatibility.** Requests are strict: an unknown field is a 400, so a typo never silently drops an option.
Answers and events may gain fields within version 1: ignore the ones you do not know.

**Amounts.** The \`/api/v1\` endpoints use JSON numbers (quoted amounts have at most 8 decimals, exact as a double);
\`/v1\` and webhook events use decimal strings.

**Webhooks.** Each delivery carries \`webhook-id\`, \`webhook-timestamp\` and \`webhook-signature: v1,<base64>\`, the
HMAC-SHA256 of \`id.timestamp.body\` (exact bytes) keyed with the endpoint's \`whsec_\` secret (Standard Webhooks).
`.trim();

/** `post /api/v1/merchants/invoice/create` -> `postApiV1MerchantsInvoiceCreate`; `{id}` -> `ById`. */
function operationId(method: string, path: string): string {
  const words = path
    .split(/[/\-_.]/)
    .filter(Boolean)
    .map((word) => (word.startsWith("{") ? `by ${word.slice(1, -1)}` : word))
    .flatMap((word) => word.split(" "));
  return method.toLowerCase() + words.map((word) => word[0]!.toUpperCase() + word.slice(1)).join("");
}

/** Response component name of an error status, e.g. `Error404`. */
const errorResponseName = (status: number) => `Error${status}`;

/** One response component per status of the catalogue, naming the `error` codes it can carry. */
function errorResponses(): Record<string, ZodOpenApiResponseObject> {
  const byStatus = new Map<number, string[]>();
  for (const [name, { status, code }] of Object.entries(ERROR_CATALOGUE)) {
    byStatus.set(status, [...(byStatus.get(status) ?? []), `\`${code}\` ${name}`]);
  }
  return Object.fromEntries(
    [...byStatus].map(([status, codes]) => [
      errorResponseName(status),
      { description: `Error object; \`error\` is one of: ${codes.join(", ")}.`, content: { "application/json": { schema: errorObject } } },
    ]),
  );
}

const idempotencyHeader = z.object({
  "Idempotency-Key": z.string().optional().meta({
    description:
      "Makes the request safe to retry: the same key with the same body replays the first answer (with `Idempotent-Replayed: true`), the same key with another body is 409. Scoped to the merchant and mode, kept 24 h.",
  }),
});

/** True for an object schema without fields (`{}`): the route takes no input there. */
function takesNothing(schema: z.ZodType): boolean {
  return schema instanceof z.ZodObject && Object.keys(schema.shape).length === 0;
}

function operationOf(prefix: string, route: RouteOperation): ZodOpenApiOperationObject {
  const docs = route.docs;
  const fullPath = prefix + route.path;
  const statuses = new Set<number>([401, ...(docs?.errors ?? [])]);
  if (route.inputIn !== "none") statuses.add(400);
  if (route.idempotent) statuses.add(409);
  const responses: ZodOpenApiOperationObject["responses"] = {
    "200": docs
      ? { description: z.globalRegistry.get(docs.response)?.description ?? "Success.", content: { "application/json": { schema: docs.response } } }
      : { description: "Undocumented." },
  };
  for (const status of [...statuses].sort((a, b) => a - b)) {
    if (!Object.values(ERROR_CATALOGUE).some((entry) => entry.status === status)) {
      throw new Error(`OpenAPI: ${route.method} ${fullPath} lists error status ${status}, which no entry of ERROR_CATALOGUE has.`);
    }
    responses[`${status}` as `4${string}`] = { $ref: `#/components/responses/${errorResponseName(status)}` };
  }
  const requestParams: NonNullable<ZodOpenApiOperationObject["requestParams"]> = {};
  if (route.pathParams.length > 0) {
    requestParams.path = z.object(Object.fromEntries(route.pathParams.map((name) => [name, z.string().min(1).meta({ description: "Identifier." })])));
  }
  if (route.inputIn === "query" && !takesNothing(route.input)) requestParams.query = route.input as z.ZodObject;
  if (route.idempotent) requestParams.header = idempotencyHeader;
  const operation: ZodOpenApiOperationObject = {
    operationId: operationId(route.method, fullPath),
    summary: docs?.summary ?? `${route.method} ${fullPath}`,
    ...(docs?.description ? { description: docs.description } : {}),
    ...(docs?.tags ? { tags: docs.tags } : {}),
    ...(docs ? {} : { "x-undocumented": true }),
    requestParams,
    responses,
  };
  if (route.inputIn === "body" && !takesNothing(route.input)) {
    operation.requestBody = {
      // parseBody reads a missing body as {}: the body is optional when {} passes.
      required: !route.input.safeParse({}).success,
      content: { "application/json": { schema: route.input } },
    };
  }
  return operation;
}

/** The OpenAPI 3.1 `webhooks`: one entry per event type, each a POST to the merchant's endpoint. */
function webhookEntries(): ZodOpenApiPathsObject {
  const headers = z.object({
    "webhook-id": z.string().meta({ description: "Delivery id: the same on every retry; dedupe on it." }),
    "webhook-timestamp": z.string().meta({ description: "Unix seconds; signed, so reject old ones (replay protection)." }),
    "webhook-signature": z.string().meta({ description: "`v1,<base64 HMAC-SHA256 of id.timestamp.body>`, space-separated when several secrets sign." }),
  });
  return Object.fromEntries(
    EVENT_TYPES.map((type) => [
      type,
      {
        post: {
          operationId: `event${type
            .split(".")
            .map((word) => word[0]!.toUpperCase() + word.slice(1))
            .join("")}`,
          summary: type,
          description:
            `${EVENT_MEANINGS[type]}\n\nThe body's \`data\` is ${dataOf(type).what}. ` +
            "Each delivery is retried on its own schedule, so events (of one payment too) can arrive in any order: `timestamp` and the resource's `status` and `updatedAt` tell which came first.",
          tags: ["Events"],
          security: [],
          requestParams: { header: headers },
          requestBody: {
            required: true,
            content: {
              "application/json": {
                schema: z.object({
                  type: z.literal(type),
                  timestamp: z.iso.datetime().meta({ description: "When the change happened; not the delivery time, which is webhook-timestamp." }),
                  data: dataOf(type).schema,
                }),
              },
            },
          },
          responses: {
            "2XX": {
              description:
                "Received. Answer only after the event is handled: anything else (or no answer in 15 s) is retried with backoff, after at least a `Retry-After` if you send one. Any other answer with the header `webhook-delivery: abort-message` stops the retries of this one message.",
            },
            "410": { description: "Gone: disables the endpoint; no more deliveries are sent to it." },
          },
        },
      },
    ]),
  );
}

/**
 * Builds the document from the mounted route tables. Routes registered without `docs` still
 * appear (marked `x-undocumented`), so the reference never hides an endpoint that answers.
 */
export function buildOpenApiDocument(apis: readonly MountedApi[]): OpenApiDocument {
  const paths: ZodOpenApiPathsObject = {};
  const usedTags: string[] = [];
  for (const { prefix, table } of apis) {
    for (const route of table.operations()) {
      const fullPath = prefix + route.path;
      const item = (paths[fullPath] ??= {});
      item[route.method.toLowerCase() as "get" | "post" | "delete"] = operationOf(prefix, route);
      for (const tag of route.docs?.tags ?? []) if (!usedTags.includes(tag)) usedTags.push(tag);
    }
  }
  usedTags.push("Events");
  const tags = [...Object.keys(TAGS).filter((tag) => usedTags.includes(tag)), ...usedTags.filter((tag) => !(tag in TAGS))];
  return createDocument(
    {
      openapi: "3.1.0",
      info: { title: "express-crypto-pay", version: "1.0.0", description: DESCRIPTION },
      tags: tags.map((name) => (TAGS[name] ? { name, description: TAGS[name] } : { name })),
      security: [{ apiKey: [] }],
      paths,
      webhooks: webhookEntries(),
      components: {
        securitySchemes: {
          apiKey: {
            type: "http",
            scheme: "bearer",
            bearerFormat: "sk_test_... | sk_live_...",
            description: "An API key as a bearer token. `sk_test_` keys work in test mode (sandbox chain), `sk_live_` keys in live mode; nothing else differs.",
          },
        },
        schemas: { Error: errorObject },
        responses: errorResponses(),
      },
    },
    {
      override: ({ jsonSchema, zodSchema, io }) => {
        const def = zodSchema._zod.def;
        // A default before a transform (amountCurrency "USD") is dropped from the input schema; it applies all the same.
        if (def.type === "default" && io === "input" && jsonSchema.default === undefined) {
          const value: unknown = (def as { defaultValue: unknown }).defaultValue;
          if (value === null || ["string", "number", "boolean"].includes(typeof value)) jsonSchema.default = value;
        }
        // Examples too: zod drops them from a field with a transform (a symbol upper-cased, a number
        // turned into a decimal string), but a request field's examples are what a caller sends.
        if (io === "input" && jsonSchema.examples === undefined) {
          const examples = z.globalRegistry.get(zodSchema)?.examples;
          if (Array.isArray(examples)) jsonSchema.examples = examples;
        }
        // Resource schemas are strict so that tests catch an undocumented field, but answers may
        // gain fields in a minor version: the document must not tell clients to reject them.
        // A named resource is also the `data` of a webhook event (a request body of the document's
        // webhooks, so read as input): open there too, so both uses share one component.
        if ((io === "output" || z.globalRegistry.get(zodSchema)?.id !== undefined) && jsonSchema.additionalProperties === false)
          delete jsonSchema.additionalProperties;
        // format: date-time says it; zod's long regex only clutters the reference.
        if (jsonSchema.format === "date-time") delete jsonSchema.pattern;
      },
    },
  );
}
