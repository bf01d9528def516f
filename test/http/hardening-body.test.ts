import { brotliCompressSync, deflateSync, gzipSync } from "node:zlib";
import express from "express";
import request from "supertest";
import { describe, expect, it } from "vitest";
import { expectErrorObject, setup, type Harness } from "../helpers";
import { sendAndWaitForClose, serveRaw } from "../raw-socket";

const CREATE = "/api/v1/merchants/invoice/create";

/** POSTs raw JSON text (so that numbers reach the server exactly as written). */
function postText(h: Harness, path: string, text: string | Buffer, headers: Record<string, string> = {}) {
  let call = request(h.app).post(`${h.prefix}${path}`).set("Authorization", `Bearer ${h.testKey}`).set("Content-Type", "application/json");
  for (const [name, value] of Object.entries(headers)) call = call.set(name, value);
  // superagent would JSON-encode a Buffer sent as application/json; send its bytes instead.
  return call.serialize((body: unknown) => body as string).send(text);
}

/** `{"a":{"a":...{"a":1}...}}` with `levels` objects. */
const nested = (levels: number) => `${'{"a":'.repeat(levels - 1)}{"a":1}${"}".repeat(levels - 1)}`;

describe("compressed request bodies", () => {
  const body = JSON.stringify({ amount: 12.5 });

  it.each([
    ["gzip", gzipSync],
    ["deflate", deflateSync],
    ["br", brotliCompressSync],
  ] as const)("reads a valid %s body", async (encoding, compress) => {
    const h = await setup();
    const res = await postText(h, CREATE, compress(Buffer.from(body)), { "Content-Encoding": encoding });
    expect(res.status).toBe(200);
    expect(res.body.amount).toBe(12.5);
  });

  it.each(["gzip", "deflate", "br"])("answers a corrupt %s body with 400 (40001), not 500", async (encoding) => {
    const h = await setup();
    const res = await postText(h, CREATE, Buffer.from("this is not compressed data at all"), { "Content-Encoding": encoding });
    expectErrorObject(res, 400, 40001);
    expect(res.body.message).toContain(encoding);
    expect(res.body.message).toMatch(/decompress/);
    expect(h.logger.lines).toEqual([]);
  });

  it("answers a truncated gzip body with 400", async () => {
    const h = await setup();
    const res = await postText(h, CREATE, gzipSync(Buffer.from(body)).subarray(0, 12), { "Content-Encoding": "gzip" });
    expectErrorObject(res, 400, 40001);
  });

  it.each(["compress", "identity2"])("answers an unsupported Content-Encoding %s with 415 (41501) naming it", async (encoding) => {
    const h = await setup();
    const res = await postText(h, CREATE, body, { "Content-Encoding": encoding });
    expectErrorObject(res, 415, 41501);
    expect(res.body.message).toContain(encoding);
  });

  it("answers a corrupt body on /v1 the same way", async () => {
    const h = await setup();
    const res = await postText(h, "/v1/payments", Buffer.from("garbage"), { "Content-Encoding": "gzip" });
    expectErrorObject(res, 400, 40001);
  });
});

