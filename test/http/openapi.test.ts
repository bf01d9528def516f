import { Validator } from "@seriousme/openapi-schema-validator";
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EVENT_TYPES } from "../../src/core/webhooks/records";
import { PAYMENT_EVENT_TYPES } from "../../src/core/invoices/records";
import { PAYOUT_EVENT_TYPES } from "../../src/core/payouts/records";
import { REFUND_EVENT_TYPES } from "../../src/core/refunds/records";
import { SUBSCRIPTION_EVENT_TYPES } from "../../src/core/subscriptions/records";
import { ERROR_CATALOGUE } from "../../src/errors";
import { apiReferenceOf } from "../../src/http/routes/docs";
import { setup, type Harness } from "../helpers";

type Json = Record<string, any>;
const METHODS = ["get", "post", "delete", "put", "patch"] as const;

/** Every (method, path) the document lists. */
function documentedOperations(document: Json): { method: string; path: string; operation: Json }[] {
  return Object.entries(document.paths as Json).flatMap(([path, item]) =>
    METHODS.filter((method) => item[method]).map((method) => ({ method, path, operation: item[method] as Json })),
  );
}

describe("GET /api/openapi", () => {
  let h: Harness;
  let document: Json;

  beforeAll(async () => {
    h = await setup();
    const res = await request(h.app).get("/api/openapi");
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toMatch(/^application\/json/);
    document = res.body;
  });
  afterAll(() => h.router.close());

  it("is a valid OpenAPI 3.1 document, by the official schema and with every $ref resolving", async () => {
    const validator = new Validator();
    // The validator resolves $refs in place: give it a copy.
    const result = await validator.validate(structuredClone(document));
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(validator.version).toBe("3.1");
    // Throws on a $ref that points nowhere.
    expect(() => validator.resolveRefs()).not.toThrow();
    expect(document.openapi).toBe("3.1.0");
    expect(document.info.version).toBe("1.0.0");
  });

  it("answers without an API key", async () => {
    const res = await request(h.app).get("/api/openapi").set("Authorization", "Bearer sk_test_wrong");
    expect(res.status).toBe(200);
  });

  it("documents every mounted route of both prefixes, each with its docs", () => {
    const reference = apiReferenceOf(h.router)!;
    expect(reference.apis.map((api) => api.prefix)).toEqual(["/api/v1", "/v1"]);
    const mounted = reference.apis.flatMap(({ prefix, table }) => table.operations().map((route) => ({ prefix, route })));
    const withoutDocs = mounted.filter(({ route }) => !route.docs).map(({ prefix, route }) => `${route.method} ${prefix}${route.path}`);
    expect(withoutDocs, "routes registered without `docs` (add docs: { summary, response, ... } to their registration)").toEqual([]);
    // Read live from the tables: a route registered after the document was built shows up here too.
    const missing = mounted
      .filter(({ prefix, route }) => !document.paths[prefix + route.path]?.[route.method.toLowerCase()])
      .map(({ prefix, route }) => `${route.method} ${prefix}${route.path}`);
    expect(missing, "mounted routes missing from the document").toEqual([]);
    const documented = documentedOperations(document).map(({ method, path }) => `${method.toUpperCase()} ${path}`);
    expect(documented.sort()).toEqual(mounted.map(({ prefix, route }) => `${route.method} ${prefix}${route.path}`).sort());
  });

  it("covers the merchant endpoints, the reference lists, the sandbox and webhook management", () => {
    const paths = Object.keys(document.paths);
    for (const path of [
      "/api/v1/merchants/invoice/create",
      "/api/v1/merchants/whitelabel/create",
      "/api/v1/merchants/invoice/fetch",
      "/api/v1/merchants/payout/create",
      "/api/v1/merchants/payout/fetch",
      "/api/v1/merchants/exchange/create",
      "/api/v1/currencies",
      "/api/v1/exchange/pairs",
      "/api/v1/sandbox/deposit/create",
      "/api/v1/sandbox/invoice/expire",
      "/v1/webhook-endpoints",
      "/v1/webhook-endpoints/{id}",
    ]) {
      expect(paths).toContain(path);
    }
  });

  it("lists only routes that exist: each answers 401 without a key, not 404 or 405", async () => {
    const answers = await Promise.all(
      documentedOperations(document).map(async ({ method, path }) => {
        const url = path.replace(/\{[^}]+\}/g, "some_id");
        const res = await (request(h.app) as unknown as Record<string, (url: string) => request.Test>)[method]!(url);
        return `${method.toUpperCase()} ${path} -> ${res.status}`;
      }),
    );
    expect(answers.filter((answer) => !answer.endsWith("-> 401"))).toEqual([]);
  });

  it("describes the bearer key scheme with both key prefixes and applies it to every operation", () => {
    const schemes = document.components.securitySchemes as Json;
    const [name, scheme] = Object.entries(schemes)[0]!;
    expect(scheme).toMatchObject({ type: "http", scheme: "bearer" });
    expect(scheme.description).toContain("sk_test_");
    expect(scheme.description).toContain("sk_live_");
    expect(document.security).toEqual([{ [name]: [] }]);
    expect(documentedOperations(document).filter(({ operation }) => operation.security !== undefined)).toEqual([]);
  });

  it("has the error object { error, message } and uses it for every error answer", () => {
    const error = document.components.schemas.Error;
    expect(error.required).toEqual(["error", "message"]);
    expect(error.properties.error).toMatchObject({ type: "integer", format: "int32" });
    expect(error.properties.message.type).toBe("string");
    for (const { path, method, operation } of documentedOperations(document)) {
      const statuses = Object.keys(operation.responses);
      expect(statuses, `${method} ${path}`).toContain("200");
      expect(statuses, `${method} ${path}`).toContain("401");
      for (const status of statuses.filter((status) => status !== "200")) {
        const ref: string = operation.responses[status].$ref;
        expect(ref, `${method} ${path} ${status}`).toBe(`#/components/responses/Error${status}`);
        expect(document.components.responses[`Error${status}`].content["application/json"].schema).toEqual({ $ref: "#/components/schemas/Error" });
      }
    }
    // Each catalogue code is named by the response of its status.
    for (const [name, { status, code }] of Object.entries(ERROR_CATALOGUE)) {
      expect(document.components.responses[`Error${status}`].description).toContain(`\`${code}\` ${name}`);
    }
  });

  it("takes request schemas from the validators: rules, defaults and strictness", () => {
    const create = document.paths["/api/v1/merchants/invoice/create"].post;
    const body = create.requestBody.content["application/json"].schema;
    expect(create.requestBody.required).toBe(true);
    expect(body.required).toEqual(["amount"]);
    expect(body.additionalProperties).toBe(false);
    expect(body.properties.amount).toMatchObject({ type: "number", minimum: 0 });
    expect(body.properties.lifeTime).toMatchObject({ type: "integer", minimum: 1, maximum: 1440, default: 1440 });
    expect(body.properties.underPaidCover).toMatchObject({ minimum: 0, maximum: 50 });
    expect(body.properties.amountCurrency.default).toBe("USD");
    expect(body.properties.returnUrl.format).toBe("uri");
    expect(create.parameters.map((parameter: Json) => `${parameter.in}:${parameter.name}`)).toEqual(["header:Idempotency-Key"]);

    const deliveries = document.paths["/v1/webhook-deliveries"].get;
    expect(deliveries.requestBody).toBeUndefined();
    const query = Object.fromEntries(deliveries.parameters.map((parameter: Json) => [parameter.name, parameter]));
    expect(Object.keys(query).sort()).toEqual(["cursor", "endpointId", "eventType", "limit", "status"]);
    expect(query.limit.in).toBe("query");
    expect(query.limit.schema).toMatchObject({ minimum: 1, maximum: 100, default: 20 });

    const endpoint = document.paths["/v1/webhook-endpoints/{id}"].get;
    expect(endpoint.parameters).toEqual([expect.objectContaining({ in: "path", name: "id", required: true })]);
    // The reference lists (currencies, exchange pairs) take no body at all.
    expect(document.paths["/api/v1/currencies"].post.requestBody).toBeUndefined();
  });

  it("names the response resources as components", () => {
    const ok = (path: string, method = "post") => document.paths[path][method].responses["200"].content["application/json"].schema;
    expect(ok("/api/v1/merchants/invoice/fetch")).toEqual({ $ref: "#/components/schemas/Invoice" });
    expect(ok("/api/v1/merchants/payout/fetch")).toEqual({ $ref: "#/components/schemas/Payout" });
    expect(ok("/api/v1/merchants/exchange/create")).toEqual({ $ref: "#/components/schemas/Exchange" });
    expect(ok("/api/v1/currencies")).toMatchObject({ type: "array", items: { $ref: "#/components/schemas/Currency" } });
    expect(ok("/api/v1/exchange/pairs")).toMatchObject({ type: "array", items: { $ref: "#/components/schemas/ExchangePair" } });
    expect(ok("/v1/webhook-endpoints/{id}", "get")).toEqual({ $ref: "#/components/schemas/WebhookEndpoint" });
    const invoice = document.components.schemas.Invoice;
    expect(invoice.properties.status).toEqual({ $ref: "#/components/schemas/InvoiceStatus" });
    expect(document.components.schemas.InvoiceStatus.enum).toEqual(["PENDING", "CONFIRMING", "UNDER_PAID", "PAID", "FAILED", "EXPIRED"]);
  });

  it("names the /v1 resources as components and keeps request examples through transforms", () => {
    const ok = (path: string, method = "get") => document.paths[path][method].responses["200"].content["application/json"].schema;
    expect(ok("/v1/payments", "post")).toEqual({ $ref: "#/components/schemas/Payment" });
    expect(ok("/v1/refunds/{id}")).toEqual({ $ref: "#/components/schemas/Refund" });
    expect(ok("/v1/withdrawals/{id}")).toEqual({ $ref: "#/components/schemas/Withdrawal" });
    expect(ok("/v1/conversions/{id}")).toEqual({ $ref: "#/components/schemas/Conversion" });
    expect(ok("/v1/payment-links/{id}")).toEqual({ $ref: "#/components/schemas/PaymentLink" });
    expect(ok("/v1/payments").properties.data.items).toEqual({ $ref: "#/components/schemas/Payment" });
    expect(ok("/v1/balances").properties.data.items).toEqual({ $ref: "#/components/schemas/Balance" });
    // Symbols are upper-cased and /api/v1 amounts turned into decimals by a transform; their examples still show.
    const v1Body = document.paths["/v1/payments"].post.requestBody.content["application/json"].schema.properties;
    expect([v1Body.amount.examples, v1Body.currency.examples, v1Body.chain.examples]).toEqual([["25"], ["USDT"], ["TRX"]]);
    const whitelabel = document.paths["/api/v1/merchants/whitelabel/create"].post.requestBody.content["application/json"].schema.properties;
    expect([whitelabel.amount.examples, whitelabel.payCurrency.examples, whitelabel.network.examples]).toEqual([[25], ["USDT"], ["TRX"]]);
  });

  it("documents every event as an OpenAPI 3.1 webhook, signed and carrying its resource", () => {
    expect(Object.keys(document.webhooks)).toEqual([...EVENT_TYPES]);
    const resourceOf = (type: string) =>
      (PAYMENT_EVENT_TYPES as readonly string[]).includes(type)
        ? "Payment"
        : (PAYOUT_EVENT_TYPES as readonly string[]).includes(type)
          ? "Withdrawal"
          : (REFUND_EVENT_TYPES as readonly string[]).includes(type)
            ? "Refund"
            : (SUBSCRIPTION_EVENT_TYPES as readonly string[]).includes(type)
              ? "Subscription"
              : "Conversion";
    for (const type of EVENT_TYPES) {
      const operation = document.webhooks[type].post;
      expect(operation.security).toEqual([]);
      expect(operation.parameters.map((parameter: Json) => parameter.name)).toEqual(["webhook-id", "webhook-timestamp", "webhook-signature"]);
      const schema = operation.requestBody.content["application/json"].schema;
      expect(schema.required).toEqual(["type", "timestamp", "data"]);
      expect(schema.properties.type.const).toBe(type);
      expect(schema.properties.data).toEqual({ $ref: `#/components/schemas/${resourceOf(type)}` });
      expect(operation.description.length).toBeGreaterThan(40);
    }
    expect(resourceOf("conversion.completed")).toBe("Conversion");
    expect(resourceOf("subscription.past_due")).toBe("Subscription");
    // One component per resource, whether an answer or an event carries it.
    expect(Object.keys(document.components.schemas).filter((name) => name.endsWith("Output"))).toEqual([]);
    expect(document.components.schemas.Payment.properties.overpaidAmount.type).toBe("string");
    expect(document.components.schemas.Payment.required).toContain("metadata");
  });

  it("gives the request's origin as the server", async () => {
    const res = await request(h.app).get("/api/openapi").set("Host", "shop.test:8080");
    expect(res.body.servers).toEqual([{ url: "http://shop.test:8080" }]);
  });
});

