import express, { type ErrorRequestHandler, type NextFunction, type Request, type RequestHandler, type Response, type Router } from "express";
import { closingError, type Doors } from "../service/doors";
import { sendJson } from "./send-json";

/**
 * The service's doors (service/doors.ts) as Express middleware. Every request a router answers
 * is counted from when it comes in until its answer is sent or it leaves for the host app; once
 * the service closes, a request that comes is answered 503 (50321) with nothing done.
 */
export class RequestGate {
  constructor(private readonly doors: Doors) {}

  /** Middleware in front of the router's own handlers: counts the request in, or answers 503 once closing. */
  readonly enter: RequestHandler = (req: Request, res: Response, next: NextFunction) => {
    const entry = this.doors.enter(req);
    if (entry === "inside") return next();
    if (entry === "closed") {
      res.setHeader("Retry-After", "1");
      res.setHeader("Cache-Control", "no-store");
      const error = closingError();
      return sendJson(res, error.status, error.toJSON());
    }
    // Over when its handler ends the answer: not at the socket's "close", which a client that
    // went away fires while the handler still works (and would let the storage close under it).
    // A handler that ends the answer has done its work, whether or not the client still listens.
    const end = res.end;
    res.end = ((...args: Parameters<Response["end"]>) => {
      res.end = end;
      const result = end.apply(res, args);
      this.doors.leave(req);
      return result;
    }) as Response["end"];
    next();
  };

  /** Middleware after the router's handlers: a request none of them answered leaves for the host app. */
  readonly passOn: RequestHandler = (req, _res, next) => {
    this.doors.leave(req);
    next();
  };

  /** The same, for an error passed on to the host app's error handlers. */
  readonly passOnError: ErrorRequestHandler = (error, req, _res, next) => {
    this.doors.leave(req);
    next(error);
  };

  /** `inner` behind the gate: counted while it answers, 503 once closing, and let go when it passes a request on. */
  around(inner: Router): Router {
    const outer = express.Router();
    outer.use(this.enter, inner, this.passOn, this.passOnError);
    return outer;
  }
}
