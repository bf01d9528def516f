import { PaymentError } from "./errors";

/**
 * The errors a caller of the /v1 API can tell apart with `instanceof`, all `PaymentError`s
 * that keep the API's `type`, `status` and numeric `code`. The HTTP client
 * (`createPaymentClient`) and the in-process API (`router.forMerchant`) throw the same classes
 * for the same answers. A 500 (`internal_error`) stays a plain `PaymentError`: it names a bug,
 * not something the caller can act on. Lives at the top of src/ because both the HTTP shell
 * and the client build them.
 */

/** 401: the API key is missing, unknown or revoked (40101); for `forMerchant`, an unknown merchant. */
export class AuthenticationError extends PaymentError {
  override name = "AuthenticationError";
}

/**
 * The request was refused as it stands, and sending it again unchanged gets the same answer:
 * every 4xx except 401, 409 `idempotency_conflict` and 429 (400 validation, 403 approval by the
 * requester, 404 unknown id or route, 405, 408, 409 `invalid_state`, 413, 415, 422 balance and
 * hot wallet refusals). `type` says which.
 */
export class InvalidRequestError extends PaymentError {
  override name = "InvalidRequestError";
}

/**
 * 409 `idempotency_conflict` (40901): the `Idempotency-Key` was used with another request, or
 * its first request is still running (retry in a moment with the same key).
 */
export class IdempotencyError extends PaymentError {
  override name = "IdempotencyError";
}

/** 429 (42901): too many requests; `retryAfter` is the answer's `Retry-After`, in seconds, when it had one. */
export class RateLimitError extends PaymentError {
  override name = "RateLimitError";
  /** Seconds to wait before trying again, from the `Retry-After` header; null without one. */
  readonly retryAfter: number | null;

  constructor(message: string, retryAfter: number | null, options?: { cause?: unknown }) {
    super("rate_limited", message, options);
    this.retryAfter = retryAfter;
  }
}

/** 503: a chain or the prices are unavailable right now (50301, 50302), or the service is shutting down (50321); worth retrying later. */
export class UnavailableError extends PaymentError {
  override name = "UnavailableError";
}

/**
 * No answer came from the service: a network error, a refused connection or a timeout, after
 * the client's retries (`code` 50311, `type` "connection_failed"). `cause` holds the last
 * network error. A create may or may not have run: retry it with the same `idempotencyKey`.
 */
export class ConnectionError extends PaymentError {
  override name = "ConnectionError";

  constructor(message: string, options?: { cause?: unknown }) {
    super("connection_failed", message, options);
  }
}

/**
 * The class of `error` for its place in the catalogue: the same error (message, type, code) as
 * an instance of the class a `catch` tests for. An error already of a subclass is returned as
 * it is. `retryAfter` is the `Retry-After` of a 429, in seconds.
 */
export function classifyApiError(error: PaymentError, retryAfter: number | null = null): PaymentError {
  if (error.constructor !== PaymentError) return error;
  const options = error.cause === undefined ? undefined : { cause: error.cause };
  if (error.type === "rate_limited") return new RateLimitError(error.message, retryAfter, options);
  if (error.type === "idempotency_conflict") return new IdempotencyError(error.type, error.message, options);
  if (error.type === "connection_failed") return new ConnectionError(error.message, options);
  if (error.status === 401) return new AuthenticationError(error.type, error.message, options);
  if (error.status === 503) return new UnavailableError(error.type, error.message, options);
  if (error.status >= 400 && error.status < 500) return new InvalidRequestError(error.type, error.message, options);
  return error;
}

/** A `Retry-After` header (delay seconds or an HTTP date) as whole seconds from `now`; null when absent or unreadable. */
export function retryAfterSeconds(header: string | null, now: number = Date.now()): number | null {
  if (header === null) return null;
  const trimmed = header.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - now) / 1000));
}
