import { parse as parseQuery } from "node:querystring";
import type { Request, RequestHandler, Response } from "express";
import type { Method, RouteTable } from "../api/route-table";
import type { Caller } from "../core/merchants/merchants";
import { PaymentError } from "../errors";
import type { RequestObservation, RequestObserver } from "../ops/request-observer";
import { asyncHandler } from "../express/async-handler";
import { sendRawJson } from "./send-json";

/** The HTTP steps in front of every route of a table, in order: read the JSON body, then authenticate. */
export interface HttpSteps {
  readBody: (req: Request, res: Response) => Promise<void>;
  authenticate: (req: Request) => Promise<Caller>;
  /** Watches each HTTP request (metrics, traces); absent, requests cost nothing more. */
  observer?: RequestObserver;
  /** Where the links a request's answer builds start: its origin and the path the host mounted the router at. */
  linkBase: (req: Request) => string;
}

/**
 * The middleware that serves every route of `table` over HTTP (mounted at its prefix): unknown
 * paths get 404, other methods 405. The routes themselves are transport-neutral (src/api).
 */
export function tableDispatcher(table: RouteTable, steps: HttpSteps): RequestHandler {
  const serve = async (req: Request, res: Response, observation?: RequestObservation) => {
    const path = req.path.length > 1 && req.path.endsWith("/") ? req.path.slice(0, -1) : req.path;
    const match = table.match(path);
    if (!match) throw new PaymentError("route_not_found", `No endpoint ${req.method} ${req.baseUrl}${path}.`);
    observation?.route(match.template);
    if (!match.methods.includes(req.method as Method)) {
      const allowed = match.methods.join(", ");
      res.set("Allow", allowed);
      throw new PaymentError("method_not_allowed", `${req.baseUrl}${path} answers ${allowed} only.`);
    }
    if (req.method === "POST") await steps.readBody(req, res);
    const caller = await steps.authenticate(req);
    const key = req.headers["idempotency-key"];
    const answer = await table.answer(match, {
      path,
      method: req.method as Method,
      caller,
      input: req.method === "GET" ? queryOf(req) : req.body,
      idempotencyKey: typeof key === "string" ? key : undefined,
      linkBase: () => steps.linkBase(req),
    });
    if (answer.replayed) res.setHeader("Idempotent-Replayed", "true");
    sendRawJson(res, answer.status, answer.body);
  };
  const observer = steps.observer;
  if (!observer) return asyncHandler((req, res) => serve(req, res));
  return (req, res, next) => {
    const observation = observer.begin(req.method);
    serve(req, res, observation).then(
      () => observation.end(res.statusCode),
      (error: unknown) => {
        // The error handler after the dispatcher answers: its status is read once sent. Only
        // here: a "finish" or "close" listener on every response showed as lost throughput
        // in bench/metrics.ts.
        res.once("finish", () => observation.end(res.statusCode));
        next(error);
      },
    );
  };
}

/**
 * The query string, read here with node:querystring (Express 5's default parser) rather than
 * taken from `req.query`, which is whatever the host's `query parser` setting makes of it: qs
 * on Express 4 (`?status[x]=1` becomes an object), nothing at all when a host turned it off.
 * The API reads the same query the same way on any host.
 */
function queryOf(req: Request): Record<string, unknown> {
  const start = req.url.indexOf("?");
  return start === -1 ? {} : { ...parseQuery(req.url.slice(start + 1)) };
}
