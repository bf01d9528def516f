import express, { type Request, type Response } from "express";
import { PaymentError } from "../errors";

/** Media types parsed as JSON: application/json and structured-syntax types like application/vnd.api+json. */
const JSON_TYPES = ["application/json", "application/*+json"];

/**
 * Reads a JSON body with the router's size limit (express.json underneath), plus a 415 for a
 * body that is not JSON: without it a form-encoded body would be skipped by the parser and
 * reported as "amount is required", which hides the real mistake.
 */
export function jsonBodyReader(limit: string | number): (req: Request, res: Response) => Promise<void> {
  // Not strict: a JSON string or number body parses, so the schema can say "must be an object"
  // instead of calling valid JSON malformed.
  const parse = express.json({ limit, strict: false, type: JSON_TYPES });
  return (req, res) => {
    const length = req.headers["content-length"];
    const hasBody = req.headers["transfer-encoding"] !== undefined || (length !== undefined && length !== "0");
    if (hasBody && !req.is(JSON_TYPES)) {
      return Promise.reject(new PaymentError("unsupported_media_type", "Send the request body as JSON with `Content-Type: application/json`."));
    }
    return new Promise((resolve, reject) => parse(req, res, (error?: unknown) => (error ? reject(error) : resolve())));
  };
}
