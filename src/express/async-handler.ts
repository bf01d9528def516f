import type { ErrorRequestHandler, NextFunction, Request, RequestHandler, Response } from "express";

/**
 * Wraps an async handler so that its rejection reaches `next`, on Express 4 as on Express 5.
 * Express 5 does this itself; Express 4 ignores the promise a handler returns, so a rejection
 * would leave the request unanswered and the host process with an unhandled rejection (which
 * ends it on Node's default settings). Every async handler of the router goes through this.
 */
export function asyncHandler(handler: (req: Request, res: Response, next: NextFunction) => Promise<unknown>): RequestHandler {
  return (req, res, next) => {
    handler(req, res, next).catch(next);
  };
}

/**
 * The same for an error handler. Express tells error handlers by their four parameters, so
 * this one keeps them.
 */
export function asyncErrorHandler(handler: (error: unknown, req: Request, res: Response, next: NextFunction) => Promise<unknown>): ErrorRequestHandler {
  return (error, req, res, next) => {
    handler(error, req, res, next).catch(next);
  };
}
