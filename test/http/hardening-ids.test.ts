import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectErrorObject, setup, type Harness } from "../helpers";

/**
 * Ids and strings are checked at the edge. An id that cannot be one of ours (NUL, control
 * characters, another alphabet, an absurd length) is answered exactly as a well-formed unknown
 * id; a string with control characters is a 400 naming the field. Nothing reaches the storage:
 * PostgreSQL refuses NUL in text, which used to be a 500. Run with TEST_STORAGE=pglite too.
 *
 * The endpoints and their fields come from the OpenAPI document, itself built from the route
 * tables, so a new route or field is covered as soon as it is registered.
 */

interface Operation {
  method: "get" | "post" | "delete";
  path: string;
  pathParams: string[];
  query: Array<{ name: string; schema: JsonSchema }>;
  body: Record<string, JsonSchema> | null;
}

interface JsonSchema {
  type?: string;
  anyOf?: JsonSchema[];
  items?: JsonSchema;
  properties?: Record<string, JsonSchema>;
}

/** Fields that name a record (ours, or a transaction hash): answered as an unknown id. */
const ID_FIELDS = new Set(["id", "invoiceId", "payoutId", "refundId", "paymentId", "depositId", "endpointId", "cursor", "txHash", "subscriptionId"]);

/** Of our shape (prefix_ + base62), never issued: the baseline every impossible id is compared with. */
const UNKNOWN_ID = `xx_${"0".repeat(24)}`;

/** Ids no record can have. */
const IMPOSSIBLE_IDS = [
  "\u0000",
  "inv_\u0000",
  "inv_abc\u0001def",
  "inv_abc\ndef",
  "\u007f",
  "a".repeat(5000),
  "inv_äöü",
  "inv-abc",
  "../inv_abc",
  "inv_abc ' OR 1=1",
];

const ADDRESS = "TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7";
const URL_OK = "https://shop.example/orders/1042";

/**
 * A valid body for every POST whose body has string fields, so that the field under test is the
 * only thing wrong with it. A new route fails "has a base body for every route" until it is added.
 */
const BASE_BODIES: Record<string, Record<string, unknown>> = {
  "/api/v1/merchants/invoice/create": { amount: 10, amountCurrency: "USD", acceptedCoins: ["USDT"], returnUrl: URL_OK },
  "/api/v1/merchants/whitelabel/create": { amount: 10, amountCurrency: "USD", payCurrency: "USDT", network: "TRX", returnUrl: URL_OK },
  "/api/v1/merchants/invoice/fetch": { invoiceId: UNKNOWN_ID },
  "/api/v1/merchants/payout/create": { currency: "USDT", network: "TRX", amount: 10, address: ADDRESS },
  "/api/v1/merchants/payout/fetch": { payoutId: UNKNOWN_ID },
  "/api/v1/merchants/exchange/create": { fromCurrency: "USDT", toCurrency: "TRX", amount: 20 },
  "/api/v1/sandbox/deposit/create": { address: "sbx_unknown_address", amount: 1 },
  "/api/v1/sandbox/deposit/confirm": { txHash: UNKNOWN_ID, confirmations: 1 },
  "/api/v1/sandbox/deposit/drop": { txHash: UNKNOWN_ID },
  "/api/v1/sandbox/invoice/expire": { invoiceId: UNKNOWN_ID },
  "/api/v1/sandbox/payout/fail": { payoutId: UNKNOWN_ID, reason: "rejected by the test" },
  "/api/v1/sandbox/refund/expire": { refundId: UNKNOWN_ID },
  "/v1/payments": { amount: "25", currency: "USDT", chain: "TRX", amountCurrency: "USD", returnUrl: URL_OK, settleCurrency: "USDT" },
  "/v1/refunds": { paymentId: UNKNOWN_ID, amount: "1", address: ADDRESS, chain: "TRX" },
  "/v1/withdrawals": { currency: "USDT", chain: "TRX", amount: "10", address: ADDRESS },
  "/v1/conversions": { fromCurrency: "USDT", toCurrency: "TRX", amount: "10" },
  "/v1/payment-links": { amount: "25", amountCurrency: "USD", acceptedCoins: ["USDT"], returnUrl: URL_OK, settleCurrency: "USDT" },
  "/v1/webhook-endpoints": { url: "https://hooks.example/in", events: ["payment.created"] },
  "/v1/webhook-endpoints/{id}/test": { type: "payment.completed" },
  "/v1/subscriptions": { customer: "cus_1", amount: "10", currency: "USD", acceptedCoins: ["USDT"], interval: "month" },
  "/v1/subscriptions/{id}": { amount: "12" },
  "/api/v1/sandbox/subscription/advance": { subscriptionId: UNKNOWN_ID },
};

