/**
 * The package's errors. Every failure that reaches a client (an API response, or the answer of
 * `webhookHandler`) carries a code from the one table below, rendered as the error object
 * `{ error, message }` where `error = HTTP status x 100 + n` (the codes are listed in
 * docs/errors.md). Codes are unique across the whole table, whichever side answers with them.
 */

/** One entry of the table: the HTTP status answered and the `error` integer of the body. */
export interface ErrorCodeEntry {
  readonly status: number;
  readonly code: number;
}

/**
 * Every error code of the package, by name. The service's own failures, then the receiver's
 * (`webhookHandler` and `verifyWebhook`): `request_timeout` and `payload_too_large` are shared
 * by both sides, since they mean the same thing wherever a body is read.
 */
export const ERROR_CODES = {
  validation_error: { status: 400, code: 40001 },
  amount_below_minimum: { status: 400, code: 40002 },
  invalid_address: { status: 400, code: 40003 },
  malformed_json: { status: 400, code: 40004 },
  unsupported_currency: { status: 400, code: 40005 },
  token_contract_destination: { status: 400, code: 40006 },
  missing_header: { status: 400, code: 40011 },
  malformed_header: { status: 400, code: 40012 },
  invalid_json: { status: 400, code: 40013 },
  invalid_event: { status: 400, code: 40014 },
  unreadable_body: { status: 400, code: 40015 },
  invalid_api_key: { status: 401, code: 40101 },
  approval_by_requester: { status: 403, code: 40301 },
  no_matching_signature: { status: 401, code: 40111 },
  stale: { status: 401, code: 40112 },
  future: { status: 401, code: 40113 },
  not_found: { status: 404, code: 40401 },
  route_not_found: { status: 404, code: 40402 },
  method_not_allowed: { status: 405, code: 40501 },
  request_timeout: { status: 408, code: 40801 },
  idempotency_conflict: { status: 409, code: 40901 },
  invalid_state: { status: 409, code: 40902 },
  in_progress: { status: 409, code: 40911 },
  subscription_cancelled: { status: 409, code: 40931 },
  // Refund claim links
  refund_claimed: { status: 409, code: 40921 },
  refund_claim_closed: { status: 409, code: 40922 },
  payload_too_large: { status: 413, code: 41301 },
  unsupported_media_type: { status: 415, code: 41501 },
  insufficient_balance: { status: 422, code: 42201 },
  balance_in_deficit: { status: 422, code: 42202 },
  hot_wallet_insufficient: { status: 422, code: 42203 },
  destination_not_allowed: { status: 422, code: 42204 },
  payer_cancel_not_allowed: { status: 422, code: 42221 },
  // Refund claim links
  claim_over_refundable: { status: 422, code: 42211 },
  rate_limited: { status: 429, code: 42901 },
  internal_error: { status: 500, code: 50001 },
  handler_failed: { status: 500, code: 50011 },
  body_already_parsed: { status: 500, code: 50012 },
  dedupe_unavailable: { status: 500, code: 50013 },
  storage_feature_unavailable: { status: 501, code: 50101 },
  chain_unavailable: { status: 503, code: 50301 },
  pricing_unavailable: { status: 503, code: 50302 },
  service_closing: { status: 503, code: 50321 },
  connection_failed: { status: 503, code: 50311 },
} as const satisfies Record<string, ErrorCodeEntry>;

/** The name of one entry of {@link ERROR_CODES}. */
export type ErrorCodeName = keyof typeof ERROR_CODES;

/** The entries of `names`, as a table of their own (each side's view of the one table). */
function codesOf<const K extends ErrorCodeName>(names: readonly K[]): { readonly [P in K]: (typeof ERROR_CODES)[P] } {
  return Object.fromEntries(names.map((name) => [name, ERROR_CODES[name]])) as { readonly [P in K]: (typeof ERROR_CODES)[P] };
}

/** The service's catalogue: one entry per kind of failure an API client can see. */
export const ERROR_CATALOGUE = codesOf([
  "validation_error",
  "amount_below_minimum",
  "invalid_address",
  "malformed_json",
  "unsupported_currency",
  "token_contract_destination",
  "invalid_api_key",
  "approval_by_requester",
  "not_found",
  "route_not_found",
  "method_not_allowed",
  "request_timeout",
  "idempotency_conflict",
  "invalid_state",
  "payload_too_large",
  "unsupported_media_type",
  "insufficient_balance",
  "balance_in_deficit",
  "hot_wallet_insufficient",
  "destination_not_allowed",
  "subscription_cancelled",
  "payer_cancel_not_allowed",
  "refund_claimed",
  "refund_claim_closed",
  "claim_over_refundable",
  "rate_limited",
  "internal_error",
  "storage_feature_unavailable",
  "chain_unavailable",
  "pricing_unavailable",
  "service_closing",
]);

