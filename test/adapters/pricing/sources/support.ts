import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, expect, it } from "vitest";
import { PriceSourceError, type PriceSource, type SourcePrice } from "../../../../src/adapters/pricing/sources/types";

/**
 * A stand-in for a provider's API: a node:http server on a free port of 127.0.0.1 that records
 * every request and answers what the test says (`reply`), in the provider's documented format.
 */

/** A request the server received. */
export interface Received {
  method: string;
  path: string;
  /** The query, decoded. */
  query: URLSearchParams;
  /** The raw request target, as sent ("/v2/prices/BTC-USD/spot"). */
  target: string;
  headers: IncomingHttpHeaders;
  /** The request body (JSON-RPC calls), "" for a GET. */
  body: string;
}

/** What the server answers: a JSON body by default, or nothing at all (`hang`). */
export interface Reply {
  status?: number;
  headers?: Record<string, string>;
  body?: string;
  /** Never answer (until the server closes): a provider that hangs. */
  hang?: boolean;
  /** Send the status, the headers and `body`, then stall without ending the body. */
  stallAfterBody?: boolean;
}

export interface ProviderServer {
  /** "http://127.0.0.1:<port>" */
  url: string;
  requests: Received[];
  /** Set by each test; the default answers 404. */
  reply: (request: Received) => Reply;
  close(): Promise<void>;
}