describe("JSON numbers are read from the request's text", () => {
  it("refuses an amount with more precision than a double holds, naming the field", async () => {
    const h = await setup();
    const res = await postText(h, CREATE, '{"amount": 10.0000000000000001}');
    expectErrorObject(res, 400, 40001);
    expect(res.body.message).toMatch(/^Invalid request: amount: /);
    expect(res.body.message).toContain("10.0000000000000001");
    expect(res.body.message).toMatch(/more precision than can be accepted/);
  });

  it("refuses an over-precise number of a payout amount too", async () => {
    const h = await setup();
    const res = await postText(h, "/api/v1/merchants/payout/create", '{"currency":"USDT","network":"TRX","amount":1.00000000000000000001,"address":"x"}');
    expectErrorObject(res, 400, 40001);
    expect(res.body.message).toContain("amount:");
  });

  it("names a nested field's path", async () => {
    const h = await setup();
    const res = await postText(h, CREATE, '{"amount": 10, "metadata": {"order": {"total": 0.30000000000000000001}}}');
    expectErrorObject(res, 400, 40001);
    expect(res.body.message).toContain("metadata.order.total:");
  });

  it("refuses an integer beyond 2^53 and asks for a string", async () => {
    const h = await setup();
    const res = await postText(h, CREATE, '{"amount": 10, "metadata": {"id": 9007199254740993}}');
    expectErrorObject(res, 400, 40001);
    expect(res.body.message).toContain("metadata.id:");
    expect(res.body.message).toMatch(/as a string/);
  });

  it("refuses 1e400 (it would be Infinity) with 400", async () => {
    const h = await setup();
    const res = await postText(h, CREATE, '{"amount": 1e400}');
    expectErrorObject(res, 400, 40001);
    expect(res.body.message).toMatch(/amount: .*too large/);
  });

  it("refuses 1e-400 (it would be 0) with 400", async () => {
    const h = await setup();
    const res = await postText(h, CREATE, '{"amount": 1e-400}');
    expectErrorObject(res, 400, 40001);
    expect(res.body.message).toMatch(/amount: .*too small/);
  });

  it("refuses an unsafe number that is the whole body", async () => {
    const h = await setup();
    const res = await postText(h, CREATE, "1e400");
    expectErrorObject(res, 400, 40001);
    expect(res.body.message).toContain("the body:");
  });

  it("takes an exponent as the number it writes: 1.25e1 is 12.5", async () => {
    const h = await setup();
    const res = await postText(h, CREATE, '{"amount": 1.25e1}');
    expect(res.status).toBe(200);
    expect(res.body.amount).toBe(12.5);
  });

  it("takes 1e2 as 100", async () => {
    const h = await setup();
    const res = await postText(h, CREATE, '{"amount": 1e2}');
    expect(res.status).toBe(200);
    expect(res.body.amount).toBe(100);
  });

  it("answers -0 exactly as 0", async () => {
    const h = await setup();
    const zero = await postText(h, CREATE, '{"amount": 0}');
    const negativeZero = await postText(h, CREATE, '{"amount": -0}');
    expect(negativeZero.status).toBe(zero.status);
    expect(negativeZero.body.error).toBe(zero.body.error);
  });

  it("keeps ordinary numbers working: trailing zeros, 0.1, whole numbers", async () => {
    const h = await setup();
    for (const [text, amount] of [
      ["25", 25],
      ["25.50", 25.5],
      ["0.1", 0.1],
      ["123.45", 123.45],
      ["1000000", 1000000],
    ] as const) {
      const res = await postText(h, CREATE, `{"amount": ${text}}`);
      expect(res.status, text).toBe(200);
      expect(res.body.amount, text).toBe(amount);
    }
  });

  it("still refuses more decimals than the amount allows with the schema's own message", async () => {
    const h = await setup();
    const res = await postText(h, CREATE, '{"amount": 10, "underPaidCover": 1.25}');
    expectErrorObject(res, 400, 40001);
    expect(res.body.message).toContain("underPaidCover: must be a multiple of 0.1");
  });

  it("keeps the last of duplicate keys, as JSON.parse does", async () => {
    const h = await setup();
    const res = await postText(h, CREATE, '{"amount": 5, "amount": 7}');
    expect(res.status).toBe(200);
    expect(res.body.amount).toBe(7);
  });

  it("stores __proto__ as a plain key, never as the body's prototype", async () => {
    const h = await setup();
    const res = await postText(h, CREATE, '{"__proto__": {"amount": 5}}');
    expectErrorObject(res, 400, 40001);
  });

  it("still answers malformed JSON with 400 (40004)", async () => {
    const h = await setup();
    for (const text of ['{"amount": 01}', '{"amount": 1.}', '{"amount": NaN}', '{"amount": 10,', "{'amount': 10}"]) {
      const res = await postText(h, CREATE, text);
      expectErrorObject(res, 400, 40004);
      expect(res.body.message).toBe("The request body is not valid JSON.");
    }
  });

  it("still answers a form body with 415 and an oversized body with 413", async () => {
    const h = await setup({ bodyLimit: "1kb" });
    const form = await request(h.app).post(CREATE).set("Authorization", `Bearer ${h.testKey}`).type("form").send("amount=10");
    expectErrorObject(form, 415, 41501);
    const big = await postText(h, CREATE, JSON.stringify({ amount: 10, metadata: { note: "x".repeat(2048) } }));
    expectErrorObject(big, 413, 41301);
  });

  it("refuses a non-UTF charset with 415", async () => {
    const h = await setup();
    const res = await request(h.app)
      .post(CREATE)
      .set("Authorization", `Bearer ${h.testKey}`)
      .set("Content-Type", "application/json; charset=latin1")
      .send('{"amount": 10}');
    expectErrorObject(res, 415, 41501);
  });

  it("reads an empty chunked body as {}", async () => {
    const h = await setup();
    const res = await postText(h, CREATE, "", { "Transfer-Encoding": "chunked" });
    expectErrorObject(res, 400, 40001);
    expect(res.body.message).toContain("amount: is required");
  });

  it("takes a body the host parsed with express.json as it is", async () => {
    const h = await setup();
    const app = express();
    app.use(express.json());
    app.use(h.router);
    const ok = await request(app).post(CREATE).set("Authorization", `Bearer ${h.testKey}`).set("Content-Type", "application/json").send('{"amount": 12.5}');
    expect(ok.status).toBe(200);
    expect(ok.body.amount).toBe(12.5);
    // JSON.parse rounded this before the router saw it: nothing left to check, so it is 10.
    const rounded = await request(app)
      .post(CREATE)
      .set("Authorization", `Bearer ${h.testKey}`)
      .set("Content-Type", "application/json")
      .send('{"amount": 10.0000000000000001}');
    expect(rounded.status).toBe(200);
    expect(rounded.body.amount).toBe(10);
  });
});

