import type { Response } from "express";

/**
 * Sends a JSON answer. Unlike `res.json`, it skips Express's ETag: these are answers to POSTs
 * and errors, never cached or revalidated, and hashing every body for an unused ETag cost
 * about a tenth of a request's time.
 */
export function sendJson(res: Response, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.statusCode = status;
  res.setHeader("Content-Type", "application/json; charset=utf-8");
  res.setHeader("Content-Length", Buffer.byteLength(text));
  res.end(text);
}
