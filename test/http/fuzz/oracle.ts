import type request from "supertest";
import type { Scope, Storage } from "../../../src/core/ports/storage/index";
import { isOverPrecise, numberTokens } from "./json-text";
import type { FuzzRequest } from "./requests";

/** The properties every answer must have; each is checked (and reported) on its own. */
export const PROPERTIES = {
  "never answers 5xx": "no-5xx",
  "answers every 4xx under /api/v1 and /v1 with the error object": "error-object",
  "writes nothing when it rejects a request": "no-write",
  "logs no error for a rejected request": "no-error-log",
  "sends nosniff and no-store on every /api/v1 and /v1 answer": "headers",
  "never accepts a JSON number a double cannot hold as written": "precise-numbers",
  "never accepts a control character in a text field (metadata aside)": "plain-text",
} as const;

export type Property = (typeof PROPERTIES)[keyof typeof PROPERTIES];

/** Header the fuzz app's fallback sets: the router let the request through to the host app. */
export const HOST_FALLBACK = "x-fuzz-host-fallback";

const API_PREFIX = /^\/(api\/)?v1(\/|$|\?)/;

/**
 * Everything a merchant's requests can change, read through the storage's list methods for
 * both merchants in both modes. Compared before and after a rejected request.
 */
export async function storageSnapshot(storage: Storage, scopes: Scope[]): Promise<string> {
  const page = { limit: 100_000 };
  const parts: unknown[] = [];
  for (const scope of scopes) {
    parts.push(
      await storage.listInvoices(scope, {}, page),
      await storage.listPayouts(scope, { kind: "payout" }, page),
      await storage.listPayouts(scope, { kind: "refund" }, page),
      await storage.listExchanges(scope, page),
      await storage.listBalances(scope),
      await storage.listLedgerEntries(scope),
      await storage.listEvents(scope),
      await storage.listPaymentLinks!(scope, page),
      await storage.listWebhookEndpoints(scope),
      await storage.listWebhookDeliveries(scope, {}, page),
    );
  }
  return JSON.stringify(parts, (_key, value: unknown) => (typeof value === "bigint" ? `${value}n` : value));
}

/** What one request did, as the checks see it. */
export interface Outcome {
  fuzz: FuzzRequest;
  res: request.Response;
  /** Logger lines written while the request ran. */
  logged: string[];
  /** Storage before and after, when the property needs them. */
  before?: string;
  after?: string;
}

/** Throws, with what went wrong, when the outcome breaks the property. */
export function check(property: Property, { fuzz, res, logged, before, after }: Outcome): void {
  const status = res.status;
  const underApi = API_PREFIX.test(fuzz.url);
  const fromRouter = res.headers[HOST_FALLBACK] === undefined;
  const summary = `${fuzz.method} ${fuzz.url.slice(0, 200)} answered ${status}: ${String(res.text).slice(0, 300)}`;
  switch (property) {
    case "no-5xx":
      if (status >= 500) throw new Error(`5xx: ${summary}`);
      return;
    case "error-object": {
      if (!underApi || status < 400 || status >= 500) return;
      if (!fromRouter) throw new Error(`the router let a request under its API prefix through to the host app: ${summary}`);
      const type = String(res.headers["content-type"] ?? "");
      if (!/^application\/json/.test(type)) throw new Error(`error answer with Content-Type "${type}": ${summary}`);
      const body = res.body as Record<string, unknown>;
      const keys = body && typeof body === "object" ? Object.keys(body).sort().join(",") : typeof body;
      if (keys !== "error,message") throw new Error(`error answer is not { error, message } (keys: ${keys}): ${summary}`);
      if (!Number.isInteger(body.error) || Math.floor((body.error as number) / 100) !== status)
        throw new Error(`error ${String(body.error)} does not match status ${status}: ${summary}`);
      if (typeof body.message !== "string" || body.message.length === 0) throw new Error(`error message is not a non-empty string: ${summary}`);
      return;
    }
    case "no-write":
      if (status < 400 || status >= 500) return;
      if (before !== after) throw new Error(`a rejected request changed the storage: ${summary}`);
      return;
    case "no-error-log": {
      if (status >= 500) return; // the 5xx property reports it
      const errors = logged.filter((line) => line.startsWith("error"));
      if (errors.length > 0) throw new Error(`logged ${JSON.stringify(errors.map((line) => line.slice(0, 200)))} for: ${summary}`);
      return;
    }
    case "headers": {
      if (!underApi || !fromRouter) return;
      const nosniff = res.headers["x-content-type-options"];
      const cache = String(res.headers["cache-control"] ?? "");
      if (nosniff !== "nosniff") throw new Error(`no X-Content-Type-Options: nosniff: ${summary}`);
      if (!/\bno-store\b/.test(cache)) throw new Error(`Cache-Control is "${cache}", not no-store: ${summary}`);
      return;
    }
    case "precise-numbers": {
      if (!underApi || status >= 300 || fuzz.method !== "POST" || fuzz.body === undefined) return;
      const lost = numberTokens(fuzz.body).filter(isOverPrecise);
      if (lost.length > 0)
        throw new Error(
          `accepted ${lost.join(", ")}, which JSON.parse changes (${lost.map((token) => `${token} -> ${Number(token)}`).join(", ")}): ${summary}`,
        );
      return;
    }
    case "plain-text": {
      // Refused, never stored with the character stripped (a URL parser drops tabs and line breaks).
      if (!underApi || status >= 300 || fuzz.method !== "POST" || fuzz.body === undefined) return;
      const found = controlCharacterFields(fuzz.body);
      if (found.length > 0) throw new Error(`accepted a control character in ${found.join(", ")}: ${summary}`);
      return;
    }
  }
}

/** The paths of the body's string values (metadata aside, which is free-form) that hold a control character. */
function controlCharacterFields(body: string): string[] {
  let root: unknown;
  try {
    root = JSON.parse(body);
  } catch {
    return [];
  }
  const found: string[] = [];
  const stack: Array<{ value: unknown; path: string }> = [{ value: root, path: "" }];
  while (stack.length > 0) {
    const { value, path } = stack.pop()!;
    if (typeof value === "string" && /\p{Cc}/u.test(value)) found.push(path || "the body");
    if (typeof value !== "object" || value === null) continue;
    for (const [key, child] of Object.entries(value)) {
      if (path === "" && key === "metadata") continue;
      stack.push({ value: child, path: path ? `${path}.${key}` : key });
    }
  }
  return found;
}
