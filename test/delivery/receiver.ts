import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import request from "supertest";
import { expect } from "vitest";
import { webhookSignature } from "../../src/webhooks/sign";
import { secretKey } from "../../src/webhook-secret";
import type { PaymentRouter } from "../../src/index";
import { setup, type Harness } from "../helpers";

/**
 * Shared pieces of the webhook delivery tests: a real HTTP receiver on 127.0.0.1 that records
 * what it is sent and answers as scripted, signature checks, and shortcuts for the API calls
 * every delivery test makes.
 */

/** One request as the receiver got it: the body is the exact text, for signature checks. */
export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** Real time of arrival (Date.now), for the timing tests. */
  at: number;
}

/** How the receiver answers one request: a status, a status with headers, or no answer at all. */
export type Reply = number | { status: number; headers?: Record<string, string>; body?: string } | "hang";

/** A running receiver. */
export interface Receiver {
  /** http://127.0.0.1:<port>/hook */
  url: string;
  port: number;
  requests: ReceivedRequest[];
  /** The requests' bodies, parsed. */
  events(): WebhookBody[];
  /** Queues answers for the next requests, in order; after them the fallback answers. */
  reply(...replies: Reply[]): void;
  /** Answers every request left hanging so far with `reply` (default 200). */
  release(reply?: Exclude<Reply, "hang">): void;
  /** Requests received and not answered yet. */
  open(): number;
  /** The most requests it ever had open at once. */
  maxOpen(): number;
  close(): Promise<void>;
}

/** The body a sender posts. */
export interface WebhookBody {
  type: string;
  timestamp: string;
  data: Record<string, unknown> & { id: string; status: string; metadata: Record<string, unknown> | null; test?: boolean };
}

const open = new Set<Receiver>();

/**
 * Starts a receiver. It answers what `decide` says for a request, if it says anything, else
 * `replies` in order, then `fallback` (default 200). Close it with `closeReceivers()` in afterEach.
 */
