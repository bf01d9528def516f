import type { z } from "zod";
import type * as requests from "../schemas/v1";
import type * as resources from "../schemas/resources";
import type * as v1 from "../schemas/v1-resources";
import type * as subscriptions from "../schemas/v1-subscriptions";
import type * as webhooks from "../schemas/webhooks";
import { IdempotencyError } from "../api-errors";
import { listPromise, type ListPromise, type PageLike } from "./pagination";

export type { ListPromise } from "./pagination";

/**
 * The /v1 API as typed resources in stripe-node's shape (`payments.create(body)`,
 * `payments.retrieve(id)`, `payments.list(query)`), shared by the in-process API
 * (`router.forMerchant`) and the HTTP client (`createPaymentClient`): one table of operations,
 * two ways to carry them out. Request and answer types come from the same zod schemas that
 * validate the HTTP API, so the three cannot drift apart.
 */

/** A payment (`/v1/payments`), as the API answers it. */
export type Payment = z.output<typeof resources.payment>;
/** A withdrawal (`/v1/withdrawals`). */
export type Withdrawal = z.output<typeof v1.withdrawal>;
/** A conversion between two balances (`/v1/conversions`). */
export type Conversion = z.output<typeof v1.conversion>;
/** A refund of a payment (`/v1/refunds`). */
export type Refund = z.output<typeof v1.refund>;
/** A refund as `refunds.create` answers it: with `claimUrl` (the secret link for the payer) when made without `address`. */
export type CreatedRefund = z.output<typeof v1.createdRefund>;
/** One balance row (`/v1/balances`). */
export type Balance = z.output<typeof v1.balance>;
/** A reusable payment link (`/v1/payment-links`). */
export type PaymentLink = z.output<typeof v1.paymentLink>;

/** A subscription (`/v1/subscriptions`): a schedule of payments, one per billing period. */
export type Subscription = z.output<typeof subscriptions.subscription>;
/** A subscription with its payer page's secret link, as `subscriptions.create` and `subscriptions.newPayerLink` answer it. */
export type CreatedSubscription = Subscription & { payerUrl: string };
/** `POST /v1/subscriptions` body. */
export type SubscriptionCreateParams = z.input<typeof subscriptions.subscriptionCreateRequest>;
/** `POST /v1/subscriptions/:id` body. */
export type SubscriptionUpdateParams = z.input<typeof subscriptions.subscriptionUpdateRequest>;
/** `POST /v1/subscriptions/:id/cancel` body. */
export type SubscriptionCancelParams = z.input<typeof subscriptions.subscriptionCancelRequest>;
/** `GET /v1/subscriptions` query. */
export type SubscriptionListParams = z.input<typeof subscriptions.subscriptionListQuery>;

/** A webhook endpoint (`/v1/webhook-endpoints`); `secret` is there only in the answers of `create` and `rotateSecret`. */
export type WebhookEndpoint = z.output<typeof resources.webhookEndpoint>;
/** The answer of `webhookEndpoints.delete`. */
export type DeletedWebhookEndpoint = z.output<typeof resources.deletedWebhookEndpoint>;
/** One event's delivery to one endpoint, with its attempts (`/v1/webhook-deliveries`). */
export type WebhookDelivery = z.output<typeof resources.webhookDelivery>;
/** The webhook endpoints of a key's merchant and mode: one list, never split in pages (a merchant has few). */
export type WebhookEndpointList = z.output<typeof resources.webhookEndpointList>;

/** One page of a newest-first list: pass `nextCursor` back as `cursor` for the next. */
export interface ListPage<T> {
  data: T[];
  hasMore: boolean;
  nextCursor: string | null;
}