/** The name of one entry of the service's catalogue, e.g. `"insufficient_balance"`. */
export type PaymentErrorType = keyof typeof ERROR_CATALOGUE;

/**
 * The client's own failure: no answer came from the service (a network error, a timeout).
 * Never answered by the router; `ConnectionError` carries it, so every error of
 * `createPaymentClient` has a `code`.
 */
export const CLIENT_CODES = codesOf(["connection_failed"]);

/** The name of one entry of {@link CLIENT_CODES}. */
export type ClientErrorType = keyof typeof CLIENT_CODES;

/** The error object `{ error, message }` that every error response carries (docs/errors.md). */
export interface ErrorBody {
  error: number;
  message: string;
}

/**
 * The base of every error that is answered to someone: an entry of {@link ERROR_CODES}, and a
 * message written for the developer who reads the answer.
 */
export abstract class CodedError extends Error {
  /** HTTP status it is answered with. */
  readonly status: number;
  /** The `error` integer of the response body. */
  readonly code: number;

  constructor(entry: ErrorCodeEntry, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.status = entry.status;
    this.code = entry.code;
  }

  /** The response body: the error object `{ error, message }`. */
  toJSON(): ErrorBody {
    return { error: this.code, message: this.message };
  }
}

/**
 * A failure with a place in the service's catalogue. Core code throws these; the HTTP shell
 * turns them into responses. `message` is written for the merchant developer reading the
 * response, so it says what was wrong and, where there is one, what to do instead.
 */
export class PaymentError extends CodedError {
  override name = "PaymentError";
  /** Catalogue name of the failure (`connection_failed` for a call that got no answer). */
  readonly type: PaymentErrorType | ClientErrorType;

  constructor(type: PaymentErrorType | ClientErrorType, message: string, options?: { cause?: unknown }) {
    super(ERROR_CODES[type], message, options);
    this.type = type;
  }

  /**
   * The error an error object stands for (a stored answer replayed, or a response read by a
   * client); null when `body` is not one of the catalogue's.
   */
  static fromBody(body: unknown): PaymentError | null {
    if (typeof body !== "object" || body === null) return null;
    const { error, message } = body as Partial<ErrorBody>;
    if (typeof message !== "string") return null;
    const type = (Object.keys(ERROR_CATALOGUE) as PaymentErrorType[]).find((name) => ERROR_CATALOGUE[name].code === error);
    return type === undefined ? null : new PaymentError(type, message);
  }
}

/** Shorthand for the most common failure: an id that this merchant and mode cannot see. */
export function notFound(what: string, id: string): PaymentError {
  return new PaymentError("not_found", `No ${what} with id "${id}" exists for this API key.`);
}

/**
 * Which rule a webhook delivery broke. Each has its own HTTP status and `error` code, so a
 * sender's delivery log tells the merchant which one without access to the receiver's logs.
 */
export type WebhookVerificationReason = "missing_header" | "malformed_header" | "stale" | "future" | "no_matching_signature" | "invalid_json" | "invalid_event";

/**
 * The receiver's verification failures: 400 for a request that is broken whoever sent it, 401
 * for one that is not proven to come from the holder of the secret at this time.
 */
export const WEBHOOK_VERIFICATION_CODES = codesOf([
  "missing_header",
  "malformed_header",
  "invalid_json",
  "invalid_event",
  "no_matching_signature",
  "stale",
  "future",
]) satisfies Record<WebhookVerificationReason, ErrorCodeEntry>;

/** `webhookHandler`'s answers that are not verification failures (those are in WEBHOOK_VERIFICATION_CODES). */
export const WEBHOOK_HANDLER_CODES = codesOf([
  "unreadable_body",
  "request_timeout",
  "in_progress",
  "payload_too_large",
  "handler_failed",
  "body_already_parsed",
  "dedupe_unavailable",
]);

/**
 * A delivery that failed verification. `reason` says which rule failed; `message` says what
 * was seen and the likely cause, never the expected signature.
 */
export class WebhookVerificationError extends CodedError {
  override name = "WebhookVerificationError";
  /** The rule that failed. */
  readonly reason: WebhookVerificationReason;

  constructor(reason: WebhookVerificationReason, message: string, options?: { cause?: unknown }) {
    super(WEBHOOK_VERIFICATION_CODES[reason], message, options);
    this.reason = reason;
  }
}

/**
 * An error from a node or price source already made safe: its message is labelled and
 * scrubbed of secrets, and it has no `cause`. The class is what lets an error pass through
 * several layers that each scrub what they throw (a node call inside a poll inside the
 * background loop) and still read "ETH node: ..." once, not "ETH node: ETH node: ...". Throw
 * one directly for a failure found here rather than reported by the node (a node on the wrong
 * chain), with the label already in its message and nothing secret in it. Its `name` stays
 * "Error", as it always was: logs and `String(error)` read the same.
 */
export class NodeError extends Error {}
