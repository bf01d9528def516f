import type { ErrorRequestHandler } from "express";
import type { Logger } from "../core/context";
import { PaymentError } from "../errors";
import { sendJson } from "./send-json";

/** body-parser's failures carry `type`; these are the ones a client causes. */
function fromBodyParser(error: { type?: unknown; status?: unknown; limit?: unknown; encoding?: unknown }): PaymentError | null {
  switch (error.type) {
    case "entity.parse.failed":
      return new PaymentError("malformed_json", "The request body is not valid JSON.");
    case "entity.too.large":
      return new PaymentError("payload_too_large", `The request body is larger than the limit of ${error.limit} bytes.`);
    case "encoding.unsupported":
      // Content-Encoding (body-parser reads gzip, deflate and br); the charset has its own type.
      return new PaymentError(
        "unsupported_media_type",
        `Content-Encoding "${String(error.encoding)}" is not supported: send the body uncompressed, or compressed with gzip, deflate or br.`,
      );
    case "charset.unsupported":
      return new PaymentError("unsupported_media_type", "The request body must be UTF-8 JSON (Content-Type: application/json).");
    case "request.aborted":
    case "request.size.invalid":
      return new PaymentError("validation_error", "The request body was cut short.");
    default:
      return null;
  }
}

/**
 * Express throws a URIError (status 400) when a path parameter is not valid percent-encoding
 * (`/api/assets/%E0%A4%A`): the client's mistake, so a 400, not a 500.
 */
function fromPathDecoding(error: object): PaymentError | null {
  if (!(error instanceof URIError)) return null;
  return new PaymentError("validation_error", "The request path is not valid percent-encoding (a % must be followed by two hex digits of UTF-8).");
}

/**
 * Answers every error under the router's prefixes with the spec's error object. Unknown
 * failures become a 500 whose message reveals nothing; the details go to the logger (never the
 * request's headers, which carry the API key).
 */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (error, req, res, next) => {
    if (res.headersSent) return next(error);
    const known =
      error instanceof PaymentError ? error : typeof error === "object" && error !== null ? (fromPathDecoding(error) ?? fromBodyParser(error)) : null;
    const answer = known ?? new PaymentError("internal_error", "Something went wrong on our side; the request was not completed.");
    if (!known) logger.error(`${req.method} ${req.originalUrl.split("?")[0]} failed`, error);
    sendJson(res, answer.status, answer.toJSON());
  };
}