/** `POST /v1/payments` body. */
export type PaymentCreateParams = z.input<typeof requests.paymentCreateRequest>;
/** `GET /v1/payments` query. */
export type PaymentListParams = z.input<typeof requests.paymentListQuery>;
/** `POST /v1/withdrawals` body. */
export type WithdrawalCreateParams = z.input<typeof requests.withdrawalCreateRequest>;
/** `GET /v1/withdrawals` query. */
export type WithdrawalListParams = z.input<typeof requests.withdrawalListQuery>;
/** `POST /v1/conversions` body. */
export type ConversionCreateParams = z.input<typeof requests.conversionCreateRequest>;
/** `POST /v1/refunds` body. */
export type RefundCreateParams = z.input<typeof requests.refundCreateRequest>;
/** `GET /v1/refunds` query. */
export type RefundListParams = z.input<typeof requests.refundListQuery>;
/** `POST /v1/payment-links` body. */
export type PaymentLinkCreateParams = z.input<typeof requests.paymentLinkCreateRequest>;
/** `GET /v1/conversions` and `GET /v1/payment-links` query. */
export type PlainListParams = z.input<typeof requests.plainListQuery>;

/** `POST /v1/webhook-endpoints` body. */
export type WebhookEndpointCreateParams = z.input<typeof webhooks.webhookEndpointCreateRequest>;
/** `POST /v1/webhook-endpoints/:id/test` body. */
export type WebhookTestParams = z.input<typeof webhooks.webhookTestRequest>;
/** `GET /v1/webhook-deliveries` query. */
export type WebhookDeliveryListParams = z.input<typeof webhooks.webhookDeliveryListQuery>;

/** Options of one creating call. */
export interface CreateOptions {
  /**
   * The request's `Idempotency-Key`: the same key and body run once and replay the first
   * answer (or its error) for 24 hours. The HTTP client makes one per call when it is left out.
   */
  idempotencyKey?: string;
}

/**
 * The /v1 operations, grouped as resources. Every `list` returns a {@link ListPromise}: awaited,
 * one page; iterated with `for await`, every item of every page.
 */
