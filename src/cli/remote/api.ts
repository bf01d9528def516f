import { randomUUID } from "node:crypto";
import type { CommandInput, Flags } from "../command";
import { stringFlag } from "../command";
import { UsageError } from "../errors";

/** The environment variable naming the service when `--url` is not given. */
export const URL_ENV = "EXPRESS_CRYPTO_PAY_URL";
/** The environment variable holding the API key when `--api-key` is not given. */
export const KEY_ENV = "EXPRESS_CRYPTO_PAY_API_KEY";

/** The flags every command that talks to a running service takes. */
export const REMOTE_FLAGS: Flags = { url: { type: "string" }, "api-key": { type: "string" } };

/** Where the service is and the key to use, from the flags or the environment. */
export interface RemoteTarget {
  /** Where the payment router is mounted, without a trailing slash: the CLI adds /v1 and /api/v1. */
  baseUrl: string;
  apiKey: string;
}

/**
 * The service and key of a command, checked before anything is sent: an http(s) URL, and a
 * test key. A live key is refused: these commands create payments and drive the sandbox, and
 * `listen` would copy live events to a developer's machine.
 */
export function remoteTarget(values: CommandInput["values"], command: string): RemoteTarget {
  const url = stringFlag(values, "url") ?? process.env[URL_ENV];
  if (!url) throw new UsageError(`no service: pass --url <where the router is mounted> or set ${URL_ENV}`, command);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UsageError(`--url ${JSON.stringify(url)} is not a URL (for example http://localhost:3000/payments)`, command);
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") throw new UsageError("--url must be an http or https URL", command);
  const apiKey = stringFlag(values, "api-key") ?? process.env[KEY_ENV];
  if (!apiKey) throw new UsageError(`no API key: pass --api-key sk_test_... or set ${KEY_ENV}`, command);
  if (apiKey.startsWith("sk_live_")) {
    throw new UsageError(`${command} works with test keys only (sk_test_...): a live key moves real money and carries real customers' events`, command);
  }
  if (!apiKey.startsWith("sk_test_")) throw new UsageError("the API key must be a test key, sk_test_ followed by its letters and digits", command);
  return { baseUrl: `${parsed.origin}${parsed.pathname.replace(/\/+$/, "")}`, apiKey };
}

/** A refusal of the service: its status, its catalogue code and message. */
export class RemoteError extends Error {
  override readonly name = "RemoteError";

  constructor(
    message: string,
    readonly status: number,
    readonly code: number | null,
  ) {
    super(message);
  }
}

/** The service could not be reached (refused, reset, timed out). */
export class UnreachableError extends Error {
  override readonly name = "UnreachableError";
}

/** JSON as the service answers it. */
// biome-ignore lint/suspicious/noExplicitAny: answers are read field by field, as documented in docs/api-v1.md.
export type Json = any;

/**
 * A small client of the service's HTTP API for the development commands: GET and POST under the
 * mount point with the key, JSON in and out, every POST with an Idempotency-Key where the route
 * honours one. No retries: each step of these commands is shown, and a failure stops them.
 */
export class RemoteApi {
  constructor(
    readonly target: RemoteTarget,
    private readonly timeoutMs = 30_000,
  ) {}

  /** GET `path` (under the mount point: "/v1/events") with a query. */
  get(path: string, query: Record<string, string | number | undefined> = {}): Promise<Json> {
    const search = new URLSearchParams();
    for (const [name, value] of Object.entries(query)) if (value !== undefined) search.set(name, String(value));
    return this.send("GET", `${path}${search.size > 0 ? `?${search}` : ""}`);
  }

  /** POST `body` as JSON to `path`. */
  post(path: string, body: Record<string, unknown>): Promise<Json> {
    return this.send("POST", path, body);
  }

  private async send(method: "GET" | "POST", path: string, body?: Record<string, unknown>): Promise<Json> {
    const headers: Record<string, string> = { Authorization: `Bearer ${this.target.apiKey}`, Accept: "application/json" };
    if (body !== undefined) {
      headers["Content-Type"] = "application/json";
      headers["Idempotency-Key"] = randomUUID();
    }
    const url = `${this.target.baseUrl}${path}`;
    let response: Response;
    try {
      response = await fetch(url, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(this.timeoutMs),
        redirect: "error",
      });
    } catch (error) {
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      const why = cause?.code ?? cause?.message ?? (error as Error).message;
      throw new UnreachableError(`could not reach the service at ${this.target.baseUrl} (${why}): is it running, and is --url where the router is mounted?`);
    }
    const text = await response.text();
    let json: Json;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    if (response.ok && json !== undefined) return json;
    if (response.status === 404 && (json === undefined || typeof json.error !== "number")) {
      throw new RemoteError(`${method} ${url} answered 404 without an error object: is --url where the router is mounted?`, 404, null);
    }
    const code = typeof json?.error === "number" ? json.error : null;
    const message = typeof json?.message === "string" ? json.message : text.slice(0, 200);
    throw new RemoteError(`${method} ${path} answered ${response.status}${code === null ? "" : ` (${code})`}: ${message}`, response.status, code);
  }
}
