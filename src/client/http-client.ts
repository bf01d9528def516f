import { randomUUID } from "node:crypto";
import { refuseUnknownOptions } from "../options-error";
import pRetry, { AbortError } from "p-retry";
import { PaymentError } from "../errors";
import { classifyApiError, ConnectionError, retryAfterSeconds } from "../api-errors";
import { paymentResources, type PaymentResources, type V1Call } from "./resources";

/** Options of `createPaymentClient`. */
export interface PaymentClientOptions {
  /** Where the payment router is mounted, e.g. "https://pay.example.com" or "https://shop.example/payments"; the client adds /v1. */
  baseUrl: string;
  /** A secret API key (`sk_test_...` or `sk_live_...`): the mode is the key's. */
  apiKey: string;
  /** Retries of a call after a network error, a timeout or a 5xx (never after a 4xx). Default 2. */
  retries?: number;
  /** Each attempt's time limit, in ms. Default 30000. */
  timeoutMs?: number;
  /** The fetch to use. Default: the global one. */
  fetch?: typeof fetch;
}

/** An answer worth another attempt: a 5xx, carrying its error object if it had one. */
class ServerError extends Error {
  constructor(readonly error: PaymentError) {
    super(error.message);
  }
}

/**
 * A typed client of the /v1 API for an order system in another process: the same resources as
 * the router's in-process `forMerchant` (`payments.create`, `withdrawals.create`, ...), over
 * fetch. Every creating call carries an `Idempotency-Key` (yours, or one made for the call) that
 * its retries reuse, so a retry after a lost answer can never create twice. Retries (p-retry,
 * exponential backoff) follow network errors, timeouts and 5xx answers only. API errors reject
 * as a `PaymentError` subclass with the answer's `error` code (`AuthenticationError`,
 * `InvalidRequestError`, `IdempotencyError`, `RateLimitError`, `UnavailableError`), and a call
 * that got no answer as `ConnectionError`.
 */
export function createPaymentClient(options: PaymentClientOptions): PaymentResources {
  if (typeof options !== "object" || options === null) throw new TypeError("createPaymentClient: pass an options object: { baseUrl, apiKey }");
  refuseUnknownOptions("createPaymentClient", options, ["baseUrl", "apiKey", "retries", "timeoutMs", "fetch"]);
  const base = new URL(options.baseUrl);
  if (base.protocol !== "https:" && base.protocol !== "http:") throw new TypeError("createPaymentClient: baseUrl must be an http(s) URL");
  if (!options.apiKey) throw new TypeError("createPaymentClient: apiKey is required");
  const root = `${base.origin}${base.pathname.replace(/\/+$/, "")}/v1`;
  const send = options.fetch ?? fetch;
  const timeoutMs = options.timeoutMs ?? 30_000;

  const attempt = async (call: V1Call, key: string | undefined): Promise<unknown> => {
    const headers: Record<string, string> = { Authorization: `Bearer ${options.apiKey}`, Accept: "application/json" };
    let url = `${root}${call.path}`;
    let body: string | undefined;
    if (call.method === "POST") {
      headers["Content-Type"] = "application/json";
      body = JSON.stringify(call.input);
      if (key !== undefined) headers["Idempotency-Key"] = key;
    } else if (call.method === "GET") {
      const query = new URLSearchParams();
      for (const [name, value] of Object.entries(call.input)) if (value !== undefined) query.set(name, String(value));
      if (query.size > 0) url += `?${query}`;
    }
    let response: Response;
    let text: string;
    try {
      response = await send(url, { method: call.method, headers, body, signal: AbortSignal.timeout(timeoutMs), redirect: "error" });
      text = await response.text();
    } catch (cause) {
      // Retried like a 5xx; the last one is what the caller gets. The message names the URL
      // called (never the key) and what went wrong on the way.
      const why = cause instanceof Error && cause.name === "TimeoutError" ? `no answer within ${timeoutMs} ms` : describe(cause);
      throw new ConnectionError(`No answer from the payment API (${call.method} ${root}${call.path}): ${why}.`, { cause });
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    if (response.ok && json !== undefined) return json;
    const read = PaymentError.fromBody(json) ?? new PaymentError("internal_error", `The payment API answered ${response.status} without an error object.`);
    const error = classifyApiError(read, retryAfterSeconds(response.headers.get("retry-after")));
    if (response.status >= 500 || json === undefined) throw new ServerError(error);
    throw new AbortError(error);
  };

  return paymentResources(async (call) => {
    // One key for every attempt of this call: the retry of a create whose answer was lost
    // replays it instead of creating a second.
    const key = call.creates ? (call.idempotencyKey ?? randomUUID()) : undefined;
    try {
      return await pRetry(() => attempt(call, key), { retries: options.retries ?? 2, minTimeout: 200, factor: 2, randomize: true });
    } catch (error) {
      throw error instanceof ServerError ? error.error : error;
    }
  });
}

/** What a failed fetch says, with its cause's code when it has one ("fetch failed: ECONNREFUSED"). */
function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error.cause as { code?: unknown } | undefined)?.code;
  return typeof code === "string" ? `${error.message} (${code})` : error.message;
}
