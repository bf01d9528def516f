import type { ErrorRequestHandler } from "express";
import type { Logger } from "../core/ports/logger";
import { PaymentError } from "../errors";
import { setJsonHeaders } from "./response-headers";
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
 * Answers every error under the router's prefixes with the error object `{ error, message }`.
 * Unknown failures become a 500 whose message reveals nothing; the details go to the logger
 * (never the request's headers, which carry the API key).
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

/** The router's JSON APIs, relative to where it is mounted. */
const API_PATHS = /^\/(?:api\/v1|v1)(?:\/|$)/;

/**
 * `PaymentRouter.errorHandler`: for a host whose own body parser (express.json) runs before the
 * router. That parser's failures (malformed JSON, its size limit, an unsupported charset or
 * Content-Encoding) are passed to error handlers only, which a router is not, so without this
 * they reach the host's handler and a client of the API gets HTML instead of the error object.
 * Mounted after the router (at the same path), it answers exactly those failures on the
 * router's API paths with the error object and passes everything else on untouched: the host's
 * own errors stay the host's.
 */
export function hostBodyErrorHandler(): ErrorRequestHandler {
  return (error, req, res, next) => {
    const known = !res.headersSent && API_PATHS.test(req.path) && typeof error === "object" && error !== null ? fromBodyParser(error) : null;
    if (!known) return next(error);
    // The router's own headers step never ran for this request.
    setJsonHeaders(res);
    sendJson(res, known.status, known.toJSON());
  };
}