describe("where the reference is mounted", () => {
  it("puts the mount path in the server URL, and uses publicUrl when set", async () => {
    const mounted = await setup({ mountPath: "/payments" });
    const res = await request(mounted.app).get("/payments/api/openapi").set("Host", "shop.test");
    expect(res.body.servers).toEqual([{ url: "http://shop.test/payments" }]);
    await mounted.router.close();

    const pub = await setup({ mountPath: "/payments", publicUrl: "https://shop.example/" });
    const answer = await request(pub.app).get("/payments/api/openapi");
    expect(answer.body.servers).toEqual([{ url: "https://shop.example/payments" }]);
    await pub.router.close();
  });

  it("answers unknown /api paths with the error object and leaves the host's paths alone", async () => {
    const h = await setup();
    const unknown = await request(h.app).get("/api/nothing-here");
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ error: 40402, message: expect.stringContaining("/api/nothing-here") });
    const wrongMethod = await request(h.app).post("/api/openapi");
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.body.error).toBe(40501);
    expect(wrongMethod.headers.allow).toBe("GET, HEAD");
    // /api/v1 is still the merchant dispatcher.
    const merchant = await request(h.app).post("/api/v1/merchants/invoice/create").send({ amount: 1 });
    expect(merchant.status).toBe(401);
    const host = await request(h.app).get("/host-route");
    expect(host.text).toBe("host");
    await h.router.close();
  });
});

