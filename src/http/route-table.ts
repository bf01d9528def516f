import type { Request, RequestHandler, Response } from "express";
import type { z } from "zod";
import type { Scope } from "../adapters/storage/types";
import { PaymentError } from "../errors";
import { sendJson } from "./send-json";
import { parseBody } from "./validate";

/** What a route handler gets besides its parsed input. */
export interface RouteCall {
  scope: Scope;
  /** Path parameters (`:id`), already URL-decoded. */
  params: Record<string, string>;
  req: Request;
  res: Response;
}

type Method = "GET" | "POST" | "DELETE";

interface Route {
  schema: z.ZodType;
  handle: (input: never, call: RouteCall) => unknown;
  guard?: (scope: Scope) => void;
}

/** One path (possibly with `:param` segments) and its routes by method. */
interface PathEntry {
  segments: string[];
  methods: Map<Method, Route>;
}

/** The steps every route shares, in order: read the JSON body, then authenticate. */
export interface RouteSteps {
  readBody: (req: Request, res: Response) => Promise<void>;
  authenticate: (req: Request) => Promise<Scope>;
}

/** Route options: `guard` runs before the input is read, so a caller who may not use the route learns nothing from its schema. */
export interface RouteOptions {
  guard?: (scope: Scope) => void;
}

/**
 * The JSON endpoints under one prefix. Static paths are found with one map lookup and paths
 * with parameters by comparing segments, so the per-request cost stays flat as routes are
 * added. Every route has the same steps (body, auth, guard, schema, handler), run in one
 * function instead of a chain of Express layers. Handlers only parse -> call core -> return
 * what to send.
 */
export class RouteTable {
  private readonly exact = new Map<string, PathEntry>();
  private readonly patterns: PathEntry[] = [];

  constructor(private readonly steps: RouteSteps) {}

  /** A POST route whose JSON body is checked by `schema`. */
  post<Schema extends z.ZodType>(path: string, schema: Schema, handle: (input: z.output<Schema>, call: RouteCall) => unknown, options?: RouteOptions): void {
    this.add("POST", path, { schema, handle, guard: options?.guard });
  }

  /** A GET route whose query string is checked by `schema`. */
  get<Schema extends z.ZodType>(path: string, schema: Schema, handle: (input: z.output<Schema>, call: RouteCall) => unknown, options?: RouteOptions): void {
    this.add("GET", path, { schema, handle, guard: options?.guard });
  }

  /** A DELETE route (no body, no query). */
  delete<Schema extends z.ZodType>(path: string, schema: Schema, handle: (input: z.output<Schema>, call: RouteCall) => unknown, options?: RouteOptions): void {
    this.add("DELETE", path, { schema, handle, guard: options?.guard });
  }

  private add(method: Method, path: string, route: Route): void {
    const segments = path.split("/").slice(1);
    const dynamic = segments.some((segment) => segment.startsWith(":"));
    let entry = dynamic ? this.patterns.find((candidate) => candidate.segments.join("/") === segments.join("/")) : this.exact.get(path);
    if (!entry) {
      entry = { segments, methods: new Map() };
      if (dynamic) this.patterns.push(entry);
      else this.exact.set(path, entry);
    }
    entry.methods.set(method, route);
  }

  private find(path: string): { entry: PathEntry; params: Record<string, string> } | null {
    const exact = this.exact.get(path);
    if (exact) return { entry: exact, params: {} };
    const parts = path.split("/").slice(1);
    for (const entry of this.patterns) {
      if (entry.segments.length !== parts.length) continue;
      const params: Record<string, string> = {};
      const matches = entry.segments.every((segment, index) => {
        const part = parts[index]!;
        if (!segment.startsWith(":")) return segment === part;
        if (part === "") return false;
        try {
          params[segment.slice(1)] = decodeURIComponent(part);
        } catch {
          return false;
        }
        return true;
      });
      if (matches) return { entry, params };
    }
    return null;
  }

  /** The middleware that serves every registered route; unknown paths get 404, other methods 405. */
  dispatcher(): RequestHandler {
    return async (req, res) => {
      const path = req.path.length > 1 && req.path.endsWith("/") ? req.path.slice(0, -1) : req.path;
      const found = this.find(path);
      if (!found) throw new PaymentError("route_not_found", `No endpoint ${req.method} ${req.baseUrl}${path}.`);
      const route = found.entry.methods.get(req.method as Method);
      if (!route) {
        const allowed = [...found.entry.methods.keys()].join(", ");
        res.set("Allow", allowed);
        throw new PaymentError("method_not_allowed", `${req.baseUrl}${path} answers ${allowed} only.`);
      }
      if (req.method === "POST") await this.steps.readBody(req, res);
      const scope = await this.steps.authenticate(req);
      route.guard?.(scope);
      const input = parseBody(route.schema, req.method === "GET" ? { ...req.query } : req.body) as never;
      sendJson(res, 200, await route.handle(input, { scope, params: found.params, req, res }));
    };
  }
}