export async function startReceiver(
  options: { replies?: Reply[]; fallback?: Reply; decide?: (request: ReceivedRequest) => Reply | undefined } = {},
): Promise<Receiver> {
  const queue: Reply[] = [...(options.replies ?? [])];
  const fallback = options.fallback ?? 200;
  const requests: ReceivedRequest[] = [];
  const hanging: ServerResponse[] = [];
  let unanswered = 0;
  let mostUnanswered = 0;
  const server: Server = createServer((req, res) => {
    unanswered++;
    mostUnanswered = Math.max(mostUnanswered, unanswered);
    res.on("close", () => unanswered--);
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const received = { method: req.method ?? "", path: req.url ?? "", headers: req.headers, body: Buffer.concat(chunks).toString("utf8"), at: Date.now() };
      requests.push(received);
      const reply = options.decide?.(received) ?? (queue.length > 0 ? queue.shift()! : fallback);
      if (reply === "hang") hanging.push(res);
      else answer(res, reply);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  const receiver: Receiver = {
    url: `http://127.0.0.1:${port}/hook`,
    port,
    requests,
    events: () => requests.map((entry) => JSON.parse(entry.body) as WebhookBody),
    reply: (...replies) => void queue.push(...replies),
    release: (reply = 200) => {
      for (const res of hanging.splice(0)) if (!res.destroyed) answer(res, reply);
    },
    open: () => unanswered,
    maxOpen: () => mostUnanswered,
    close: () =>
      new Promise<void>((resolve) => {
        open.delete(receiver);
        // Hanging requests hold their sockets open; cut them so close() does not wait for them.
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  open.add(receiver);
  return receiver;
}

function answer(res: ServerResponse, reply: Exclude<Reply, "hang">): void {
  const { status, headers = {}, body = "" } = typeof reply === "number" ? { status: reply } : reply;
  res.writeHead(status, headers);
  res.end(body);
}

/** Closes every receiver still open (for afterEach). */
export async function closeReceivers(): Promise<void> {
  await Promise.all([...open].map((receiver) => receiver.close()));
}

/** The events of one paid invoice, in order. */
export const LIFECYCLE = ["payment.created", "payment.confirming", "payment.confirmed", "payment.completed"];
/** Retries every few ms, waited for in process: a failing receiver costs the tests nothing. */
export const FAST = { retrySchedule: [5, 5, 5, 5], inProcessRetryMaxMs: 100, intervalMs: false as const };
/** No retry: one failed attempt fails the delivery (a failed one to redeliver). */
export const ONCE = { retrySchedule: [] as number[], intervalMs: false as const };
/** One retry a minute later, persisted (never waited for in process). */
export const PERSISTED = { retrySchedule: [60_000], inProcessRetryMaxMs: 0, intervalMs: false as const };

const routers = new Set<PaymentRouter>();

/** Closes `router` with the test's receivers (see closeDeliveryTests). */
export function closeAfterTest(router: PaymentRouter): PaymentRouter {
  routers.add(router);
  return router;
}

/** A test app (see setup) whose sender's loop stays off unless a test turns it on: tick() runs deliveries. */
export async function harness(options: Parameters<typeof setup>[0] = {}): Promise<Harness> {
  const h = await setup({ ...options, webhooks: { intervalMs: false, ...options.webhooks } });
  closeAfterTest(h.router);
  return h;
}

/** For afterEach: receivers first (a hanging one would keep its delivery, and router.close(), waiting), then the routers. */
export async function closeDeliveryTests(): Promise<void> {
  await closeReceivers();
  await Promise.all([...routers].map((router) => router.close()));
  routers.clear();
}

/** The `v1,` signatures of a request, without the prefix. */
export function signaturesOf(req: ReceivedRequest): string[] {
  return String(req.headers["webhook-signature"] ?? "")
    .split(" ")
    .filter((entry) => entry.startsWith("v1,"))
    .map((entry) => entry.slice(3));
}

/** The signature `secret` gives this request's id, timestamp and exact body. */
export function expectedSignature(req: ReceivedRequest, secret: string): string {
  return webhookSignature(secretKey(secret), {
    id: String(req.headers["webhook-id"]),
    timestamp: Number(req.headers["webhook-timestamp"]),
    body: req.body,
  });
}

/** Whether one of the request's signatures was made with `secret`. */
export function signedWith(req: ReceivedRequest, secret: string): boolean {
  return signaturesOf(req).includes(expectedSignature(req, secret));
}

// --- API shortcuts ---------------------------------------------------------------------------

/** A GET with a key, as supertest sees it. */
export function get(h: Harness, path: string, key: string = h.testKey) {
  return request(h.app).get(path).set("Authorization", `Bearer ${key}`);
}

/** A DELETE with a key. */
export function del(h: Harness, path: string, key: string = h.testKey) {
  return request(h.app).delete(path).set("Authorization", `Bearer ${key}`);
}

/** An endpoint as the create and rotate answers show it (with its secret). */
export interface CreatedEndpoint {
  id: string;
  url: string;
  events: string[] | null;
  status: string;
  secret: string;
}

/** Registers an endpoint and expects it to succeed. */
export async function createEndpoint(h: Harness, url: string, options: { events?: string[]; key?: string } = {}): Promise<CreatedEndpoint> {
  const res = await h.post("/v1/webhook-endpoints", { url, ...(options.events ? { events: options.events } : {}) }, options.key ?? h.testKey);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as CreatedEndpoint;
}

/** A whitelabel USDT/TRX invoice of 100 USD (payAmount exactly 100 USDT) in test mode. */
export async function createInvoice(
  h: Harness,
  body: Record<string, unknown> = {},
  key: string = h.testKey,
): Promise<{ id: string; address: string; payAmount: number }> {
  const res = await h.post("/api/v1/merchants/whitelabel/create", { amount: 100, amountCurrency: "USD", payCurrency: "USDT", network: "TRX", ...body }, key);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as { id: string; address: string; payAmount: number };
}

/** Pays an invoice in full with 19 confirmations: created is followed by confirming, confirmed, completed. */
export async function payInFull(h: Harness, invoice: { address: string; payAmount: number }): Promise<void> {
  const res = await h.post("/api/v1/sandbox/deposit/create", { address: invoice.address, amount: invoice.payAmount, confirmations: 19 });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

/**
 * Ticks until a tick sends nothing (a tick already runs what frees up as deliveries finish;
 * this also catches what a tick's last deliveries made due). Returns how many deliveries were run.
 */
export async function drain(h: Harness, maxTicks = 50): Promise<number> {
  let total = 0;
  for (let i = 0; i < maxTicks; i++) {
    const { webhooksSent } = await h.router.tick();
    if (webhooksSent === 0) return total;
    total += webhooksSent;
  }
  throw new Error(`webhook deliveries were still running after ${maxTicks} ticks`);
}

/** A delivery as the log shows it. */
export interface DeliveryView {
  id: string;
  endpointId: string;
  eventId: string;
  eventType: string;
  status: "pending" | "succeeded" | "failed";
  attemptCount: number;
  nextAttemptAt: string | null;
  lastStatusCode: number | null;
  lastError: string | null;
  attempts: Array<{ at: string; statusCode: number | null; durationMs: number; error: string | null }>;
  createdAt: string;
}

/** One delivery from the log, expecting 200. */
export async function getDelivery(h: Harness, id: string, key: string = h.testKey): Promise<DeliveryView> {
  const res = await get(h, `/v1/webhook-deliveries/${id}`, key);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as DeliveryView;
}

/** Up to 100 deliveries of the log (newest first), with an optional query. */
export async function listDeliveries(h: Harness, query: Record<string, string | number> = {}, key: string = h.testKey): Promise<DeliveryView[]> {
  const res = await get(h, "/v1/webhook-deliveries", key).query({ limit: 100, ...query });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data as DeliveryView[];
}
