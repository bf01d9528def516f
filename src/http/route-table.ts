import { parse as parseQuery } from "node:querystring";
import type { Request, RequestHandler, Response } from "express";
import type { z } from "zod";
import type { Scope, StorageReads } from "../core/ports/storage/index";
import { PaymentError } from "../errors";
import { classifyApiError } from "../api-errors";
import { requestHash, type CommitHook, type KeyClaim, type StoredAnswer } from "../core/idempotency";
import type { Caller } from "../core/merchants";
import type { MerchantRecord } from "../core/ports/records";
import { asyncHandler } from "../express/async-handler";
import { sendRawJson } from "./send-json";
import { isPossibleId, UNKNOWN_RECORD, unknownRecordMessage } from "../schemas/fields";
import { parseBody } from "./validate";
import { unstorableTextProblem } from "../schemas/storable-text";

/** What a route handler gets besides its parsed input. */
export interface RouteCall {
  scope: Scope;
  /** The caller's merchant, as read with its API key. */
  merchant: MerchantRecord;
  /** Who asks: the API key's id; null for an in-process call. */
  actor: string | null;
  /** Path parameters (`:id`), already URL-decoded. */
  params: Record<string, string>;
  /**
   * Set when a creating route is called with an `Idempotency-Key`: the hook to hand the core
   * operation as its `onCommit`. It stores `present(created)` as the key's answer inside the
   * transaction that commits the operation, so no crash can leave one without the other.
   * `present` may differ from what the route answers now (a secret shown once is left out).
   */
  commitAnswer?: <T>(present: (created: T, reads: StorageReads) => unknown) => CommitHook<T>;
  /** The HTTP request and response; absent for in-process calls (`router.forMerchant`). */
  req?: Request;
  res?: Response;
}

/** The HTTP methods a route table serves. */
export type Method = "GET" | "POST" | "DELETE";

interface Route {
  schema: z.ZodType;
  handle: (input: never, call: RouteCall) => unknown;
  guard?: (scope: Scope) => void;
  idempotent?: boolean;
}

/** One path (possibly with `:param` segments) and its routes by method. */
interface PathEntry {
  segments: string[];
  methods: Map<Method, Route>;
}

/** The steps every route shares, in order: read the JSON body, then authenticate. */
export interface RouteSteps {
  readBody: (req: Request, res: Response) => Promise<void>;
  authenticate: (req: Request) => Promise<Caller>;
  /** Runs a creating request once per `Idempotency-Key`, replaying its stored answer after. */
  idempotency?: (
    scope: Scope,
    key: string,
    requestHash: string,
    work: (claim: KeyClaim) => Promise<StoredAnswer>,
  ) => Promise<StoredAnswer & { replayed: boolean }>;
  /** Watches each HTTP request (metrics, traces); absent, requests cost nothing more. */
  observer?: RequestObserver;
}

/**
 * Watches API requests: `begin` when one arrives, `route` with its template (`/v1/payments/:id`,
 * never the path itself, so labels stay bounded) once it is matched, `end` with the status sent.
 */
export interface RequestObserver {
  begin(method: string): RequestObservation;
}

/** One request being watched (see {@link RequestObserver}). */
export interface RequestObservation {
  route(template: string): void;
  end(status: number): void;
}

/**
 * What the OpenAPI document says about a route. Optional for the type checker, but
 * test/http/openapi.test.ts fails for any registered route without it.
 */
export interface RouteDocs {
  /** One line, shown in the reference's list of operations. */
  summary: string;
  /** Markdown: behaviour, rules and anything a caller must know beyond the schemas. */
  description?: string;
  /** Schema of the 200 answer (from src/schemas/resources.ts). */
  response: z.ZodType;
  /** Groups in the reference page; defaults to none. */
  tags?: string[];
  /**
   * HTTP statuses of the error answers this route can give besides the ones every route has
   * (401, and 400 where there is input to reject). Each is documented with the error object.
   */
  errors?: number[];
}

/** Route options: `guard` runs before the input is read, so a caller who may not use the route learns nothing from its schema. */
export interface RouteOptions {
  guard?: (scope: Scope) => void;
  /** A creating POST: honours `Idempotency-Key` (the same key and body replay the first answer). */
  idempotent?: boolean;
  /** The route's entry in the OpenAPI document. */
  docs?: RouteDocs;
}