describe("GET /api", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await setup({ mountPath: "/pay-service" });
  });
  afterAll(() => h.router.close());

  it("serves the reference page with a CSP that allows no other origin", async () => {
    const res = await request(h.app).get("/pay-service/api");
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toMatch(/^text\/html/);
    const csp = String(res.headers["content-security-policy"]);
    expect(csp).toContain("default-src 'none'");
    for (const directive of csp.split(";").map((part) => part.trim())) {
      // Only 'self', 'none', 'unsafe-inline' (styles) and data: (icons): no host, no scheme wildcard.
      expect(
        directive
          .split(/\s+/)
          .slice(1)
          .every((source) => ["'self'", "'none'", "'unsafe-inline'", "data:"].includes(source)),
        directive,
      ).toBe(true);
    }
    const urls = [...res.text.matchAll(/(?:src|href|data-document)="([^"]+)"/g)].map((match) => match[1]!);
    expect(urls.length).toBeGreaterThanOrEqual(5);
    for (const url of urls) expect(url).toMatch(/^\/pay-service\/api\//);
    expect(res.text).not.toMatch(/<script>/); // no inline script: script-src is 'self' only
  });

  it("serves the page's assets from the installed package, and nothing else of it", async () => {
    const bundle = await request(h.app).get("/pay-service/api/assets/swagger-ui-bundle.js");
    expect(bundle.status).toBe(200);
    expect(bundle.headers["content-type"]).toMatch(/javascript/);
    expect(bundle.text.length).toBeGreaterThan(100_000);
    const css = await request(h.app).get("/pay-service/api/assets/swagger-ui.css");
    expect(css.headers["content-type"]).toMatch(/^text\/css/);
    const start = await request(h.app).get("/pay-service/api/assets/reference.js");
    expect(start.text).toContain("validatorUrl: null");
    // swagger-ui-dist's own index.html would load its demo document from the internet.
    for (const file of ["index.html", "swagger-initializer.js", "package.json", "..%2Fpackage.json"]) {
      const res = await request(h.app).get(`/pay-service/api/assets/${file}`);
      expect(res.status, file).toBe(404);
      expect(res.body.error, file).toBe(40402);
    }
  });
});
