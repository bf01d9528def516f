import type { JsonSchema } from "./json-text";

/** One operation to fuzz, read from the served OpenAPI document or from the list of pages below. */
export interface FuzzRoute {
  method: "GET" | "POST" | "DELETE";
  /** OpenAPI form, from the mount point: `/v1/payments/{id}`. */
  path: string;
  /** JSON API (/api/v1, /v1): answers the error object; or a page or document (/pay, /api). */
  kind: "api" | "page";
  /** Schema of the JSON body, when the route reads one. */
  body?: JsonSchema;
  /** Query parameters with their schemas. */
  query: Array<{ name: string; schema: JsonSchema }>;
  /** POST /pay/{id}/method takes a form, not JSON. */
  form?: boolean;
}

interface OpenApiOperation {
  parameters?: Array<{ in: string; name: string; schema?: JsonSchema }>;
  requestBody?: { content?: Record<string, { schema?: JsonSchema }> };
}

/** The OpenAPI document as served by GET /api/openapi, as far as the fuzzer reads it. */
export interface ServedDocument {
  paths: Record<string, Record<string, OpenApiOperation>>;
  components?: { schemas?: Record<string, JsonSchema> };
}

/**
 * Every operation of the served OpenAPI document. The document is generated from the route
 * tables (src/http/openapi.ts), so a route added to a table is fuzzed without editing the test.
 */
export function apiRoutes(document: ServedDocument): FuzzRoute[] {
  const routes: FuzzRoute[] = [];
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      const upper = method.toUpperCase();
      if (upper !== "GET" && upper !== "POST" && upper !== "DELETE") continue;
      const body = operation.requestBody?.content?.["application/json"]?.schema;
      routes.push({
        method: upper,
        path,
        kind: "api",
        ...(body ? { body } : upper === "POST" ? { body: { type: "object", properties: {}, additionalProperties: false } } : {}),
        query: (operation.parameters ?? []).filter((p) => p.in === "query").map((p) => ({ name: p.name, schema: p.schema ?? {} })),
      });
    }
  }
  return routes;
}

/**
 * The router's prefixes outside the route tables: hosted pages, payment links and the API
 * reference. These are not in the OpenAPI document (they are not JSON endpoints for a key).
 */
export const PAGE_ROUTES: FuzzRoute[] = [
  { method: "GET", path: "/pay/{id}", kind: "page", query: [] },
  { method: "GET", path: "/pay/{id}/status", kind: "page", query: [] },
  { method: "POST", path: "/pay/{id}/method", kind: "page", query: [], form: true },
  { method: "GET", path: "/pay/link/{id}", kind: "page", query: [] },
  { method: "POST", path: "/pay/link/{id}", kind: "page", query: [], form: true },
  { method: "GET", path: "/api", kind: "page", query: [] },
  { method: "GET", path: "/api/openapi", kind: "page", query: [] },
  { method: "GET", path: "/api/{id}", kind: "page", query: [] },
  { method: "GET", path: "/api/assets/{id}", kind: "page", query: [] },
];

/** `/v1/payments/{id}` -> "payments": the collection whose ids fit the path parameter. */
export function collectionOf(path: string): string {
  const segments = path.split("/");
  const index = segments.findIndex((segment) => segment.startsWith("{"));
  const before = segments[index - 1] ?? "";
  if (path.startsWith("/pay/link/")) return "payment-links";
  if (path.startsWith("/pay/")) return "payments";
  return before;
}