/** A registered route as the OpenAPI document describes it. */
export interface RouteOperation {
  method: Method;
  /** Path under the table's prefix in OpenAPI form: `/webhook-endpoints/{id}`. */
  path: string;
  /** Names of the path parameters, in order. */
  pathParams: string[];
  /** The schema that checks the input. */
  input: z.ZodType;
  /** Where the input is read from: the JSON body (POST), the query string (GET), or nowhere (DELETE). */
  inputIn: "body" | "query" | "none";
  /** Honours `Idempotency-Key`. */
  idempotent: boolean;
  docs: RouteDocs | undefined;
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
  /** Every route in registration order, keyed by method and path, for the OpenAPI document. */
  private readonly registry = new Map<string, RouteOperation>();

  /** `prefix`: where the table is mounted in the router ("/v1"), part of each idempotency key's request. */
  constructor(
    private readonly steps: RouteSteps,
    private readonly prefix: string,
  ) {}

  /** A POST route whose JSON body is checked by `schema`. */
  post<Schema extends z.ZodType>(path: string, schema: Schema, handle: (input: z.output<Schema>, call: RouteCall) => unknown, options?: RouteOptions): void {
    this.add("POST", path, { schema, handle, guard: options?.guard, idempotent: options?.idempotent }, options?.docs);
  }

  /** A GET route whose query string is checked by `schema`. */
  get<Schema extends z.ZodType>(path: string, schema: Schema, handle: (input: z.output<Schema>, call: RouteCall) => unknown, options?: RouteOptions): void {
    this.add("GET", path, { schema, handle, guard: options?.guard }, options?.docs);
  }

  /** A DELETE route (no body, no query). */
  delete<Schema extends z.ZodType>(path: string, schema: Schema, handle: (input: z.output<Schema>, call: RouteCall) => unknown, options?: RouteOptions): void {
    this.add("DELETE", path, { schema, handle, guard: options?.guard }, options?.docs);
  }

  /** The registered routes, in registration order, with their docs. */
  operations(): RouteOperation[] {
    return [...this.registry.values()];
  }