describe("deeply nested metadata", () => {
  it("refuses metadata 5,000 levels deep with 400, not 500", async () => {
    const h = await setup();
    const res = await postText(h, CREATE, `{"amount": 10, "metadata": ${nested(5000)}}`);
    expectErrorObject(res, 400, 40001);
    expect(res.body.message).toMatch(/levels deep/);
    expect(h.logger.lines).toEqual([]);
  });

  it("refuses metadata 100,000 levels deep with 400 or, over the body limit, 413", async () => {
    const h = await setup();
    const res = await postText(h, CREATE, `{"amount": 10, "metadata": ${nested(100_000)}}`);
    expect([400, 413]).toContain(res.status);
    expectErrorObject(res, res.status, res.status === 400 ? 40001 : 41301);
  });

  it("refuses 100,000 levels of arrays within a larger body limit with 400", async () => {
    const h = await setup({ bodyLimit: "1mb" });
    const res = await postText(h, CREATE, `{"amount": 10, "metadata": {"a": ${"[".repeat(100_000)}${"]".repeat(100_000)}}}`);
    expectErrorObject(res, 400, 40001);
    expect(res.body.message).toMatch(/levels deep/);
  });

  it("refuses metadata one level past the limit with a message naming metadata", async () => {
    const h = await setup();
    const res = await postText(h, CREATE, `{"amount": 10, "metadata": ${nested(33)}}`);
    expectErrorObject(res, 400, 40001);
    expect(res.body.message).toContain("metadata: must not nest objects and arrays more than 32 levels deep");
  });

  it("accepts metadata exactly 32 levels deep", async () => {
    const h = await setup();
    const res = await postText(h, CREATE, `{"amount": 10, "metadata": ${nested(32)}}`);
    expect(res.status).toBe(200);
  });

  it("refuses deep metadata on /v1/payments too", async () => {
    const h = await setup();
    const res = await postText(h, "/v1/payments", `{"amount": "10", "currency": "USDT", "chain": "TRX", "metadata": ${nested(40)}}`);
    expectErrorObject(res, 400, 40001);
    expect(res.body.message).toContain("metadata:");
  });

  it("refuses 5,000 levels of metadata in a body the host already parsed", async () => {
    const h = await setup();
    const app = express();
    app.use(express.json());
    app.use(h.router);
    const res = await request(app)
      .post(CREATE)
      .set("Authorization", `Bearer ${h.testKey}`)
      .set("Content-Type", "application/json")
      .send(`{"amount": 10, "metadata": ${nested(5000)}}`);
    expectErrorObject(res, 400, 40001);
    expect(res.body.message).toContain("metadata: must not nest");
  });

  it("does not count brackets inside strings", async () => {
    const h = await setup();
    const res = await postText(h, CREATE, JSON.stringify({ amount: 10, metadata: { note: `${"[{".repeat(100)}\\"[` } }));
    expect(res.status).toBe(200);
  });
});