/** "string", "array" (of strings) or null: what kind of text a field takes. */
function textKind(schema: JsonSchema): "string" | "array" | null {
  if (schema.type === "string") return "string";
  if (schema.type === "array" && schema.items && textKind(schema.items) === "string") return "array";
  for (const option of schema.anyOf ?? []) {
    const kind = textKind(option);
    if (kind) return kind;
  }
  return null;
}

/** Values of a text field with control characters in them, built from a valid one when there is one. */
function withControlCharacters(valid: unknown): string[] {
  const text = typeof valid === "string" ? valid : "USDT";
  const middle = Math.ceil(text.length / 2);
  const inside = (c: string) => `${text.slice(0, middle)}${c}${text.slice(middle)}`;
  return [inside("\u0000"), "\u0000", inside("\u0007"), inside("\t"), inside("\r\n"), inside("\u0085")];
}

let h: Harness;
let operations: Operation[];

/** Sends one request as the test key; `path` is under the mount point. */
function send(op: Operation, path: string, input?: { query?: Record<string, unknown>; body?: unknown }) {
  let call = request(h.app)[op.method](path).set("Authorization", `Bearer ${h.testKey}`);
  if (input?.query) call = call.query(input.query as Record<string, string>);
  if (input?.body !== undefined) call = call.send(input.body as object);
  return call;
}

/** The path of `op` with every parameter set to `value`. */
function pathWith(op: Operation, value: string): string {
  return op.path.replace(/\{[^}]+\}/g, encodeURIComponent(value));
}

/** What matters of an answer when comparing it with the unknown-id baseline. */
function outcome(res: request.Response) {
  return { status: res.status, error: res.body?.error, data: Array.isArray(res.body?.data) ? res.body.data.length : undefined };
}

beforeAll(async () => {
  h = await setup();
  const document = (await request(h.app).get("/api/openapi")).body as {
    paths: Record<
      string,
      Record<
        string,
        { parameters?: Array<{ in: string; name: string; schema: JsonSchema }>; requestBody?: { content: Record<string, { schema: JsonSchema }> } }
      >
    >;
  };
  operations = Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => ({
      method: method as Operation["method"],
      path,
      pathParams: (op.parameters ?? []).filter((p) => p.in === "path").map((p) => p.name),
      query: (op.parameters ?? []).filter((p) => p.in === "query").map((p) => ({ name: p.name, schema: p.schema })),
      body: op.requestBody?.content["application/json"]?.schema.properties ?? null,
    })),
  );
});

afterAll(async () => {
  await h.router.close();
});

describe("the route table, as the tests see it", () => {
  it("lists the /api/v1 and /v1 routes, with path, query and body fields", () => {
    expect(operations.filter((op) => op.pathParams.length > 0).length).toBeGreaterThanOrEqual(13);
    expect(operations.some((op) => op.query.some((q) => q.name === "cursor"))).toBe(true);
    expect(operations.some((op) => op.body && "invoiceId" in op.body)).toBe(true);
  });

  it("has a base body for every route whose body takes text", () => {
    const missing = operations.filter((op) => op.body && Object.values(op.body).some((field) => textKind(field)) && !BASE_BODIES[op.path]).map((op) => op.path);
    expect(missing).toEqual([]);
  });
});

