import express, { type RequestHandler } from "express";
import { PaymentError } from "../errors";

/** Media types parsed as JSON: application/json and structured-syntax types like application/vnd.api+json. */
const JSON_TYPES = ["application/json", "application/*+json"];

/**
 * express.json() with the router's size limit, plus a 415 for a body that is not JSON:
 * without it a form-encoded body would be skipped by the parser and reported as "amount is
 * required", which hides the real mistake.
 */
export function jsonBody(limit: string | number): RequestHandler {
  // Not strict: a JSON string or number body parses, so the schema can say "must be an object"
  // instead of calling valid JSON malformed.
  const parse = express.json({ limit, strict: false, type: JSON_TYPES });
  return (req, res, next) => {
    const length = req.headers["content-length"];
    const hasBody = req.headers["transfer-encoding"] !== undefined || (length !== undefined && length !== "0");
    if (hasBody && !req.is(JSON_TYPES)) {
      next(new PaymentError("unsupported_media_type", "Send the request body as JSON with `Content-Type: application/json`."));
      return;
    }
    parse(req, res, next);
  };
}
