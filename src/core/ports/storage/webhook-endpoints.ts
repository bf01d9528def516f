import type { WebhookEndpointRecord } from "../../webhooks/records";
import type { Scope } from "./scope";

/** Reads of webhook endpoints (where a merchant wants its events sent), each confined to its `Scope`. */
export interface WebhookEndpointReads {
  /** The webhook endpoint with this id in `scope`, or null. */
  getWebhookEndpoint(scope: Scope, id: string): Promise<WebhookEndpointRecord | null>;
  /** Every webhook endpoint of `scope` (enabled and disabled), oldest first by (createdAt, id). */
  listWebhookEndpoints(scope: Scope): Promise<WebhookEndpointRecord[]>;
}

/**
 * Webhook endpoints, as a transaction sees them: the id is unique, and an endpoint changes
 * under `lockWebhookEndpoint`. Deleting an endpoint leaves its deliveries in the log
 * (`WebhookOutboxStore`); settling its pending ones is a separate call.
 */
export interface WebhookEndpointStore extends WebhookEndpointReads {
  /** Stores a new webhook endpoint. Throws if the id exists. */
  insertWebhookEndpoint(endpoint: WebhookEndpointRecord): Promise<void>;
  /** Locks and returns the webhook endpoint with this id (any merchant), or null. */
  lockWebhookEndpoint(id: string): Promise<WebhookEndpointRecord | null>;
  /** Replaces the stored endpoint with the same id (which must exist: throws otherwise). */
  updateWebhookEndpoint(endpoint: WebhookEndpointRecord): Promise<void>;
  /** Deletes an endpoint (its deliveries stay in the log); false when there was none. */
  deleteWebhookEndpoint(id: string): Promise<boolean>;
}
