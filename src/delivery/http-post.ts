import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import { asksToAbort } from "./delivery-policy";
import { pinnedLookup, type WebhookTarget } from "./url-guard";

/** What came back from one POST. */
export interface PostResult {
  statusCode: number;
  /** The Retry-After header, if any, as milliseconds from now. */
  retryAfterMs: number | null;
  /** The answer carried `webhook-delivery: abort-message` (Svix's way to stop a message's retries). */
  abortMessage: boolean;
}

/**
 * Connection pools of our own, one pair for checked requests and one for the rest. Pools key
 * connections by host and port only: had checked requests shared a pool with unchecked ones (a
 * router with `allowPrivateUrls` in the same process), a checked delivery could reuse a
 * connection whose address was never checked.
 */
const AGENTS = {
  checked: { http: new HttpAgent({ keepAlive: true }), https: new HttpsAgent({ keepAlive: true }) },
  unchecked: { http: new HttpAgent({ keepAlive: true }), https: new HttpsAgent({ keepAlive: true }) },
};

/** Largest response body read (and thrown away); more is cut off so a huge answer costs nothing. */
const MAX_RESPONSE_BYTES = 64 * 1024;

/** Parses Retry-After: delta seconds or an HTTP date. */
export function parseRetryAfter(value: string | undefined, now: number): number | null {
  if (!value) return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

/**
 * POSTs a body to one of `target`'s addresses (resolved and checked beforehand) and resolves
 * with the status once the response has been read (bounded), or rejects on network errors and
 * on `timeoutMs` for the whole exchange. Redirects are not followed: a webhook answer of 3xx is
 * a misconfigured endpoint, and following it could lead past the address checks.
 */
export function postWebhook(
  url: URL,
  body: string,
  headers: Record<string, string>,
  options: { timeoutMs: number; target: WebhookTarget; now: () => number; signal?: AbortSignal },
): Promise<PostResult> {
  const secure = url.protocol === "https:";
  const send = secure ? httpsRequest : httpRequest;
  const pool = options.target.checked ? AGENTS.checked : AGENTS.unchecked;
  return new Promise((resolve, reject) => {
    const request = send(
      url,
      {
        method: "POST",
        headers: { ...headers, "content-length": String(Buffer.byteLength(body)) },
        agent: secure ? pool.https : pool.http,
        signal: options.signal ? AbortSignal.any([AbortSignal.timeout(options.timeoutMs), options.signal]) : AbortSignal.timeout(options.timeoutMs),
        lookup: pinnedLookup(options.target),
      },
      (response: IncomingMessage) => {
        let read = 0;
        response.on("data", (chunk: Buffer) => {
          read += chunk.length;
          if (read > MAX_RESPONSE_BYTES) response.destroy();
        });
        const done = () =>
          resolve({
            statusCode: response.statusCode ?? 0,
            retryAfterMs: parseRetryAfter(response.headers["retry-after"], options.now()),
            abortMessage: asksToAbort(response.headers["webhook-delivery"]),
          });
        response.on("end", done);
        response.on("close", done); // also when cut off above: the status is what counts
        response.on("error", () => undefined);
      },
    );
    request.on("error", (error: Error) => {
      const timedOut = error.name === "AbortError" && !options.signal?.aborted;
      reject(timedOut ? new Error(`no answer within ${options.timeoutMs} ms`) : error);
    });
    request.end(body);
  });
}
