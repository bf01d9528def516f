import type { z } from "zod";
import type * as requests from "../schemas/v1";
import type * as resources from "../schemas/resources";
import type * as v1 from "../schemas/v1-resources";

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
/** One balance row (`/v1/balances`). */
export type Balance = z.output<typeof v1.balance>;
/** A reusable payment link (`/v1/payment-links`). */
export type PaymentLink = z.output<typeof v1.paymentLink>;

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

/** Options of one creating call. */
export interface CreateOptions {
  /**
   * The request's `Idempotency-Key`: the same key and body run once and replay the first
   * answer (or its error) for 24 hours. The HTTP client makes one per call when it is left out.
   */
  idempotencyKey?: string;
}

/** The /v1 operations, grouped as resources. */
export interface PaymentResources {
  payments: {
    create(body: PaymentCreateParams, options?: CreateOptions): Promise<Payment>;
    retrieve(id: string): Promise<Payment>;
    list(query?: PaymentListParams): Promise<ListPage<Payment>>;
  };
  withdrawals: {
    create(body: WithdrawalCreateParams, options?: CreateOptions): Promise<Withdrawal>;
    retrieve(id: string): Promise<Withdrawal>;
    list(query?: WithdrawalListParams): Promise<ListPage<Withdrawal>>;
  };
  conversions: {
    create(body: ConversionCreateParams, options?: CreateOptions): Promise<Conversion>;
    retrieve(id: string): Promise<Conversion>;
    list(query?: PlainListParams): Promise<ListPage<Conversion>>;
  };
  refunds: {
    create(body: RefundCreateParams, options?: CreateOptions): Promise<Refund>;
    retrieve(id: string): Promise<Refund>;
    list(query?: RefundListParams): Promise<ListPage<Refund>>;
  };
  balances: {
    retrieve(): Promise<{ data: Balance[] }>;
  };
  paymentLinks: {
    create(body: PaymentLinkCreateParams, options?: CreateOptions): Promise<PaymentLink>;
    retrieve(id: string): Promise<PaymentLink>;
    list(query?: PlainListParams): Promise<ListPage<PaymentLink>>;
  };
}

/** One /v1 call, as both carriers receive it. */
export interface V1Call {
  method: "GET" | "POST";
  /** Path under /v1, with the id filled in: "/payments/inv_1". */
  path: string;
  /** The JSON body (POST) or the query (GET). */
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
  const collection = (path: string) => ({
    create: (body: object, options: CreateOptions = {}) =>
      transport({ method: "POST", path, input: { ...body }, idempotencyKey: options.idempotencyKey, creates: true }),
    // An id is one path segment, whatever it holds: "../balances" must not name another route.
    retrieve: (id: string) => transport({ method: "GET", path: `${path}/${encodeURIComponent(id)}`, input: {}, creates: false }),
    list: (query: object = {}) => transport({ method: "GET", path, input: { ...query }, creates: false }),
  });
  const built = Object.fromEntries(Object.entries(COLLECTIONS).map(([name, path]) => [name, collection(path)]));
  return {
    ...built,
    balances: { retrieve: () => transport({ method: "GET", path: "/balances", input: {}, creates: false }) },
  } as unknown as PaymentResources;
}