describe("a body that does not arrive in time", () => {
  /** A request head for `path` with the test key; the caller adds the framing headers. */
  const head = (h: Harness, path: string, framing: string) =>
    `POST ${h.prefix}${path} HTTP/1.1\r\nHost: shop.example\r\nAuthorization: Bearer ${h.testKey}\r\nContent-Type: application/json\r\n${framing}\r\n\r\n`;

  it.each([
    ["shorter than its Content-Length on /api/v1", CREATE, "Content-Length: 40", '{"amount": 1'],
    ["shorter than its Content-Length on /v1", "/v1/payments", "Content-Length: 80", '{"amount": "10", "curr'],
    ["chunked and never ended", CREATE, "Transfer-Encoding: chunked", '5\r\n{"amo\r\n'],
    ["announced and never sent", "/v1/payment-links", "Content-Length: 20", ""],
  ])("answers a body %s with 408 (40801) and closes the connection", async (_what, path, framing, part) => {
    const h = await setup({ bodyTimeoutMs: 200 });
    const server = await serveRaw(h.app);
    try {
      const res = await sendAndWaitForClose(server.port, head(h, path, framing) + part);
      expectErrorObject(res, 408, 40801);
      expect(res.body.message).toMatch(/did not arrive in full within 200 ms/);
      expect(res.headers.connection).toBe("close");
      expect(h.logger.lines).toEqual([]);
      // The router goes on serving.
      const ok = await h.post(CREATE, { amount: 10 });
      expect(ok.status).toBe(200);
    } finally {
      await server.close();
    }
  });

  it("answers a hosted page's form that does not arrive in time with a 408 page, and closes the connection", async () => {
    const h = await setup({ bodyTimeoutMs: 200 });
    const invoice = await h.post(CREATE, { amount: 10 });
    const link = await h.post("/v1/payment-links", { amount: "25" });
    expect(link.status, link.text).toBe(200);
    const server = await serveRaw(h.app);
    try {
      for (const path of [`${h.prefix}/pay/${invoice.body.id as string}/method`, new URL(link.body.url as string).pathname]) {
        const form = `POST ${path} HTTP/1.1\r\nHost: shop.example\r\nSec-Fetch-Site: same-origin\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 30\r\n\r\ncoin=US`;
        const res = await sendAndWaitForClose(server.port, form);
        expect(res.status, path).toBe(408);
        expect(res.headers["content-type"]).toMatch(/^text\/html/);
        expect(res.headers.connection).toBe("close");
      }
      expect(h.logger.lines.filter((line) => line.startsWith("error"))).toEqual([]);
      // Nothing was chosen or created by the cut-off posts.
      const after = await h.post("/api/v1/merchants/invoice/fetch", { invoiceId: invoice.body.id });
      expect(after.body.address ?? null).toBeNull();
      const payments = await request(h.app).get(`${h.prefix}/v1/payments?limit=100`).set("Authorization", `Bearer ${h.testKey}`);
      expect(payments.body.data).toHaveLength(1);
    } finally {
      await server.close();
    }
  });

  it("still reads a whole body that arrives within the time", async () => {
    const h = await setup({ bodyTimeoutMs: 60_000 });
    const server = await serveRaw(h.app);
    try {
      const body = '{"amount": 12.5}';
      const res = await sendAndWaitForClose(server.port, `${head(h, CREATE, `Content-Length: ${body.length}\r\nConnection: close`)}${body}`);
      expect(res.status).toBe(200);
      expect(res.body.amount).toBe(12.5);
    } finally {
      await server.close();
    }
  });
});
