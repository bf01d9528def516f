import request from "supertest";
import { describe, expect, it } from "vitest";
import { staticPricing } from "../../../src/adapters/pricing/static";
import { setup, type Harness, simulatedLiveChain } from "../../helpers";
import { CREATING_ROUTES, funded, invoices, payouts } from "./creating-routes";
import { ADDRESS, balances, expectError, get, paidPayment } from "./support";

/**
 * Idempotency-Key on every creating POST of both prefixes, Stripe's rules: the same key and
 * body replay the first answer (`Idempotent-Replayed: true`) and create nothing; the same key
 * with another body is 409 (40901); keys are scoped by merchant and mode and kept 24 hours.
 */

const send = (h: Harness, path: string, body: unknown, key: string, apiKey: string = h.testKey) => h.post(path, body, apiKey).set("Idempotency-Key", key);

describe.each(CREATING_ROUTES)("Idempotency-Key on POST $path", (route) => {
  it("replays the first answer for the same key and body, and creates nothing new", async () => {
    const context = await funded();
    const { h } = context;
    const before = await route.count(h);
    const first = await send(h, route.path, route.body(context), "key-1");
    expect(first.status, first.text).toBe(200);
    expect(first.headers["idempotent-replayed"]).toBeUndefined();
    expect(await route.count(h)).toBe(before + 1);

    h.clock.advanceMinutes(5);
    const replay = await send(h, route.path, route.body(context), "key-1");
    expect(replay.status).toBe(200);
    expect(replay.headers["idempotent-replayed"]).toBe("true");
    if (route.replayLeavesOut) {
      // A secret is shown once: the replay is the first answer without it.
      const expected = { ...first.body } as Record<string, unknown>;
      for (const field of route.replayLeavesOut) {
        expect(first.body[field]).toBeTruthy();
        delete expected[field];
      }
      expect(replay.body).toEqual(expected);
    } else {
      expect(replay.text).toBe(first.text);
    }
    expect(await route.count(h)).toBe(before + 1);
  });

  it("answers 409 (40901) to the same key with another body", async () => {
    const context = await funded();
    const { h } = context;
    expect((await send(h, route.path, route.body(context), "key-1")).status).toBe(200);
    const count = await route.count(h);
    expectError(await send(h, route.path, route.other(context), "key-1"), 409, 40901, /different request/);
    expect(await route.count(h)).toBe(count);
    // A new key runs the other request.
    expect((await send(h, route.path, route.other(context), "key-2")).status).toBe(200);
    expect(await route.count(h)).toBe(count + 1);
  });

  it("executes each request without a key", async () => {
    const context = await funded();
    const { h } = context;
    const before = await route.count(h);
    expect((await h.post(route.path, route.body(context))).status).toBe(200);
    expect((await h.post(route.path, route.body(context))).status).toBe(200);
    expect(await route.count(h)).toBe(before + 2);
  });
});

