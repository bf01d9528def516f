import bodyParser from "body-parser";
import type { Request, Response } from "express";
import { getUnsafeNumberReason, parse as parseLossless } from "lossless-json";
import { BodyTimeoutError, readWithinDeadline } from "../body-deadline";
import { PaymentError } from "../errors";
import { METADATA_MAX_DEPTH } from "../schemas/fields";

/** Media types parsed as JSON: application/json and structured-syntax types like application/vnd.api+json. */
const JSON_TYPES = ["application/json", "application/*+json"];

/**
 * Deepest nesting of objects and arrays a body may have. The parser recurses, so a body of
 * 50,000 `[` would overflow the stack; no request needs more than metadata's own limit
 * (METADATA_MAX_DEPTH levels, checked by its schema with a precise message) plus the body
 * around it.
 */
export const MAX_BODY_DEPTH = 64;

/**
 * Reads a JSON body with the router's size limit, plus a 415 for a body that is not JSON:
 * without it a form-encoded body would be skipped by the parser and reported as "amount is
 * required", which hides the real mistake.
 *
 * Numbers are read from the request's own text (lossless-json), not through JSON.parse: a
 * number a double cannot hold exactly (`10.0000000000000001`, `1e400`, `9007199254740993`)
 * would otherwise be rounded before any schema sees it and charged as a different amount. Such
 * a number is refused with a 400 naming its field; every other number parses as JSON.parse
 * would parse it.
 *
 * A body that the host already read (a body parser mounted before the router) is used rather
 * than read again, since the stream is spent: an object (express.json) as it is, its numbers
 * having gone through JSON.parse where they can no longer be checked; bytes or text
 * (express.raw, express.text) parsed here, losslessly. The host parser's own failures
 * (malformed JSON, its size limit) never reach this router: Express hands them to error
 * handlers only, which is what `PaymentRouter.errorHandler` is for.
 *
 * A body that has not arrived in full after `timeoutMs` is answered 408 (and its connection
 * closed) rather than left to the server's own timeout.
 */
export function jsonBodyReader(limit: string | number, timeoutMs: number): (req: Request, res: Response) => Promise<void> {
  // body-parser's text reader reads the bytes: size limit, Content-Encoding (gzip, deflate, br)
  // and charset. Our own body-parser 2, not the host's express.text: Express 4's (body-parser 1)
  // cannot read br, and the API must read the same bodies on either major.
  const read = bodyParser.text({ limit, type: JSON_TYPES, defaultCharset: "utf-8" });
  return async (req, res) => {
    const length = req.headers["content-length"];
    const hasBody = req.headers["transfer-encoding"] !== undefined || (length !== undefined && length !== "0");
    if (hasBody && !req.is(JSON_TYPES)) {
      throw new PaymentError("unsupported_media_type", "Send the request body as JSON with `Content-Type: application/json`.");
    }
    const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(req.headers["content-type"] ?? "")?.[1];
    // RFC 8259: JSON is UTF-8 (the UTF-16/32 forms are tolerated, as express.json does).
    if (hasBody && charset !== undefined && !charset.toLowerCase().startsWith("utf-")) {
      throw new PaymentError("unsupported_media_type", "The request body must be UTF-8 JSON (Content-Type: application/json).");
    }
    if (!hostRead(req, hasBody)) {
      const reading = new Promise<void>((resolve, reject) => read(req, res, (error?: unknown) => (error ? reject(bodyReadError(error, req)) : resolve())));
      await readWithinDeadline(req, res, timeoutMs, reading).catch((error: unknown) => {
        if (error instanceof BodyTimeoutError) throw new PaymentError("request_timeout", error.message, { cause: error });
        throw error;
      });
    }
    req.body = parsedBody(req.body);
  };
}

/**
 * Whether a middleware of the host read the body before us: the stream is spent and `req.body`
 * holds what it made of it (body-parser 1 also marks it with `_body`). A `req.body` on an
 * unread stream is someone's default (`{}`), not the body. A spent stream and no body at all
 * is a host middleware that swallowed it: reading again would find nothing, and answering
 * "amount is required" would blame the client.
 */
function hostRead(req: Request, hasBody: boolean): boolean {
  const spent = req.readableEnded || (req.complete && !req.readable);
  if ((req as { _body?: unknown })._body === true || (req.body !== undefined && spent)) return true;
  if (hasBody && spent && req.body === undefined) {
    throw new Error(
      "express-crypto-pay: a middleware mounted before the payment router read the request body and left nothing in req.body; mount the router before it, or have it set req.body",
    );
  }
  return false;
}

