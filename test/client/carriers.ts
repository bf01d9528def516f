import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import express from "express";
import { afterEach } from "vitest";
import { createPaymentClient, type PaymentClientOptions, type PaymentResources } from "../../src/index";
import { setup, type Harness } from "../helpers";

/**
 * The two carriers of the /v1 resources, for suites that run the same calls through both: the
 * HTTP client against the router on a real port, and the router's in-process `forMerchant`.
 */

export const PUBLIC_URL = "https://shop.example";

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

/** Listens on a free 127.0.0.1 port and answers its base URL; closed after each test. */
export async function listen(app: express.Express): Promise<string> {
  const server = app.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  servers.push(server);
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Serves `h`'s router under /shop behind `front` (a middleware that can watch or break requests). */
export async function serve(h: Harness, front?: express.RequestHandler): Promise<string> {
  const app = express();
  if (front) app.use(front);
  app.use("/shop", h.router);
  return `${await listen(app)}/shop`;
}

/** A harness and the resources of its merchant in test mode, through one carrier; `requests` counts the HTTP client's requests. */
export interface Carried {
  h: Harness;
  api: PaymentResources;
  /** Requests that reached the router over HTTP (0 in process). */
  requests: () => number;
  /** The same resources for the other merchant of the harness. */
  other: PaymentResources;
}

/** The carriers, by name, for `describe.each`. */
export const CARRIERS = {
  "the HTTP client": async (options: Partial<PaymentClientOptions> = {}): Promise<Carried> => {
    const h = await setup({ publicUrl: PUBLIC_URL });
    let requests = 0;
    const baseUrl = await serve(h, (_req, _res, next) => {
      requests++;
      next();
    });
    return {
      h,
      api: createPaymentClient({ baseUrl, apiKey: h.testKey, ...options }),
      requests: () => requests,
      other: createPaymentClient({ baseUrl, apiKey: h.otherTestKey }),
    };
  },
  "the in-process API": async (): Promise<Carried> => {
    const h = await setup({ publicUrl: PUBLIC_URL });
    return { h, api: h.router.forMerchant(h.merchant.id, "test"), requests: () => 0, other: h.router.forMerchant(h.other.id, "test") };
  },
} as const;

export const CARRIER_NAMES = Object.keys(CARRIERS) as Array<keyof typeof CARRIERS>;