  private add(method: Method, path: string, route: Route, docs: RouteDocs | undefined): void {
    const segments = path.split("/").slice(1);
    const pathParams = segments.filter((segment) => segment.startsWith(":")).map((segment) => segment.slice(1));
    const openApiPath = `/${segments.map((segment) => (segment.startsWith(":") ? `{${segment.slice(1)}}` : segment)).join("/")}`;
    const inputIn = method === "POST" ? "body" : method === "GET" ? "query" : "none";
    this.registry.set(`${method} ${openApiPath}`, {
      method,
      path: openApiPath,
      pathParams,
      input: route.schema,
      inputIn,
      idempotent: route.idempotent ?? false,
      docs,
    });
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
    const serve = async (req: Request, res: Response, observation?: RequestObservation) => {
      const path = req.path.length > 1 && req.path.endsWith("/") ? req.path.slice(0, -1) : req.path;
      const found = this.find(path);
      if (!found) throw new PaymentError("route_not_found", `No endpoint ${req.method} ${req.baseUrl}${path}.`);
      observation?.route(`${this.prefix}/${found.entry.segments.join("/")}`);
      const route = found.entry.methods.get(req.method as Method);
      if (!route) {
        const allowed = [...found.entry.methods.keys()].join(", ");
        res.set("Allow", allowed);
        throw new PaymentError("method_not_allowed", `${req.baseUrl}${path} answers ${allowed} only.`);
      }
      if (req.method === "POST") await this.steps.readBody(req, res);
      const caller = await this.steps.authenticate(req);
      const key = req.headers["idempotency-key"];
      const input = req.method === "GET" ? queryOf(req) : req.body;
      const answer = await this.run({
        path,
        found,
        route,
        method: req.method as Method,
        caller,
        input,
        key: typeof key === "string" ? key : undefined,
        req,
        res,
      });
      if (answer.replayed) res.setHeader("Idempotent-Replayed", "true");
      sendRawJson(res, answer.status, answer.body);
    };
    const observer = this.steps.observer;
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
   * Calls one route in process, as an authenticated HTTP request would (the in-process API):
   * the same guard, validation, idempotency and handler. Resolves with the answer's JSON;
   * rejects with the `PaymentError` the HTTP API would have answered.
   */
  async invoke(request: { method: Method; path: string; input: unknown; caller: Caller; idempotencyKey?: string }): Promise<unknown> {
    try {
      const found = this.find(request.path);
      const route = found?.entry.methods.get(request.method);
      if (!found || !route) throw new PaymentError("route_not_found", `No endpoint ${request.method} ${this.prefix}${request.path}.`);
      const answer = await this.run({ ...request, found, route, key: request.idempotencyKey });
      const body = JSON.parse(answer.body) as unknown;
      if (answer.status >= 400) throw PaymentError.fromBody(body) ?? new PaymentError("internal_error", "An error answer outside the catalogue.");
      return body;
    } catch (error) {
      // The classes the HTTP client throws for the same answers, so one `catch` serves both.
      throw error instanceof PaymentError ? classifyApiError(error) : error;
    }
  }

  /**
   * The steps after authentication, shared by HTTP and in-process calls: guard, input, ids, then
   * the handler, under the `Idempotency-Key` when the route creates. Errors of routes that do
   * not create are thrown; a creating route's client errors are answers (stored with the key).
   */
  private async run(call: {
    path: string;
    found: { entry: PathEntry; params: Record<string, string> };
    route: Route;
    method: Method;
    caller: Caller;
    input: unknown;
    key: string | undefined;
    req?: Request;
    res?: Response;
  }): Promise<StoredAnswer & { replayed: boolean }> {
    const { found, route, caller } = call;
    route.guard?.(caller.scope);
    const input = parseInput(route.schema, call.input) as never;
    refuseImpossibleIds(found.entry.segments, found.params);
    const routeCall: RouteCall = { scope: caller.scope, merchant: caller.merchant, actor: caller.actor, params: found.params, req: call.req, res: call.res };
    if (route.idempotent && call.key !== undefined && this.steps.idempotency) {
      const hash = requestHash(call.method, this.prefix + call.path, call.input);
      return this.steps.idempotency(caller.scope, call.key, hash, (claim) => storedAnswer(route, input, { ...routeCall, commitAnswer: answerHook(claim) }));
    }
    return { status: 200, body: JSON.stringify(await route.handle(input, routeCall)), replayed: false };
  }
}

/**
 * Parses a route's input. A field that names a record that cannot exist (a `recordId` with a NUL
 * or a foreign alphabet) is answered 404 as an unknown id would be, once nothing else is wrong:
 * a malformed id and a well-formed unknown one must look the same.
 */
function parseInput(schema: z.ZodType, input: unknown): unknown {
  const result = schema.safeParse(input ?? {}, { reportInput: true });
  if (result.success) {
    // One check for every route's free text (metadata keys and values, descriptions, names):
    // what no storage can keep is a 400 naming the field, on every storage alike.
    const unstorable = unstorableTextProblem(result.data);
    if (unstorable !== null) throw new PaymentError("validation_error", `Invalid request: ${unstorable}.`);
    return result.data;
  }
  const unknown = result.error.issues.map((issue) => (issue.code === "custom" ? (issue.params?.[UNKNOWN_RECORD] as string | undefined) : undefined));
  const first = result.error.issues[0]!;
  if (unknown.every((what) => what !== undefined)) {
    throw new PaymentError("not_found", unknownRecordMessage(unknown[0]!, String((first as { input?: unknown }).input)));
  }
  return parseBody(schema, input);
}

/**
 * Path parameters are ids of our records (`/payments/:id`). One that cannot be an id (NUL,
 * control characters, another alphabet, any length we never issue) gets the 404 of an unknown
 * id here, for every route at once, instead of reaching the storage (PostgreSQL refuses NUL).
 */
function refuseImpossibleIds(segments: readonly string[], params: Record<string, string>): void {
  segments.forEach((segment, index) => {
    if (!segment.startsWith(":")) return;
    const value = params[segment.slice(1)]!;
    if (!isPossibleId(value)) throw new PaymentError("not_found", unknownRecordMessage(recordName(segments[index - 1]), value));
  });
}

/** "payment-links" -> "payment link", "webhook-deliveries" -> "webhook delivery". */
function recordName(collection: string | undefined): string {
  if (!collection) return "record";
  return collection.replace(/-/g, " ").replace(/ies$/, "y").replace(/s$/, "");
}

/** `RouteCall.commitAnswer` for one claimed key: the answer is a 200 with the presented record. */
function answerHook(claim: KeyClaim): RouteCall["commitAnswer"] {
  return (present) => async (tx, created) => claim.commitIn(tx, { status: 200, body: JSON.stringify(await present(created, tx)) });
}

/**
 * Runs a route and keeps its answer as it will be sent: a client error (4xx) is an answer
 * too, stored and replayed like a success; anything else propagates and is not stored.
 */
async function storedAnswer(route: Route, input: never, call: RouteCall): Promise<StoredAnswer> {
  try {
    return { status: 200, body: JSON.stringify(await route.handle(input, call)) };
  } catch (error) {
    if (error instanceof PaymentError && error.status < 500) return { status: error.status, body: JSON.stringify(error.toJSON()) };
    throw error;
  }
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
