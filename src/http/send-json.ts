import type { Response } from "express";

/**
 * Sends a JSON answer. Unlike `res.json`, it skips Express's ETag: these are answers to POSTs
 * and errors, never cached or revalidated, and hashing every body for an unused ETag cost
 * about a tenth of a request's time.
 */
export function sendJson(res: Response, status: number, body: unknown): void {
  sendRawJson(res, status, JSON.stringify(body));
}

/** Sends JSON text as it is (a stored answer being replayed). */
export function sendRawJson(res: Response, status: number, text: string): void {
  res.statusCode = status;
  res.setHeader("Content-Type", "application/json; charset=utf-8");
  res.setHeader("Content-Length", Buffer.byteLength(text));
  res.end(text);
}
