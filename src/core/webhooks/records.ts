/**
 * Events, webhook endpoints, deliveries and attempts, and the list of every event type.
 * Amounts are bigint smallest units of the record's asset; times are epoch milliseconds.
 * Storage adapters persist these shapes as they are.
 */
import { PAYMENT_EVENT_TYPES } from "../invoices/records";
import { PAYOUT_EVENT_TYPES } from "../payouts/records";
import { REFUND_EVENT_TYPES } from "../refunds/records";
import { CONVERSION_EVENT_TYPES } from "../exchanges/records";
import { SUBSCRIPTION_EVENT_TYPES } from "../subscriptions/records";
import type { Mode } from "../merchants/records";

/** Every event type the service sends: payments, withdrawals, refunds, conversions and subscriptions. */
export const EVENT_TYPES = [
  ...PAYMENT_EVENT_TYPES,
  ...PAYOUT_EVENT_TYPES,
  ...REFUND_EVENT_TYPES,
  ...CONVERSION_EVENT_TYPES,
  ...SUBSCRIPTION_EVENT_TYPES,
] as const;

/** One event type. */
export type EventType = (typeof EVENT_TYPES)[number];

/** An event recorded in the same unit of work as the state change that caused it. */
export interface EventRecord {
  id: string;
  merchantId: string;
  mode: Mode;
  type: EventType;
  /**
   * The resource the event is about: the invoice of a payment event, the payout of a withdrawal
   * or refund event, the exchange of a conversion event.
   */
  invoiceId: string;
  /** The resource as it was right after the change, in its /v1 shape (payment, withdrawal, refund, conversion). */
  data: Record<string, unknown>;
  createdAt: number;
}

/** One secret of a webhook endpoint; during a rotation the old one signs until `expiresAt`. */
export interface WebhookSecretRecord {
  /** `whsec_` + base64. Kept in plaintext because signing needs it (unlike API keys). */
  secret: string;
  createdAt: number;
  /** Null for the current secret; for a rotated-out one, when it stops signing. */
  expiresAt: number | null;
}

/** Where a merchant receives events, in one mode. */
export interface WebhookEndpointRecord {
  id: string;
  merchantId: string;
  mode: Mode;
  url: string;
  /** Event types it receives; null for all. */
  events: EventType[] | null;
  secrets: WebhookSecretRecord[];
  /** Disabled endpoints get no new deliveries (a 410 answer disables one). */
  status: "enabled" | "disabled";
  disabledReason: string | null;
  createdAt: number;
  updatedAt: number;
}

/** Delivery states: pending until it succeeds or the retry schedule runs out. */
export type WebhookDeliveryStatus = "pending" | "succeeded" | "failed";

/** One event on its way to one endpoint; its id is the `webhook-id`, stable across retries. */
export interface WebhookDeliveryRecord {
  id: string;
  merchantId: string;
  mode: Mode;
  endpointId: string;
  eventId: string;
  eventType: string;
  /** The exact body sent on every attempt. */
  payload: string;
  status: WebhookDeliveryStatus;
  attempts: number;
  /** When the next attempt is due (null once settled). */
  nextAttemptAt: number | null;
  /** A worker holds the delivery until then; another may claim it after. */
  leaseUntil: number | null;
  lastStatusCode: number | null;
  lastError: string | null;
  createdAt: number;
  updatedAt: number;
}

/** One HTTP attempt of a delivery, for the delivery log. */
export interface WebhookAttemptRecord {
  id: string;
  deliveryId: string;
  at: number;
  /** The endpoint's HTTP status, or null when no response came (network error, timeout). */
  statusCode: number | null;
  durationMs: number;
  error: string | null;
}
