import express, { type RequestHandler } from "express";
import { BodyTimeoutError, readWithinDeadline } from "../body-deadline";
import { unstorableTextProblem } from "../schemas/storable-text";

/**
 * The hosted pages' form reader (a coin choice, a payment link's button): urlencoded, at most
 * 2 kB and 10 fields unless `size` allows more, and read within `timeoutMs` like the API's
 * bodies. A form body that never ends would otherwise hold the request until Node's own
 * timeout; past the deadline this passes on a 408 error, which the /pay error page shows, and
 * the connection is closed after it. A field holding a NUL (`%00`), which no storage can keep,
 * passes on a 400 error the same way: the form is refused whole, as the API refuses such text.
 */
export function formBodyReader(timeoutMs: number, size: { limit: string; parameterLimit: number } = { limit: "2kb", parameterLimit: 10 }): RequestHandler {
  const parse = express.urlencoded({ extended: false, ...size });
  return (req, res, next) => {
    const parsed = new Promise<void>((resolve, reject) => parse(req, res, (error?: unknown) => (error ? reject(error) : resolve())));
    readWithinDeadline(req, res, timeoutMs, parsed).then(
      () => {
        const unstorable = unstorableTextProblem(req.body);
        next(unstorable === null ? undefined : Object.assign(new Error(`The form could not be read: ${unstorable}.`), { status: 400 }));
      },
      (error: unknown) => next(error instanceof BodyTimeoutError ? Object.assign(error, { status: 408 }) : error),
    );
  };
}