/** The body as read (by us as text, or by the host's parser): JSON text or bytes are parsed here, anything else is taken as parsed. */
function parsedBody(body: unknown): unknown {
  if (Buffer.isBuffer(body)) return parseJsonText(body.toString("utf8"));
  if (typeof body === "string") return parseJsonText(body);
  return body;
}

/**
 * A decompression stream that fails (a corrupt gzip, deflate or br body) reaches us as zlib's
 * own error with no body-parser `type`; it is the client's mistake, so a 400 that says so.
 */
function bodyReadError(error: unknown, req: Request): unknown {
  if (typeof error !== "object" || error === null || "type" in error) return error;
  const encoding = String(req.headers["content-encoding"] ?? "identity").toLowerCase();
  if (encoding === "identity") return error;
  return new PaymentError(
    "validation_error",
    `The request body could not be decompressed as Content-Encoding "${encoding}": it is corrupt or not in that encoding. Send valid ${encoding} data, or the plain JSON without Content-Encoding.`,
    { cause: error },
  );
}

/** A number of the body that a double cannot hold; reported with its place once the body is parsed. */
class UnsafeNumber {
  constructor(readonly text: string) {}
}

/**
 * Parses JSON text: numbers as JSON.parse would give them, unless one does not survive the
 * trip through a double, which is refused. An empty body is `{}` (as express.json has it).
 */
export function parseJsonText(text: string): unknown {
  if (text.length === 0) return {};
  refuseDeepNesting(text);
  let unsafe = false;
  let value: unknown;
  try {
    value = parseLossless(text, undefined, {
      parseNumber: (number) => {
        if (getUnsafeNumberReason(number) === undefined) return Number(number);
        unsafe = true;
        return new UnsafeNumber(number);
      },
      // Last one wins, as with JSON.parse.
      onDuplicateKey: ({ newValue }) => newValue,
    });
  } catch (error) {
    throw new PaymentError("malformed_json", "The request body is not valid JSON.", { cause: error });
  }
  if (unsafe) refuseUnsafeNumbers(value);
  return value;
}

/**
 * Counts the nesting of the text without parsing it (a loop, not recursion), so that the
 * recursive parser never sees a body deep enough to overflow the stack.
 */
function refuseDeepNesting(text: string): void {
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (inString) {
      if (code === 0x5c)
        index++; // backslash: skip the escaped character
      else if (code === 0x22) inString = false;
    } else if (code === 0x22) {
      inString = true;
    } else if (code === 0x7b || code === 0x5b) {
      if (++depth > MAX_BODY_DEPTH) {
        throw new PaymentError(
          "validation_error",
          `Invalid request: the body nests objects and arrays more than ${MAX_BODY_DEPTH} levels deep (metadata may nest at most ${METADATA_MAX_DEPTH} levels).`,
        );
      }
    } else if (code === 0x7d || code === 0x5d) {
      depth--;
    }
  }
}

/** Finds the first unsafe number (depth-first, in document order) and refuses it, naming its field as the schema errors do. */
function refuseUnsafeNumbers(root: unknown): void {
  const stack: Array<{ value: unknown; path: string[] }> = [{ value: root, path: [] }];
  while (stack.length > 0) {
    const { value, path } = stack.pop()!;
    if (value instanceof UnsafeNumber) throw unsafeNumberError(value.text, path);
    if (typeof value !== "object" || value === null) continue;
    const entries = Object.entries(value);
    for (let index = entries.length - 1; index >= 0; index--) {
      const [key, child] = entries[index]!;
      if (typeof child === "object" && child !== null) stack.push({ value: child, path: [...path, key] });
    }
  }
}

function unsafeNumberError(text: string, path: string[]): PaymentError {
  const field = path.length > 0 ? path.join(".") : "the body";
  const shown = text.length > 40 ? `${text.slice(0, 40)}...` : text;
  const problem = (() => {
    switch (getUnsafeNumberReason(text)) {
      case "overflow":
        return `the number ${shown} is too large to be accepted`;
      case "underflow":
        return `the number ${shown} is too small to be represented; send 0 or a larger number`;
      case "truncate_integer":
        return `the number ${shown} has more digits than can be accepted exactly (a JSON number is exact up to 9007199254740991); send it as a string`;
      default:
        return `the number ${shown} has more precision than can be accepted exactly; amounts may have no more decimals than their currency allows`;
    }
  })();
  return new PaymentError("validation_error", `Invalid request: ${field}: ${problem}.`);
}
