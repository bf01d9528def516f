import type { Request, RequestHandler, Response, Router } from "express";
import type { z } from "zod";
import type { Scope } from "../adapters/storage/types";
import { scopeOf } from "./auth";
import { parseBody } from "./validate";

/** What a route handler gets besides its parsed body. */
export interface RouteCall {
  scope: Scope;
  req: Request;
  res: Response;
}

/**
 * Registers JSON routes on a router with the shared middleware in front (body parsing, auth)
 * and remembers their paths, so that the fallback can tell "wrong method" from "no such path".
 * Handlers only parse -> call core -> return what to send.
 */
export class RouteTable {
  /** Path -> method of every route registered. */
  readonly known = new Map<string, string>();

  constructor(
    private readonly router: Router,
    private readonly before: RequestHandler[],
  ) {}

  /**
   * A POST route whose body is checked by `schema` before `handle` runs. `guard` runs before
   * the body is looked at, so a caller who may not use the route learns nothing from its schema.
   */
  post<Schema extends z.ZodType>(
    path: string,
    schema: Schema,
    handle: (input: z.output<Schema>, call: RouteCall) => Promise<unknown> | unknown,
    guard?: (scope: Scope) => void,
  ): void {
    this.known.set(path, "POST");
    this.router.post(path, ...this.before, async (req, res) => {
      guard?.(scopeOf(res));
      const input = parseBody(schema, req.body);
      res.json(await handle(input, { scope: scopeOf(res), req, res }));
    });
  }
}
