import type { z } from "zod";
import type { Scope, StorageReads } from "../core/ports/storage/index";
import { PaymentError } from "../errors";
import { classifyApiError } from "../api-errors";
import { requestHash, type CommitHook, type KeyClaim, type StoredAnswer } from "../core/idempotency/idempotency";
import type { Caller } from "../core/merchants/merchants";
import type { MerchantRecord } from "../core/merchants/records";
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
  /**
   * Where the links this call builds start (origin and mount path), as the transport that
   * carried it sees them (HTTP: the request's origin and base URL). Read only when a link is
   * built; absent for in-process calls (`service.forMerchant`), which use the configured ones.
   */
  linkBase?: () => string;
}

/** The HTTP methods a route table serves. */
export type Method = "GET" | "POST" | "DELETE";

/** One registered route (internal to the table). */
export interface Route {
  schema: z.ZodType;
  handle: (input: never, call: RouteCall) => unknown;
  guard?: (scope: Scope) => void;
  idempotent?: boolean;
}

/** One path (possibly with `:param` segments) and its routes by method (internal to the table). */
export interface PathEntry {
  segments: string[];
  methods: Map<Method, Route>;
}

/** Runs a creating request once per `Idempotency-Key`, replaying its stored answer after. */
export type IdempotencyStep = (
  scope: Scope,
  key: string,
  requestHash: string,
  work: (claim: KeyClaim) => Promise<StoredAnswer>,
) => Promise<StoredAnswer & { replayed: boolean }>;

/** A path found in a table: its routes by method and the path parameters it names. */
export interface RouteMatch {
  /** The route template under the table's prefix, `/v1/payments/:id` (never the path itself). */
  readonly template: string;
  /** The methods the path answers, in registration order. */
  readonly methods: Method[];
  /** @internal */
  readonly entry: PathEntry;
  /** @internal */
  readonly params: Record<string, string>;
}

/** One call of a matched path, as a transport hands it over once the caller is authenticated. */
export interface RouteRequest {
  method: Method;
  /** The path under the table's prefix. */
  path: string;
  caller: Caller;
  input: unknown;
  idempotencyKey: string | undefined;
  linkBase?: () => string;
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
 * The JSON endpoints under one prefix, without a transport: HTTP (http/route-table.ts) and
 * in-process calls (`invoke`) run the same routes. Static paths are found with one map lookup
 * and paths with parameters by comparing segments, so the per-request cost stays flat as routes
 * are added. Every route has the same steps (guard, schema, ids, handler under its idempotency
 * key), run in one function. Handlers only parse -> call core -> return what to send.
 */
export class RouteTable {
  private readonly exact = new Map<string, PathEntry>();
  private readonly patterns: PathEntry[] = [];
  /** Every route in registration order, keyed by method and path, for the OpenAPI document. */
  private readonly registry = new Map<string, RouteOperation>();

  /**
   * `prefix`: where the table is mounted ("/v1"), part of each idempotency key's request.
   * `idempotency`: runs creating calls under their key; absent, keys are ignored.
   */
  constructor(
    readonly prefix: string,
    private readonly idempotency?: IdempotencyStep,
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

  /** The entry of `path` (under the prefix) and its parameters, URL-decoded; null when no route has it. */
  match(path: string): RouteMatch | null {
    const found = this.find(path);
    if (!found) return null;
    const { entry, params } = found;
    return { template: `${this.prefix}/${entry.segments.join("/")}`, methods: [...entry.methods.keys()], entry, params };
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

  /**
   * Answers one authenticated call of a matched path, for a transport: the answer as it is to be
   * sent (a creating route's client error is an answer too), and whether it replays a stored one.
   * `match` must have a route for `request.method`.
   */
  answer(match: RouteMatch, request: RouteRequest): Promise<StoredAnswer & { replayed: boolean }> {
    const route = match.entry.methods.get(request.method)!;
    return this.run({ ...request, found: match, route, key: request.idempotencyKey });
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
    linkBase?: () => string;
  }): Promise<StoredAnswer & { replayed: boolean }> {
    const { found, route, caller } = call;
    route.guard?.(caller.scope);
    const input = parseInput(route.schema, call.input) as never;
    refuseImpossibleIds(found.entry.segments, found.params);
    const routeCall: RouteCall = { scope: caller.scope, merchant: caller.merchant, actor: caller.actor, params: found.params, linkBase: call.linkBase };
    if (route.idempotent && call.key !== undefined && this.idempotency) {
      const hash = requestHash(call.method, this.prefix + call.path, call.input);
      return this.idempotency(caller.scope, call.key, hash, (claim) => storedAnswer(route, input, { ...routeCall, commitAnswer: answerHook(claim) }));
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
