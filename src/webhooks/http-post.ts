import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import type { LookupFunction } from "node:net";

/** What came back from one POST. */
export interface PostResult {
  statusCode: number;
  /** The Retry-After header, if any, as milliseconds from now. */
  retryAfterMs: number | null;
}

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
 * POSTs a body and resolves with the status once the response has been read (bounded), or
 * rejects on network errors and on `timeoutMs` for the whole exchange. Redirects are not
 * followed: a webhook answer of 3xx is a misconfigured endpoint, and following it could lead
 * past the address checks.
 */
export function postWebhook(
  url: URL,
  body: string,
  headers: Record<string, string>,
  options: { timeoutMs: number; lookup?: LookupFunction; now: () => number },
): Promise<PostResult> {
  const send = url.protocol === "https:" ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const request = send(
      url,
      {
        method: "POST",
        headers: { ...headers, "content-length": String(Buffer.byteLength(body)) },
        signal: AbortSignal.timeout(options.timeoutMs),
        ...(options.lookup ? { lookup: options.lookup } : {}),
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
          });
        response.on("end", done);
        response.on("close", done); // also when cut off above: the status is what counts
        response.on("error", () => undefined);
      },
    );
    request.on("error", (error: Error) => {
      reject(error.name === "AbortError" ? new Error(`no answer within ${options.timeoutMs} ms`) : error);
    });
    request.end(body);
  });
}
