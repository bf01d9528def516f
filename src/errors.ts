/**
 * One error hierarchy for the whole service. Every failure that reaches a client is a
 * `PaymentError`, rendered as the spec's `{ error, message }` object where
 * `error = HTTP status x 100 + n` from the catalogue below (documented in docs/errors.md).
 */

/** The error catalogue: one entry per kind of failure a client can see. */
export const ERROR_CATALOGUE = {
  validation_error: { status: 400, code: 40001 },
  amount_below_minimum: { status: 400, code: 40002 },
  invalid_address: { status: 400, code: 40003 },
  malformed_json: { status: 400, code: 40004 },
  unsupported_currency: { status: 400, code: 40005 },
  invalid_api_key: { status: 401, code: 40101 },
  not_found: { status: 404, code: 40401 },
  route_not_found: { status: 404, code: 40402 },
  method_not_allowed: { status: 405, code: 40501 },
  request_timeout: { status: 408, code: 40801 },
  idempotency_conflict: { status: 409, code: 40901 },
  invalid_state: { status: 409, code: 40902 },
  payload_too_large: { status: 413, code: 41301 },
  unsupported_media_type: { status: 415, code: 41501 },
  insufficient_balance: { status: 422, code: 42201 },
  balance_in_deficit: { status: 422, code: 42202 },
  rate_limited: { status: 429, code: 42901 },
  internal_error: { status: 500, code: 50001 },
  chain_unavailable: { status: 503, code: 50301 },
  pricing_unavailable: { status: 503, code: 50302 },
} as const satisfies Record<string, { status: number; code: number }>;

/** The name of one catalogue entry, e.g. `"insufficient_balance"`. */
export type PaymentErrorType = keyof typeof ERROR_CATALOGUE;

/** The error object `{ error, message }` that every error response carries (docs/errors.md). */
export interface ErrorBody {
  error: number;
  message: string;
}

/**
 * A failure with a place in the catalogue. Core code throws these; the HTTP shell turns them
 * into responses. `message` is written for the merchant developer reading the response, so it
 * says what was wrong and, where there is one, what to do instead.
 */
export class PaymentError extends Error {
  override name = "PaymentError";
  /** Catalogue name of the failure. */
  readonly type: PaymentErrorType;
  /** HTTP status it is answered with. */
  readonly status: number;
  /** The `error` integer of the response body. */
  readonly code: number;

  constructor(type: PaymentErrorType, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.type = type;
    this.status = ERROR_CATALOGUE[type].status;
    this.code = ERROR_CATALOGUE[type].code;
  }

  /** The response body: the error object. */
  toJSON(): ErrorBody {
    return { error: this.code, message: this.message };
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