export interface PaymentResources {
  payments: {
    create(body: PaymentCreateParams, options?: CreateOptions): Promise<Payment>;
    retrieve(id: string): Promise<Payment>;
    list(query?: PaymentListParams): ListPromise<Payment, ListPage<Payment>>;
  };
  withdrawals: {
    create(body: WithdrawalCreateParams, options?: CreateOptions): Promise<Withdrawal>;
    retrieve(id: string): Promise<Withdrawal>;
    list(query?: WithdrawalListParams): ListPromise<Withdrawal, ListPage<Withdrawal>>;
  };
  conversions: {
    create(body: ConversionCreateParams, options?: CreateOptions): Promise<Conversion>;
    retrieve(id: string): Promise<Conversion>;
    list(query?: PlainListParams): ListPromise<Conversion, ListPage<Conversion>>;
  };
  refunds: {
    /** Without `address`, a claim link: the answer's `claimUrl` is shown once. */
    create(body: RefundCreateParams, options?: CreateOptions): Promise<CreatedRefund>;
    retrieve(id: string): Promise<Refund>;
    /** Cancels a claim link not yet claimed (CANCELLED, its hold credited back); 409 once claimed. */
    cancel(id: string): Promise<Refund>;
    list(query?: RefundListParams): ListPromise<Refund, ListPage<Refund>>;
  };
  balances: {
    retrieve(): Promise<{ data: Balance[] }>;
  };
  paymentLinks: {
    create(body: PaymentLinkCreateParams, options?: CreateOptions): Promise<PaymentLink>;
    retrieve(id: string): Promise<PaymentLink>;
    list(query?: PlainListParams): ListPromise<PaymentLink, ListPage<PaymentLink>>;
    /** From now on its `url` answers 410 and creates nothing; payments it made are kept. Deactivating an inactive link answers it as it is. */
    deactivate(id: string): Promise<PaymentLink>;
  };
  /** Subscriptions (docs/subscriptions.md): each period's payment is made by the service's background work. */
  subscriptions: {
    /** Creates it; the answer's `payerUrl` (the payer's secret page) is shown here and by `newPayerLink` only. */
    create(body: SubscriptionCreateParams, options?: CreateOptions): Promise<CreatedSubscription>;
    retrieve(id: string): Promise<Subscription>;
    list(query?: SubscriptionListParams): ListPromise<Subscription, ListPage<Subscription>>;
    /** Changes amount (from the next payment made), metadata, payerCanCancel, or takes back a cancellation at period end. */
    update(id: string, body: SubscriptionUpdateParams): Promise<Subscription>;
    /** Cancels now, or `{ atPeriodEnd: true }` at the end of the current period. */
    cancel(id: string, body?: SubscriptionCancelParams): Promise<Subscription>;
    /** A new secret link to the payer's page; the previous one stops working. */
    newPayerLink(id: string): Promise<CreatedSubscription>;
  };
  /** Where the merchant's events are sent, in the key's mode (docs/webhooks.md). */
  webhookEndpoints: {
    /** Registers a URL; the answer's `secret` (whsec_...) is shown here and on rotation only. */
    create(body: WebhookEndpointCreateParams, options?: CreateOptions): Promise<WebhookEndpoint & { secret: string }>;
    /** Every endpoint (one page: the list is never split). */
    list(): ListPromise<WebhookEndpoint, WebhookEndpointList>;
    retrieve(id: string): Promise<WebhookEndpoint>;
    /** A new `secret`; the old one keeps signing beside it for the router's `rotationOverlapMinutes`. */
    rotateSecret(id: string): Promise<WebhookEndpoint & { secret: string }>;
    /** Turns a disabled endpoint back on. */
    enable(id: string): Promise<WebhookEndpoint>;
    /** Stops deliveries to it; its pending deliveries fail now. */
    disable(id: string): Promise<WebhookEndpoint>;
    delete(id: string): Promise<DeletedWebhookEndpoint>;
    /** Queues a test event to this endpoint through the normal delivery path. */
    sendTest(id: string, body?: WebhookTestParams, options?: CreateOptions): Promise<WebhookDelivery>;
  };
  /** The delivery log: each event's delivery to each endpoint, with its attempts. */
  webhookDeliveries: {
    list(query?: WebhookDeliveryListParams): ListPromise<WebhookDelivery, ListPage<WebhookDelivery>>;
    retrieve(id: string): Promise<WebhookDelivery>;
    /** Queues the same body again under the same `webhook-id`. */
    redeliver(id: string, options?: CreateOptions): Promise<WebhookDelivery>;
  };
}

/** One /v1 call, as both carriers receive it. */
export interface V1Call {
  method: "GET" | "POST" | "DELETE";
  /** Path under /v1, with the id filled in: "/payments/inv_1". */
  path: string;
  /** The JSON body (POST) or the query (GET); empty for DELETE. */
  input: Record<string, unknown>;
  /** Set for creating POSTs only. */
  idempotencyKey?: string;
  /** Whether the route honours `Idempotency-Key` (every create). */
  creates: boolean;
}

/** Carries out one /v1 call: resolves with the answer's JSON, rejects with a `PaymentError`. */
export type V1Transport = (call: V1Call) => Promise<unknown>;

/** Collections, by resource name, under /v1. */
const COLLECTIONS = {
  payments: "/payments",
  withdrawals: "/withdrawals",
  conversions: "/conversions",
  refunds: "/refunds",
  paymentLinks: "/payment-links",
} as const;

