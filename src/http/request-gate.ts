import type { ErrorRequestHandler, NextFunction, Request, RequestHandler, Response } from "express";
import { PaymentError } from "../errors";
import { sendJson } from "./send-json";

/** The answer to a request that comes once `close()` began: nothing of it was done. */
function closingError(): PaymentError {
  return new PaymentError(
    "service_closing",
    "The payment service is shutting down: nothing was done for this request. Send it again: another instance, or this one restarted, will answer it.",
  );
}

/**
 * The router's doors, for a clean stop. Every request the router answers (its API, its pages,
 * the dashboard, in-process calls) is counted from when it comes in until its answer is sent or
 * it leaves for the host app; `close()` shuts the doors, then waits for the count to reach zero
 * before the storage closes. So an answer sent before is never a 500 of a closed storage (a 2xx
 * means it is stored), and a request that comes after is answered 503 (50321) with nothing done.
 */
export class RequestGate {
  private open = true;
  private inFlight = 0;
  private readonly entered = new WeakSet<Request>();
  private drainedWaiters: Array<() => void> = [];

  /** Middleware in front of the router's own handlers: counts the request in, or answers 503 once closing. */
  readonly enter: RequestHandler = (req: Request, res: Response, next: NextFunction) => {
    if (this.entered.has(req)) return next();
    if (!this.open) {
      res.setHeader("Retry-After", "1");
      res.setHeader("Cache-Control", "no-store");
      const error = closingError();
      return sendJson(res, error.status, error.toJSON());
    }
    this.entered.add(req);
    this.inFlight++;
    // Over when its handler ends the answer: not at the socket's "close", which a client that
    // went away fires while the handler still works (and would let the storage close under it).
    // A handler that ends the answer has done its work, whether or not the client still listens.
    const end = res.end;
    res.end = ((...args: Parameters<Response["end"]>) => {
      res.end = end;
      const result = end.apply(res, args);
      this.leave(req);
      return result;
    }) as Response["end"];
    next();
  };

  /** Middleware after the router's handlers: a request none of them answered leaves for the host app. */
  readonly passOn: RequestHandler = (req, _res, next) => {
    this.leave(req);
    next();
  };

  /** The same, for an error passed on to the host app's error handlers. */
  readonly passOnError: ErrorRequestHandler = (error, req, _res, next) => {
    this.leave(req);
    next(error);
  };

  /** Runs an in-process call through the doors: counted while it runs, refused with 503 (50321) once closing. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    if (!this.open) throw closingError();
    this.inFlight++;
    try {
      return await work();
    } finally {
      this.done();
    }
  }

  /** Shuts the doors: every request from now on is answered 503; those in flight go on. */
  close(): void {
    this.open = false;
  }

  /** Resolves when no request is in flight any more. */
  drained(): Promise<void> {
    if (this.inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => this.drainedWaiters.push(resolve));
  }

  private leave(req: Request): void {
    if (!this.entered.delete(req)) return;
    this.done();
  }

  private done(): void {
    this.inFlight--;
    if (this.inFlight > 0) return;
    const waiters = this.drainedWaiters;
    this.drainedWaiters = [];
    for (const resolve of waiters) resolve();
  }
}
