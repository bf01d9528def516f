import { isLosslessNumber, parse, type LosslessNumber } from "lossless-json";
import { z } from "zod";
import { networkReason, redact } from "../../rpc-errors";
import { PairNotListedError } from "./listed-pairs";
import { PriceSourceError } from "./types";

/**
 * One GET to a provider's JSON API, turned into a checked value or a `PriceSourceError` that
 * says why not: a timeout or an abort, a non-2xx status (429: rate limited, with Retry-After),
 * a body that is not JSON, JSON not of the documented shape. Bodies are parsed with
 * lossless-json so that a JSON number (CoinGecko's prices) reaches us as the text the provider
 * wrote: `JSON.parse` would turn 67187.33 into a double first.
 */

/** A JSON number as lossless-json reads it: `.value` is its text exactly as written. */
export const jsonNumber = z.custom<LosslessNumber>((value) => isLosslessNumber(value), { message: "expected a JSON number" });

// Price answers are a few kB (Coinbase's exchange-rates, the largest, about 15 kB): anything far
// bigger is not the documented answer, and is not read into memory.
const MAX_BODY_BYTES = 1024 * 1024;

/** One request of `getJson`. */
export interface JsonRequest<T> {
  /** The source's name, the prefix of every message. */
  source: string;
  /**
   * How messages name the request ("GET /v2/prices/BTC-USD/spot"). Never the full URL: a base
   * URL may carry credentials.
   */
  label: string;
  url: string;
  /** The caller's signal; the request also ends after `timeoutMs`. */
  signal: AbortSignal;
  timeoutMs: number;
  /** The documented shape of a 2xx answer. */
  schema: z.ZodType<T>;
  headers?: Record<string, string>;
  /** Strings no message may show (an API key a server might echo). */
  secrets?: readonly string[];
  /** Statuses that mean "slow down" besides 429 (Binance's 418: banned for ignoring 429s). */
  rateLimitStatuses?: readonly number[];
  /** A provider-specific explanation of a non-2xx answer, given its parsed body (or undefined). */
  explainStatus?: (status: number, body: unknown) => string | undefined;
  /**
   * Whether a non-2xx answer (its status and parsed body) is the provider saying it does not
   * list a pair named in the request: it is then thrown as a `PairNotListedError`.
   */
  notListed?: (status: number, body: unknown) => boolean;
}

/** GETs `request.url` and returns its body checked against `request.schema`. */
export async function getJson<T>(request: JsonRequest<T>): Promise<T> {
  const { source, label, signal, timeoutMs } = request;
  const secrets = request.secrets ?? [];
  const fail = (message: string) => new PriceSourceError(source, redact(`${label} ${message}`, secrets));
  if (signal.aborted) throw fail(`was not sent: aborted (${abortReason(signal.reason)})`);
  const timeout = AbortSignal.timeout(timeoutMs);
  const combined = AbortSignal.any([signal, timeout]);

  let response: Response;
  let text: string;
  try {
    // Redirects are not followed: fetch would resend our headers (an API key) to wherever the
    // Location points. A provider's API does not redirect; a redirect means a wrong baseUrl.
    response = await fetch(request.url, { headers: { accept: "application/json", ...request.headers }, signal: combined, redirect: "manual" });
    text = await readBody(response);
  } catch (error) {
    if (combined.aborted) {
      // AbortSignal.any keeps the reason of whichever signal fired first.
      if (combined.reason === timeout.reason) throw fail(`got no answer within ${timeoutMs} ms (timeoutMs)`);
      throw fail(`was aborted (${abortReason(signal.reason)})`);
    }
    if (error instanceof PriceSourceError) throw error;
    throw fail(`failed: ${networkReason(error)}`);
  }

  const status = `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ""}`;
  const body = parseLossless(text);
  if (response.status >= 300 && response.status < 400) {
    const location = response.headers.get("location");
    throw fail(`answered ${status}, a redirect${location ? ` to ${originOf(location, request.url)}` : ""}, which is not followed: check baseUrl`);
  }
  if (!response.ok) {
    const explained = request.explainStatus?.(response.status, body.ok ? body.value : undefined);
    const said = explained ?? describeBody(text);
    if (request.notListed?.(response.status, body.ok ? body.value : undefined)) {
      throw new PairNotListedError(source, redact(`${label} answered ${status}${said ? `: ${said}` : ""}`, secrets));
    }
    if (response.status === 429 || request.rateLimitStatuses?.includes(response.status)) {
      const retryAfter = response.headers.get("retry-after");
      const wait = retryAfter ? `, Retry-After: ${retryAfter.slice(0, 64)}` : "";
      throw fail(`was rate limited (${status}${wait})${said ? `: ${said}` : ""}`);
    }
    throw fail(`answered ${status}${said ? `: ${said}` : ""}`);
  }
  if (!body.ok) {
    const type = response.headers.get("content-type");
    throw fail(`answered ${status} with a body that is not JSON${type ? ` (${type.slice(0, 60)})` : ""}: ${describeBody(text) || "an empty body"}`);
  }
  return checkShape(source, label, request.schema, body.value, secrets);
}

