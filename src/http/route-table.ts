import type { Request, RequestHandler, Response } from "express";
import type { z } from "zod";
import type { Scope } from "../adapters/storage/types";
import { PaymentError } from "../errors";
import { sendJson } from "./send-json";
import { parseBody } from "./validate";

/** What a route handler gets besides its parsed body. */
export interface RouteCall {
  scope: Scope;
  req: Request;
  res: Response;
}

interface Route {
  method: string;
  schema: z.ZodType;
  handle: (input: never, call: RouteCall) => unknown;
  guard?: (scope: Scope) => void;
}

/** The steps every route shares, in order: read the JSON body, then authenticate. */
export interface RouteSteps {
  readBody: (req: Request, res: Response) => Promise<void>;
  authenticate: (req: Request) => Promise<Scope>;
}

/**
 * The JSON endpoints under one prefix, dispatched by one map lookup. Every route has the same
 * steps (body, auth, guard, schema, handler), so they run in one function instead of a chain
 * of Express layers: the per-request cost of the router stays flat however many routes exist.
 * Handlers only parse -> call core -> return what to send.
 */
export class RouteTable {
  private readonly routes = new Map<string, Route>();

  constructor(private readonly steps: RouteSteps) {}

  /**
   * A POST route whose body is checked by `schema` before `handle` runs. `guard` runs before
   * the body is looked at, so a caller who may not use the route learns nothing from its schema.
   */
  post<Schema extends z.ZodType>(
    path: string,
    schema: Schema,
    handle: (input: z.output<Schema>, call: RouteCall) => unknown,
    guard?: (scope: Scope) => void,
  ): void {
    this.routes.set(path, { method: "POST", schema, handle, guard });
  }

  /** The middleware that serves every registered route; unknown paths get 404, other methods 405. */
  dispatcher(): RequestHandler {
    return async (req, res) => {
      const path = req.path.length > 1 && req.path.endsWith("/") ? req.path.slice(0, -1) : req.path;
      const route = this.routes.get(path);
      if (!route) throw new PaymentError("route_not_found", `No endpoint ${req.method} ${req.baseUrl}${path}.`);
      if (req.method !== route.method) {
        res.set("Allow", route.method);
        throw new PaymentError("method_not_allowed", `${req.baseUrl}${path} answers ${route.method} only.`);
      }
      await this.steps.readBody(req, res);
      const scope = await this.steps.authenticate(req);
      route.guard?.(scope);
      const input = parseBody(route.schema, req.body) as never;
      sendJson(res, 200, await route.handle(input, { scope, req, res }));
    };
  }
}