describe("path parameters that cannot be ids", () => {
  it("answers every /:id route 404 (40401) for them, as for an unknown id", async () => {
    const checked: string[] = [];
    for (const op of operations.filter((candidate) => candidate.pathParams.length > 0)) {
      const baseline = await send(op, pathWith(op, UNKNOWN_ID));
      expectErrorObject(baseline, 404, 40401);
      for (const id of IMPOSSIBLE_IDS) {
        const res = await send(op, pathWith(op, id));
        expect({ route: `${op.method} ${op.path}`, id: JSON.stringify(id.slice(0, 20)), ...outcome(res) }).toEqual({
          route: `${op.method} ${op.path}`,
          id: JSON.stringify(id.slice(0, 20)),
          ...outcome(baseline),
        });
        expectErrorObject(res, 404, 40401);
      }
      checked.push(`${op.method} ${op.path}`);
    }
    expect(checked).toContain("get /v1/payments/{id}");
    expect(checked).toContain("post /v1/webhook-deliveries/{id}/redeliver");
    expect(checked).toContain("delete /v1/webhook-endpoints/{id}");
  });

  it("still asks for the API key first", async () => {
    const res = await request(h.app).get("/v1/payments/%00");
    expectErrorObject(res, 401, 40101);
  });
});

describe("query parameters", () => {
  it("answers an impossible id in cursor, paymentId or endpointId as a well-formed unknown one", async () => {
    const fields: string[] = [];
    for (const op of operations.filter((candidate) => candidate.method === "get")) {
      for (const { name } of op.query.filter((q) => ID_FIELDS.has(q.name))) {
        const baseline = await send(op, op.path, { query: { [name]: UNKNOWN_ID } });
        expect(baseline.status).toBeLessThan(500);
        for (const id of IMPOSSIBLE_IDS) {
          const res = await send(op, op.path, { query: { [name]: id } });
          expect({ field: `${op.path}?${name}`, ...outcome(res) }).toEqual({ field: `${op.path}?${name}`, ...outcome(baseline) });
        }
        fields.push(`${op.path}?${name}`);
      }
    }
    expect(fields).toEqual(
      expect.arrayContaining(["/v1/payments?cursor", "/v1/refunds?paymentId", "/v1/webhook-deliveries?endpointId", "/v1/webhook-deliveries?cursor"]),
    );
  });

  it("answers control characters in any other query parameter with a 400 naming it", async () => {
    const fields: string[] = [];
    for (const op of operations.filter((candidate) => candidate.method === "get")) {
      for (const { name } of op.query.filter((q) => !ID_FIELDS.has(q.name))) {
        for (const value of withControlCharacters(name === "chain" ? "TRX" : undefined)) {
          const res = await send(op, op.path, { query: { [name]: value } });
          expectErrorObject(res, 400, 40001);
          expect(res.body.message).toContain(`${name}:`);
        }
        fields.push(`${op.path}?${name}`);
      }
    }
    expect(fields).toContain("/v1/payments?chain");
  });
});