/** Builds the resources over a transport. */
export function paymentResources(transport: V1Transport): PaymentResources {
  // An id is one path segment, whatever it holds: "../balances" must not name another route.
  const at = (path: string, id: string, action = "") => `${path}/${encodeURIComponent(id)}${action}`;
  const get = (path: string, input: object = {}) => transport({ method: "GET", path, input: { ...input }, creates: false });
  const post = (path: string, body: object = {}, creates = false, options: CreateOptions = {}) =>
    transport({ method: "POST", path, input: { ...body }, idempotencyKey: options.idempotencyKey, creates });
  const list = (path: string, query: { cursor?: string } = {}) =>
    listPromise<unknown, PageLike<unknown>>(
      (cursor) => get(path, cursor === undefined ? query : { ...query, cursor }) as Promise<PageLike<unknown>>,
      query.cursor,
    );
  const collection = (path: string) => ({
    create: (body: object, options?: CreateOptions) => post(path, body, true, options),
    retrieve: (id: string) => get(at(path, id)),
    list: (query?: { cursor?: string }) => list(path, query),
  });
  const built = Object.fromEntries(Object.entries(COLLECTIONS).map(([name, path]) => [name, collection(path)]));
  const endpoints = "/webhook-endpoints";
  const deliveries = "/webhook-deliveries";
  const subscriptionsPath = "/subscriptions";
  return {
    ...built,
    balances: { retrieve: () => get("/balances") },
    paymentLinks: {
      ...(built.paymentLinks as ReturnType<typeof collection>),
      deactivate: (id: string) => post(at(COLLECTIONS.paymentLinks, id, "/deactivate")),
    },
    refunds: { ...(built.refunds as ReturnType<typeof collection>), cancel: (id: string) => post(at(COLLECTIONS.refunds, id, "/cancel")) },
    webhookEndpoints: {
      ...collection(endpoints),
      create: async (body: object, options?: CreateOptions) => withSecret(await post(endpoints, body, true, options)),
      list: () => list(endpoints),
      rotateSecret: (id: string) => post(at(endpoints, id, "/rotate-secret")),
      enable: (id: string) => post(at(endpoints, id, "/enable")),
      disable: (id: string) => post(at(endpoints, id, "/disable")),
      delete: (id: string) => transport({ method: "DELETE", path: at(endpoints, id), input: {}, creates: false }),
      // Test events and redeliveries honour Idempotency-Key: a retried call queues one delivery.
      sendTest: (id: string, body?: object, options?: CreateOptions) => post(at(endpoints, id, "/test"), body, true, options),
    },
    subscriptions: {
      ...collection(subscriptionsPath),
      create: async (body: object, options?: CreateOptions) => withPayerLink(await post(subscriptionsPath, body, true, options)),
      update: (id: string, body: object) => post(at(subscriptionsPath, id), body),
      cancel: (id: string, body: object = {}) => post(at(subscriptionsPath, id, "/cancel"), body),
      newPayerLink: (id: string) => post(at(subscriptionsPath, id, "/payer-link")),
    },
    webhookDeliveries: {
      retrieve: (id: string) => get(at(deliveries, id)),
      list: (query?: { cursor?: string }) => list(deliveries, query),
      redeliver: (id: string, options?: CreateOptions) => post(at(deliveries, id, "/redeliver"), {}, true, options),
    },
  } as unknown as PaymentResources;
}

/**
 * A created subscription with its payer link. A replay of the create answers it without the link
 * (a secret, shown once): refused here, naming the way to a new link, as for an endpoint's secret.
 */
function withPayerLink(answer: unknown): unknown {
  const subscription = answer as { id: string; payerUrl?: string };
  if (typeof subscription.payerUrl === "string") return subscription;
  throw new IdempotencyError(
    "idempotency_conflict",
    `Subscription ${subscription.id} was created by an earlier request with this Idempotency-Key, and its payer link is shown only once: call subscriptions.newPayerLink("${subscription.id}") for a new one.`,
  );
}

/**
 * A created endpoint with its secret. A replay of the create (the same `Idempotency-Key`, or the
 * HTTP client's retry after a lost answer) answers the endpoint without it, since the secret is
 * shown once: that is refused here, naming the way to get a new one, so the answer's `secret`
 * is always there (`webhookHandler({ secret: endpoint.secret })` at boot).
 */
function withSecret(answer: unknown): unknown {
  const endpoint = answer as { id: string; secret?: string };
  if (typeof endpoint.secret === "string") return endpoint;
  throw new IdempotencyError(
    "idempotency_conflict",
    `Webhook endpoint ${endpoint.id} was created by an earlier request with this Idempotency-Key, and its secret is shown only once: call webhookEndpoints.rotateSecret("${endpoint.id}") for a new one.`,
  );
}