/**
 * `value` checked against `schema`, or a `PriceSourceError` naming the first few places where
 * the answer is not of the documented shape.
 */
export function checkShape<T>(source: string, label: string, schema: z.ZodType<T>, value: unknown, secrets: readonly string[] = []): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issues = result.error.issues.slice(0, 3).map((issue) => `${issue.path.length ? issue.path.join(".") : "(the whole body)"}: ${issue.message}`);
  const more = result.error.issues.length > 3 ? ` (and ${result.error.issues.length - 3} more)` : "";
  throw new PriceSourceError(source, redact(`${label} answered JSON that is not the documented shape: ${issues.join("; ")}${more}`, secrets));
}

/**
 * A signal for several requests of one refresh: aborted when `signal` is, or when `abort()` is
 * called because one of them failed and the others' answers are no longer needed.
 */
export function requestGroup(signal: AbortSignal): { signal: AbortSignal; abort: () => void } {
  const controller = new AbortController();
  return { signal: AbortSignal.any([signal, controller.signal]), abort: () => controller.abort(new Error("another request of the same refresh failed")) };
}

function parseLossless(text: string): { ok: true; value: unknown } | { ok: false } {
  if (!text.trim()) return { ok: false };
  try {
    return { ok: true, value: parse(text) };
  } catch {
    return { ok: false };
  }
}

async function readBody(response: Response): Promise<string> {
  const declared = Number(response.headers.get("content-length"));
  if (declared > MAX_BODY_BYTES) {
    await response.body?.cancel();
    throw new Error(`a body of ${declared} bytes, more than the ${MAX_BODY_BYTES} a price answer can take`);
  }
  if (!response.body) return "";
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_BODY_BYTES) {
      await reader.cancel();
      throw new Error(`a body of more than ${MAX_BODY_BYTES} bytes, more than a price answer can take`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** The start of a body, on one line, for a message: enough to recognise an error page. */
function describeBody(text: string): string {
  const line = text.replace(/\s+/g, " ").trim();
  if (!line) return "";
  return JSON.stringify(line.length > 160 ? `${line.slice(0, 160)}...` : line);
}

/**
 * Why a caller's signal was aborted, for a message: an Error's message (or name, when it has
 * none), else the reason as text. Shared by every source that honours a caller's signal (the
 * HTTP ones here, chainlink over JSON-RPC) so an abort reads the same from all of them.
 */
export function abortReason(reason: unknown): string {
  if (reason instanceof Error) return reason.message || reason.name;
  return reason === undefined ? "no reason given" : String(reason);
}

/** Where a redirect points, origin only: its path or query could carry anything. */
function originOf(location: string, base: string): string {
  try {
    return new URL(location, base).origin;
  } catch {
    return "an unreadable Location";
  }
}