export async function startProviderServer(): Promise<ProviderServer> {
  const hanging = new Set<ServerResponse>();
  const provider: ProviderServer = {
    url: "",
    requests: [],
    reply: () => ({ status: 404, body: '{"error":"not found"}' }),
    close: () =>
      new Promise<void>((resolve) => {
        for (const response of hanging) response.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const target = req.url ?? "/";
    const parsed = new URL(target, "http://127.0.0.1");
    const received: Received = {
      method: req.method ?? "",
      path: parsed.pathname,
      query: parsed.searchParams,
      target,
      headers: req.headers,
      body: Buffer.concat(chunks).toString("utf8"),
    };
    provider.requests.push(received);
    const reply = provider.reply(received);
    if (reply.hang) {
      hanging.add(res);
      res.on("close", () => hanging.delete(res));
      return;
    }
    res.writeHead(reply.status ?? 200, { "content-type": "application/json", ...reply.headers });
    if (reply.stallAfterBody) {
      hanging.add(res);
      res.on("close", () => hanging.delete(res));
      res.write(reply.body ?? "");
      return;
    }
    res.end(reply.body ?? "");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  provider.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return provider;
}

/**
 * One provider server for the test file: started before its tests, closed after them, and
 * before each test emptied of requests and set to answer `documented()`. The object answered
 * stands for that server (use it inside tests and hooks, once it has started).
 */
export function useProviderServer(documented: () => (request: Received) => Reply): ProviderServer {
  let started: ProviderServer | undefined;
  const server = () => {
    if (!started) throw new Error("the provider server has not started yet: use it inside a test or hook");
    return started;
  };
  beforeAll(async () => {
    started = await startProviderServer();
  });
  afterAll(() => started?.close());
  beforeEach(() => {
    server().requests.length = 0;
    server().reply = documented();
  });
  return {
    get url() {
      return server().url;
    },
    set url(url) {
      server().url = url;
    },
    get requests() {
      return server().requests;
    },
    get reply() {
      return server().reply;
    },
    set reply(reply) {
      server().reply = reply;
    },
    close: () => server().close(),
  };
}

/** The fixed clock of the tests: answers without a time are stamped with it. */
export const NOW = new Date("2024-03-25T08:45:00.000Z");

/** A `fetch` request for `bases`, with a live signal and the fixed clock. */
export function ask(bases: readonly string[], signal: AbortSignal = new AbortController().signal) {
  return { bases, signal, now: () => NOW };
}

/** The PriceSourceError `promise` rejects with (failing the test if it resolves or throws another error). */
export async function sourceError(promise: Promise<SourcePrice[]>): Promise<PriceSourceError> {
  const outcome = await promise.then(
    (prices) => ({ prices }),
    (error: unknown) => ({ error }),
  );
  if ("prices" in outcome) throw new Error(`expected a PriceSourceError, got prices ${JSON.stringify(outcome.prices)}`);
  expect(outcome.error).toBeInstanceOf(PriceSourceError);
  return outcome.error as PriceSourceError;
}

/** Prices by base, for compact assertions: { BTC: "67187.33" }. */
export function byBase(prices: readonly SourcePrice[]): Record<string, string> {
  return Object.fromEntries(prices.map((price) => [price.base, price.price]));
}

/** How a source's failure tests reach its API. */
export interface FailureCases {
  server: () => ProviderServer;
  /** The source under test pointing at the server, with these overrides. */
  source: (overrides?: { timeoutMs?: number }) => PriceSource;
  /** Bases to ask for; the first one's price is the one `answerWithPrice` varies. */
  bases: readonly string[];
  /** A documented answer (to every request) where that price is the JSON token `price`. */
  answerWithPrice: (price: string) => string;
  /** JSON tokens for a zero, a negative and a non-numeric price, as this provider would write them. */
  prices: { zero: string; negative: string; nonNumeric: string };
  /** A JSON body that is not the documented shape. */
  wrongShape: string;
}

/** The failures every HTTP source must turn into a PriceSourceError with a clear reason. */
export function itFailsClearly(cases: FailureCases): void {
  const name = () => cases.source().name;

  it("fails with the status on an HTTP 500", async () => {
    cases.server().reply = () => ({ status: 500, body: '{"message":"internal error"}' });
    const error = await sourceError(cases.source().fetch(ask(cases.bases)));
    expect(error.source).toBe(name());
    expect(error.message).toMatch(/HTTP 500/);
    expect(error.message).toContain("internal error");
  });

  it("fails on an HTML error page answered with 200", async () => {
    cases.server().reply = () => ({
      status: 200,
      headers: { "content-type": "text/html" },
      body: "<!DOCTYPE html><html><body>Cloudflare: checking your browser</body></html>",
    });
    const error = await sourceError(cases.source().fetch(ask(cases.bases)));
    expect(error.message).toMatch(/HTTP 200 OK with a body that is not JSON \(text\/html\)/);
    expect(error.message).toContain("<!DOCTYPE html>");
  });

  it("says rate limited, with Retry-After, on a 429", async () => {
    cases.server().reply = () => ({ status: 429, headers: { "retry-after": "30" }, body: '{"message":"slow down"}' });
    const error = await sourceError(cases.source().fetch(ask(cases.bases)));
    expect(error.message).toMatch(/rate limited \(HTTP 429.*Retry-After: 30\)/);
  });

  it("fails on JSON that is not the documented shape", async () => {
    cases.server().reply = () => ({ body: cases.wrongShape });
    const error = await sourceError(cases.source().fetch(ask(cases.bases)));
    expect(error.message).toMatch(/not the documented shape|answered no|answered neither/);
  });

  it("refuses a zero price", async () => {
    cases.server().reply = () => ({ body: cases.answerWithPrice(cases.prices.zero) });
    expect((await sourceError(cases.source().fetch(ask(cases.bases)))).message).toMatch(/is zero: a price must be a positive decimal/);
  });

  it("refuses a negative price", async () => {
    cases.server().reply = () => ({ body: cases.answerWithPrice(cases.prices.negative) });
    expect((await sourceError(cases.source().fetch(ask(cases.bases)))).message).toMatch(/is negative: a price must be a positive decimal/);
  });

  it("refuses a price that is not a number", async () => {
    cases.server().reply = () => ({ body: cases.answerWithPrice(cases.prices.nonNumeric) });
    expect((await sourceError(cases.source().fetch(ask(cases.bases)))).message).toMatch(/is not a decimal number|expected a JSON number/);
  });

  it("gives up on a server that hangs once timeoutMs has passed", async () => {
    cases.server().reply = () => ({ hang: true });
    const started = performance.now();
    const error = await sourceError(cases.source({ timeoutMs: 200 }).fetch(ask(cases.bases)));
    expect(performance.now() - started).toBeLessThan(1000);
    expect(error.message).toMatch(/no answer within 200 ms/);
  });

  it("gives up on a body that stops midway once timeoutMs has passed", async () => {
    cases.server().reply = () => ({ body: cases.answerWithPrice(cases.prices.zero).slice(0, 12), stallAfterBody: true });
    const started = performance.now();
    const error = await sourceError(cases.source({ timeoutMs: 200 }).fetch(ask(cases.bases)));
    expect(performance.now() - started).toBeLessThan(1000);
    expect(error.message).toMatch(/no answer within 200 ms/);
  });

  it("does not follow a redirect, and says where it pointed", async () => {
    cases.server().reply = () => ({ status: 301, headers: { location: "https://elsewhere.example/path?key=1" }, body: "" });
    const error = await sourceError(cases.source().fetch(ask(cases.bases)));
    expect(error.message).toMatch(/answered HTTP 301 Moved Permanently, a redirect to https:\/\/elsewhere\.example, which is not followed: check baseUrl/);
  });

  it("stops when the caller's signal aborts", async () => {
    cases.server().reply = () => ({ hang: true });
    const controller = new AbortController();
    const pending = cases.source().fetch(ask(cases.bases, controller.signal));
    setTimeout(() => controller.abort(new Error("refresh cancelled")), 50);
    const started = performance.now();
    const error = await sourceError(pending);
    expect(performance.now() - started).toBeLessThan(1000);
    expect(error.message).toMatch(/aborted \(refresh cancelled\)/);
  });

  it("sends nothing when the signal is already aborted", async () => {
    const before = cases.server().requests.length;
    const error = await sourceError(cases.source().fetch(ask(cases.bases, AbortSignal.abort(new Error("shutting down")))));
    expect(error.message).toMatch(/aborted \(shutting down\)/);
    expect(cases.server().requests.length).toBe(before);
  });

  it("fails clearly when nothing listens at baseUrl", async () => {
    const closed = await startProviderServer();
    await closed.close();
    const source = cases.source();
    // The same source, pointed at a port where nothing listens.
    const error = await sourceError(rebase(cases, closed.url).fetch(ask(cases.bases)));
    expect(error.source).toBe(source.name);
    expect(error.message).toMatch(/failed: fetch failed \(ECONNREFUSED\)/);
  });
}

// The failure cases build sources against the running server; this swaps its origin for another.
function rebase(cases: FailureCases, url: string): PriceSource {
  const server = cases.server();
  const original = server.url;
  server.url = url;
  try {
    return cases.source();
  } finally {
    server.url = original;
  }
}