describe("body fields", () => {
  it("answers an impossible id in an id field as a well-formed unknown one (404)", async () => {
    const fields: string[] = [];
    for (const op of operations.filter((candidate) => candidate.body)) {
      for (const name of Object.keys(op.body!).filter((field) => ID_FIELDS.has(field))) {
        const base = BASE_BODIES[op.path]!;
        const baseline = await send(op, op.path, { body: { ...base, [name]: UNKNOWN_ID } });
        expectErrorObject(baseline, 404, 40401);
        for (const id of IMPOSSIBLE_IDS) {
          const res = await send(op, op.path, { body: { ...base, [name]: id } });
          expect({ field: `${op.path} ${name}`, ...outcome(res) }).toEqual({ field: `${op.path} ${name}`, ...outcome(baseline) });
          expectErrorObject(res, 404, 40401);
        }
        fields.push(`${op.path} ${name}`);
      }
    }
    expect(fields).toEqual(
      expect.arrayContaining([
        "/api/v1/merchants/invoice/fetch invoiceId",
        "/api/v1/merchants/payout/fetch payoutId",
        "/api/v1/sandbox/invoice/expire invoiceId",
        "/api/v1/sandbox/payout/fail payoutId",
        "/api/v1/sandbox/refund/expire refundId",
        "/v1/refunds paymentId",
      ]),
    );
  });

  it("answers control characters in every other text field with a 400 naming the field", async () => {
    const fields: string[] = [];
    for (const op of operations.filter((candidate) => candidate.body)) {
      for (const [name, schema] of Object.entries(op.body!).filter(([field]) => !ID_FIELDS.has(field))) {
        const kind = textKind(schema);
        if (!kind) continue;
        const base = BASE_BODIES[op.path]!;
        const valid = kind === "array" ? (base[name] as unknown[] | undefined)?.[0] : base[name];
        for (const text of withControlCharacters(valid)) {
          const res = await send(op, op.path, { body: { ...base, [name]: kind === "array" ? [text] : text } });
          expectErrorObject(res, 400);
          expect(res.body.message, `${op.path} ${name}`).toContain(name);
        }
        fields.push(`${op.path} ${name}`);
      }
    }
    expect(fields).toEqual(
      expect.arrayContaining([
        "/api/v1/sandbox/deposit/create address",
        "/api/v1/sandbox/payout/fail reason",
        "/v1/payments returnUrl",
        "/v1/payments chain",
        "/v1/withdrawals address",
        "/v1/webhook-endpoints url",
        "/v1/payment-links acceptedCoins",
      ]),
    );
  });

  // A URL parser strips tabs and line breaks anywhere, and trims C0 characters at the ends: each
  // of these would have been stored as https://shop.example/orders/1042, without a word.
  const REWRITTEN_URLS = [
    "https://shop.example/orders/10\r\n42",
    "https://shop.example/orders/10\n42",
    "https://shop.example/orders/10\r42",
    "https://shop.example/orders/10\t42",
    "https://shop.\nexample/orders/1042",
    "\thttps://shop.example/orders/1042",
    "https://shop.example/orders/1042\r\n",
    "\u0001https://shop.example/orders/1042",
  ];
  const WITH_RETURN_URL = ["/api/v1/merchants/invoice/create", "/api/v1/merchants/whitelabel/create", "/v1/payments", "/v1/payment-links"];

  it.each(WITH_RETURN_URL)("refuses a returnUrl with a tab, CR or LF on %s with 400 naming the field", async (path) => {
    for (const returnUrl of REWRITTEN_URLS) {
      const res = await h.post(path, { ...BASE_BODIES[path], returnUrl });
      expectErrorObject(res, 400, 40001);
      expect(res.body.message, JSON.stringify(returnUrl)).toContain("returnUrl: must not contain control characters");
    }
    const created = await h.post(path, BASE_BODIES[path]);
    expect(created.status, created.text).toBe(200);
    expect(created.body.returnUrl ?? created.body.return_url).toBe(URL_OK);
  });

  it("refuses a returnUrl that is a valid URL but for a NUL", async () => {
    const res = await h.post("/v1/payments", { ...BASE_BODIES["/v1/payments"], returnUrl: "https://shop.example/a\u0000b" });
    expectErrorObject(res, 400, 40001);
    expect(res.body.message).toContain("returnUrl: must not contain control characters");
  });

  it("refuses a NUL in metadata, which no storage can keep, naming the field", async () => {
    const res = await h.post("/v1/payments", { ...BASE_BODIES["/v1/payments"], metadata: { note: "a\u0000b" } });
    expectErrorObject(res, 400, 40001);
    expect(res.body.message).toContain("metadata.note: must not contain a NUL character");
  });
});

describe("nothing reaches the storage", () => {
  it("logged no error for any of the requests above", () => {
    expect(h.logger.lines.filter((line) => line.startsWith("error"))).toEqual([]);
  });
});
