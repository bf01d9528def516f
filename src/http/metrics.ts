import type { RequestHandler } from "express";

/**
 * The Prometheus scrape endpoint over a service's `metrics()`: the metrics with their content
 * type, or 501 with the reason as plain text when there are none (off, or prom-client missing).
 */
export function metricsHandler(scrape: () => Promise<{ contentType: string; body: string } | { unavailable: string }>): RequestHandler {
  return (_req, res, next) => {
    scrape().then((answer) => {
      if ("unavailable" in answer) res.status(501).type("text/plain").send(`${answer.unavailable}\n`);
      else res.set("Content-Type", answer.contentType).send(answer.body);
    }, next);
  };
}
