import type { ErrorBody } from "../errors";

/**
 * Which rule a delivery broke. Each has its own HTTP status and `error` code, so a sender's
 * delivery log tells the merchant which one without access to the receiver's logs.
 */
export type WebhookVerificationReason =
  | "missing_header"
  | "malformed_header"
  | "stale"
  | "future"
  | "no_matching_signature"
  | "invalid_json"
  | "invalid_event";

/**
 * Status and `error` code (HTTP status x 100 + n, like the service's own catalogue) of each
 * reason. 400 for a request that is broken whoever sent it, 401 for one that is not proven to
 * come from the holder of the secret at this time.
 */
export const WEBHOOK_VERIFICATION_CODES = {
  missing_header: { status: 400, code: 40011 },
  malformed_header: { status: 400, code: 40012 },
  invalid_json: { status: 400, code: 40013 },
  invalid_event: { status: 400, code: 40014 },
  no_matching_signature: { status: 401, code: 40111 },
  stale: { status: 401, code: 40112 },
  future: { status: 401, code: 40113 },
} as const satisfies Record<WebhookVerificationReason, { status: number; code: number }>;

/**
 * A delivery that failed verification. `reason` says which rule failed; `message` says what
 * was seen and the likely cause, never the expected signature.
 */
export class WebhookVerificationError extends Error {
  override name = "WebhookVerificationError";
  /** The rule that failed. */
  readonly reason: WebhookVerificationReason;
  /** HTTP status webhookHandler answers with. */
  readonly status: number;
  /** The `error` integer of the response body. */
  readonly code: number;

  constructor(reason: WebhookVerificationReason, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.reason = reason;
    this.status = WEBHOOK_VERIFICATION_CODES[reason].status;
    this.code = WEBHOOK_VERIFICATION_CODES[reason].code;
  }

  /** The response body: `{ error, message }`, as every error of this package. */
  toJSON(): ErrorBody {
    return { error: this.code, message: this.message };
  }
}
