import request from "supertest";
import { afterEach, describe, expect, it } from "vitest";
import { storageBackends } from "../adapters/storage/sql-fixtures";
import { setup, type Harness } from "../helpers";
import { describeIf, NO_DATABASE_URL } from "../support/skips";
import { expectError, get } from "./v1/support";

/**
 * Text no storage can keep (NUL, a UTF-16 surrogate without its pair) is refused with a 400
 * naming the field, wherever a request carries free text, on /api/v1 and /v1 alike, and the
 * same on every storage: memory, PGlite and a PostgreSQL server (which would refuse it itself).
 * The bodies are sent as JSON text with `\u` escapes, as a client would send them.
 */

const NUL = "\\u0000";
const HIGH = "\\ud800";
const LOW = "\\udfff";

/** A request whose body holds unstorable text, and the field its 400 must name. */
interface Case {
  name: string;
  path: string;
  /** The JSON body as sent, escapes and all. */
  json: string;
  field: RegExp;
}

const cases: Case[] = [
  {
    name: "a NUL in a /v1 payment's metadata value",
    path: "/v1/payments",
    json: `{"amount":"10","currency":"USDT","chain":"TRX","metadata":{"orderId":"A${NUL}1"}}`,
    field: /metadata\.orderId: must not contain a NUL character/,
  },
  {
    name: "a lone high surrogate in a /v1 payment's metadata value, nested",
    path: "/v1/payments",
    json: `{"amount":"10","currency":"USDT","chain":"TRX","metadata":{"cart":[{"note":"x${HIGH}"}]}}`,
    field: /metadata\.cart\.0\.note: .*unpaired UTF-16 surrogate/,
  },
  {
    name: "a lone low surrogate in a /v1 payment's metadata key",
    path: "/v1/payments",
    json: `{"amount":"10","currency":"USDT","chain":"TRX","metadata":{"k${LOW}":"v"}}`,
    field: /metadata: key "k\\udfff" must not contain/,
  },
  {
    name: "a NUL in an /api/v1 invoice's metadata key",
    path: "/api/v1/merchants/invoice/create",
    json: `{"amount":10,"metadata":{"order${NUL}Id":"1"}}`,
    field: /metadata: key "order\\u0000Id" must not contain/,
  },
  {
    name: "a lone surrogate in an /api/v1 whitelabel invoice's metadata value",
    path: "/api/v1/merchants/whitelabel/create",
    json: `{"amount":10,"payCurrency":"USDT","network":"TRX","metadata":{"orderId":"${HIGH}"}}`,
    field: /metadata\.orderId: .*unpaired UTF-16 surrogate/,
  },
  {
    name: "a lone surrogate in a subscription's customer",
    path: "/v1/subscriptions",
    json: `{"customer":"cus_${HIGH}","amount":"10","currency":"USDT","interval":"month"}`,
    field: /customer: .*unpaired UTF-16 surrogate/,
  },
  {
    name: "a NUL in a payment link's metadata",
    path: "/v1/payment-links",
    json: `{"amount":"25","metadata":{"sku":"a${NUL}"}}`,
    field: /metadata\.sku: must not contain a NUL character/,
  },
];

/** Sends `json` as it is to `path` with the test key. */
function postRaw(h: Harness, path: string, json: string) {
  return h.post(path).set("Content-Type", "application/json").send(json);
}

/** Runs every case against a fresh harness and checks nothing was stored. */
async function refusesEveryCase(h: Harness): Promise<void> {
  for (const each of cases) {
    const res = await postRaw(h, each.path, each.json);
    expectError(res, 400, 40001, each.field);
    // The same request with a storable value is accepted: the 400 was for the text, not the shape.
    const fixed = await postRaw(h, each.path, each.json.replaceAll(NUL, "-").replaceAll(HIGH, "-").replaceAll(LOW, "-"));
    expect(fixed.status, `${each.name}: ${fixed.text}`).toBe(200);
  }
  // Only the fixed requests were stored: one /v1 payment of each fixed case, none refused.
  const payments = await get(h, "/v1/payments?limit=100");
  for (const payment of payments.body.data as Array<{ metadata: Record<string, unknown> | null }>) {
    expect(JSON.stringify(payment.metadata ?? {})).not.toMatch(/\\u0000|\\ud[89a-f]/);
  }
}

// Memory, PGlite and (with DATABASE_URL) a PostgreSQL server: the same answers on each.
for (const backend of storageBackends("storable_text")) {
  describeIf(backend.enabled, NO_DATABASE_URL)(`free text no storage can keep, on ${backend.name}`, () => {
    let dispose: (() => Promise<void>) | undefined;
    let h: Harness | undefined;
    afterEach(async () => {
      await h?.router.close();
      await dispose?.();
    });

    it("is refused with a 400 naming the field, whatever the route", async () => {
      const opened = await backend.open();
      dispose = opened.dispose;
      h = await setup({ storage: opened.storage });
      await refusesEveryCase(h);
    });
  });
}

describe("free text no storage can keep", () => {
  it("is refused before an Idempotency-Key is claimed: the same key then serves the corrected request", async () => {
    const h = await setup();
    const bad = await postRaw(h, "/v1/payments", cases[0]!.json).set("Idempotency-Key", "text-1");
    expectError(bad, 400, 40001, cases[0]!.field);
    const good = await postRaw(h, "/v1/payments", `{"amount":"10","currency":"USDT","chain":"TRX","metadata":{"orderId":"A1"}}`).set(
      "Idempotency-Key",
      "text-1",
    );
    expect(good.status, good.text).toBe(200);
  });

  it("refuses a hosted page's form holding a NUL in any field, choosing nothing", async () => {
    const h = await setup();
    const invoice = await h.post("/api/v1/merchants/invoice/create", { amount: 10 });
    expect(invoice.status, invoice.text).toBe(200);
    const choose = (form: string) => request(h.app).post(`/pay/${invoice.body.id}/method`).set("Sec-Fetch-Site", "same-origin").type("form").send(form);
    const refused = await choose("coin=USDT&network=TRX&note=a%00b");
    expect(refused.status).toBe(400);
    expect(refused.text).toContain("could not be read");
    expect((await h.router.storage.getInvoice({ merchantId: h.merchant.id, mode: "test" }, invoice.body.id))?.coin).toBeNull();
    expect((await choose("coin=USDT&network=TRX&note=ab")).status).toBe(303);
  });

  it("accepts characters outside the Basic Multilingual Plane written as a surrogate pair", async () => {
    const h = await setup();
    const res = await postRaw(h, "/v1/payments", `{"amount":"10","currency":"USDT","chain":"TRX","metadata":{"note":"\\ud83d\\ude00"}}`);
    expect(res.status, res.text).toBe(200);
    expect(res.body.metadata).toEqual({ note: "\u{1F600}" });
  });
});