describe("Idempotency-Key rules", () => {
  it("treats the same JSON with its keys in another order as the same request", async () => {
    const h = await setup();
    const first = await send(h, "/v1/payments", { amount: "10", currency: "TRX", metadata: { a: 1, b: 2 } }, "k");
    const second = await send(h, "/v1/payments", { metadata: { b: 2, a: 1 }, currency: "TRX", amount: "10" }, "k");
    expect(second.headers["idempotent-replayed"]).toBe("true");
    expect(second.body.id).toBe(first.body.id);
  });

  it("answers 409 to the same key on another route", async () => {
    const h = await setup();
    expect((await send(h, "/v1/payment-links", { amount: "10" }, "k")).status).toBe(200);
    expectError(await send(h, "/v1/payments", { amount: "10", currency: "TRX" }, "k"), 409, 40901);
  });

  it("keeps keys apart per merchant", async () => {
    const h = await setup();
    const mine = await send(h, "/v1/payments", { amount: "10", currency: "TRX" }, "shared");
    const theirs = await send(h, "/v1/payments", { amount: "10", currency: "TRX" }, "shared", h.otherTestKey);
    expect(theirs.status).toBe(200);
    expect(theirs.headers["idempotent-replayed"]).toBeUndefined();
    expect(theirs.body.id).not.toBe(mine.body.id);
    // And another body under the same key is no conflict for the other merchant.
    expect((await send(h, "/v1/payments", { amount: "99", currency: "TRX" }, "mine-only", h.otherTestKey)).status).toBe(200);
    expect((await send(h, "/v1/payments", { amount: "1", currency: "TRX" }, "mine-only")).status).toBe(200);
    expect((await get(h, `/v1/payments/${theirs.body.id}`, h.otherTestKey)).status).toBe(200);
  });

  it("keeps keys apart per mode", async () => {
    const h = await setup({ liveChain: simulatedLiveChain() });
    const test = await send(h, "/v1/payments", { amount: "10", currency: "TRX" }, "shared");
    const live = await send(h, "/v1/payments", { amount: "10", currency: "TRX" }, "shared", h.liveKey);
    expect(live.status).toBe(200);
    expect(live.headers["idempotent-replayed"]).toBeUndefined();
    expect(live.body).toMatchObject({ livemode: true });
    expect(live.body.id).not.toBe(test.body.id);
    const liveLink = await send(h, "/v1/payment-links", { amount: "1" }, "link", h.liveKey);
    const testLink = await send(h, "/v1/payment-links", { amount: "2" }, "link");
    expect([liveLink.status, testLink.status]).toEqual([200, 200]);
    expect(testLink.body.livemode).toBe(false);
  });

  it("replays for another key of the same merchant and mode", async () => {
    const h = await setup();
    const second = (await h.router.admin.issueApiKey(h.merchant.id, { mode: "test" })).key;
    const first = await send(h, "/v1/payments", { amount: "10", currency: "TRX" }, "k");
    const replay = await send(h, "/v1/payments", { amount: "10", currency: "TRX" }, "k", second);
    expect(replay.headers["idempotent-replayed"]).toBe("true");
    expect(replay.body.id).toBe(first.body.id);
  });

  it("replays a 4xx answer such as insufficient balance, even after the balance is there", async () => {
    const h = await setup();
    const body = { currency: "USDT", chain: "TRX", amount: "10", address: ADDRESS };
    const first = await send(h, "/v1/withdrawals", body, "w");
    expectError(first, 422, 42201);
    expect(first.headers["idempotent-replayed"]).toBeUndefined();

    await paidPayment(h, "100");
    const replay = await send(h, "/v1/withdrawals", body, "w");
    expectError(replay, 422, 42201);
    expect(replay.headers["idempotent-replayed"]).toBe("true");
    expect(replay.text).toBe(first.text);
    expect(await payouts(h)).toBe(0);
    expect((await balances(h)).USDT!.available).toBe("99.5");
    // A new key runs it.
    expect((await send(h, "/v1/withdrawals", body, "w2")).status).toBe(200);
  });

  it("replays a 404 answer", async () => {
    const h = await setup();
    const first = await send(h, "/v1/refunds", { paymentId: "inv_unknown", address: ADDRESS }, "r");
    expectError(first, 404, 40401);
    const replay = await send(h, "/v1/refunds", { paymentId: "inv_unknown", address: ADDRESS }, "r");
    expect(replay.headers["idempotent-replayed"]).toBe("true");
    expect(replay.text).toBe(first.text);
  });

  it("does not store a validation error of the body: the same key then works with a corrected body", async () => {
    const h = await setup();
    const invalid = await send(h, "/v1/payments", { amount: 10, currency: "TRX" }, "fix-me");
    expectError(invalid, 400, 40001, /amount/);
    expect(invalid.headers["idempotent-replayed"]).toBeUndefined();
    const corrected = await send(h, "/v1/payments", { amount: "10", currency: "TRX" }, "fix-me");
    expect(corrected.status, corrected.text).toBe(200);
    expect(corrected.headers["idempotent-replayed"]).toBeUndefined();
    const replay = await send(h, "/v1/payments", { amount: "10", currency: "TRX" }, "fix-me");
    expect(replay.headers["idempotent-replayed"]).toBe("true");
    expect(await invoices(h)).toBe(1);
  });

  it("does not store a server error: the same key runs again once the cause is gone", async () => {
    const prices = staticPricing();
    let down = true;
    const h = await setup({
      pricing: {
        getRate: async (base, quote) => {
          if (down && base === "BTC") throw new Error("feed down");
          return prices.getRate(base, quote);
        },
      },
    });
    const body = { amount: "10", currency: "BTC", amountCurrency: "USD" };
    expectError(await send(h, "/v1/payments", body, "retry"), 503, 50302);
    down = false;
    const retried = await send(h, "/v1/payments", body, "retry");
    expect(retried.status, retried.text).toBe(200);
    expect(retried.headers["idempotent-replayed"]).toBeUndefined();
    expect(await invoices(h)).toBe(1);
  });

  it("accepts a key of 255 characters and refuses one of 256 with 400", async () => {
    const h = await setup();
    expect((await send(h, "/v1/payments", { amount: "10", currency: "TRX" }, "k".repeat(255))).status).toBe(200);
    expectError(await send(h, "/v1/payments", { amount: "10", currency: "TRX" }, "k".repeat(256)), 400, 40001, /Idempotency-Key/);
    expectError(await send(h, "/api/v1/merchants/invoice/create", { amount: 10 }, "x".repeat(300)), 400, 40001, /Idempotency-Key/);
    expect(await invoices(h)).toBe(1);
  });

  it.each([
    ["spaces", "two words"],
    ["an empty value", ""],
    ["non-ASCII characters", "cl\u00e9"],
  ])("refuses a key with %s", async (_name, key) => {
    const h = await setup();
    expectError(await send(h, "/v1/payments", { amount: "10", currency: "TRX" }, key), 400, 40001, /Idempotency-Key/);
    expect(await invoices(h)).toBe(0);
  });

  it("replays a retry that drops the trailing slash of the path", async () => {
    // The dispatcher serves /v1/payments/ and /v1/payments as one route, so a retry of the same
    // request with the other spelling is the same request, not another one (409).
    const h = await setup();
    const first = await send(h, "/v1/payments/", { amount: "10", currency: "TRX" }, "slash");
    expect(first.status).toBe(200);
    const retry = await send(h, "/v1/payments", { amount: "10", currency: "TRX" }, "slash");
    expect(retry.status, retry.text).toBe(200);
    expect(retry.headers["idempotent-replayed"]).toBe("true");
    expect(await invoices(h)).toBe(1);
  });

  it("keeps a key for 24 hours on the service clock", async () => {
    const h = await setup();
    const first = await send(h, "/v1/payments", { amount: "10", currency: "TRX" }, "daily");
    h.clock.advanceMinutes(24 * 60 - 1);
    await h.router.tick();
    expectError(await send(h, "/v1/payments", { amount: "11", currency: "TRX" }, "daily"), 409, 40901);
    const stillReplayed = await send(h, "/v1/payments", { amount: "10", currency: "TRX" }, "daily");
    expect(stillReplayed.body.id).toBe(first.body.id);

    h.clock.advanceMinutes(2); // 24 h + 1 min after the first use
    await h.router.tick();
    const reused = await send(h, "/v1/payments", { amount: "11", currency: "TRX" }, "daily");
    expect(reused.status, reused.text).toBe(200);
    expect(reused.headers["idempotent-replayed"]).toBeUndefined();
    expect(reused.body.id).not.toBe(first.body.id);
    expect(await invoices(h)).toBe(2);
  });

  it("runs concurrent requests with one key exactly once", async () => {
    const h = await setup();
    const answers = await Promise.all(Array.from({ length: 10 }, () => send(h, "/v1/payments", { amount: "10", currency: "TRX" }, "race")));
    for (const res of answers) expect([200, 409], res.text).toContain(res.status);
    const created = answers.filter((res) => res.status === 200);
    expect(created.length).toBeGreaterThanOrEqual(1);
    expect(new Set(created.map((res) => res.body.id)).size).toBe(1);
    expect(created.filter((res) => res.headers["idempotent-replayed"] === undefined)).toHaveLength(1);
    for (const res of answers.filter((answer) => answer.status === 409)) expectError(res, 409, 40901);
    expect(await invoices(h)).toBe(1);
  });

  it("answers 409 to a second request while the first one with the key is still running", async () => {
    const prices = staticPricing();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let entered!: () => void;
    const inside = new Promise<void>((resolve) => (entered = resolve));
    const h = await setup({
      pricing: {
        getRate: async (base, quote) => {
          entered();
          await gate;
          return prices.getRate(base, quote);
        },
      },
    });
    const body = { amount: "10", currency: "BTC", amountCurrency: "USD" };
    const first = send(h, "/v1/payments", body, "slow").then((res) => res);
    await inside;
    expectError(await send(h, "/v1/payments", body, "slow"), 409, 40901, /still being processed/);
    release();
    expect((await first).status).toBe(200);
    const replay = await send(h, "/v1/payments", body, "slow");
    expect(replay.headers["idempotent-replayed"]).toBe("true");
    expect(replay.body.id).toBe((await first).body.id);
    expect(await invoices(h)).toBe(1);
  });

  it("debits once for concurrent withdrawals with one key", async () => {
    const h = await setup();
    await paidPayment(h, "100");
    const body = { currency: "USDT", chain: "TRX", amount: "10", address: ADDRESS };
    const answers = await Promise.all(Array.from({ length: 8 }, () => send(h, "/v1/withdrawals", body, "race")));
    for (const res of answers) expect([200, 409]).toContain(res.status);
    expect(await payouts(h)).toBe(1);
    expect((await balances(h)).USDT!.available).toBe("87.5");
  });

  it("is listed on every creating POST of the API reference", async () => {
    const h = await setup();
    const document = await request(h.app).get("/api/openapi");
    expect(document.status).toBe(200);
    const posts = Object.entries(document.body.paths as Record<string, { post?: { parameters?: Array<{ in: string; name: string }> } }>)
      .filter(([, operations]) => operations.post)
      .map(([path, operations]) => ({ path, idempotent: (operations.post!.parameters ?? []).some((p) => p.in === "header" && p.name === "Idempotency-Key") }));
    const idempotent = posts.filter((post) => post.idempotent).map((post) => post.path);
    for (const route of CREATING_ROUTES) expect(idempotent).toContain(route.path);
    // Every other POST reads, acts on an existing record, or drives the sandbox.
    const others = posts.filter((post) => !post.idempotent).map((post) => post.path);
    expect(others.filter((path) => /\/(create|payments|withdrawals|conversions|refunds|payment-links|webhook-endpoints)$/.test(path))).toEqual([]);
  });
});
