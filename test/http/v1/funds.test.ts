import { describe, expect, it } from "vitest";
import { setup, type Harness, simulatedLiveChain } from "../../helpers";
import { ADDRESS, balances, createPayment, deposit, expectError, get, paidPayment, scopeOf, walk } from "./support";

/** /v1/withdrawals, /v1/conversions and /v1/balances. */

/** 100 USDT paid on TRX: 99.5 USDT available. */
async function fund(h: Harness, amount = "100"): Promise<void> {
  await paidPayment(h, amount, "USDT", "TRX");
}

const withdraw = (h: Harness, body: Record<string, unknown> = {}, key?: string) =>
  h.post("/v1/withdrawals", { currency: "USDT", chain: "TRX", amount: "10", address: ADDRESS, ...body }, key);

const convert = (h: Harness, body: Record<string, unknown> = {}, key?: string) =>
  h.post("/v1/conversions", { fromCurrency: "USDT", toCurrency: "TRX", amount: "12", ...body }, key);

describe("POST /v1/withdrawals", () => {
  it("creates a PROCESSING withdrawal with decimal strings and debits amount plus fees", async () => {
    const h = await setup();
    await fund(h);
    const res = await withdraw(h, { amount: "10.5" });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({
      object: "withdrawal",
      livemode: false,
      status: "PROCESSING",
      currency: "USDT",
      chain: "TRX",
      amount: "10.5",
      fee: "2", // withdrawFee 1 + staticFixedFee 1
      address: ADDRESS,
      failureReason: null,
      createdAt: new Date(h.clock.ms).toISOString(),
    });
    expect(res.body.id).toMatch(/^po_/);
    expect(res.body.txHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect((await balances(h)).USDT!.available).toBe("87");
  });

  it("completes on the next tick and can be fetched and listed", async () => {
    const h = await setup();
    await fund(h);
    const created = (await withdraw(h)).body;
    h.clock.advanceMinutes(1);
    await h.router.tick();
    const fetched = await get(h, `/v1/withdrawals/${created.id}`);
    expect(fetched.status).toBe(200);
    expect(fetched.body).toMatchObject({ id: created.id, status: "COMPLETED", amount: "10", updatedAt: new Date(h.clock.ms).toISOString() });
    const list = await get(h, "/v1/withdrawals");
    expect(list.body).toMatchObject({ data: [{ id: created.id, status: "COMPLETED" }], hasMore: false, nextCursor: null });
  });

  it("returns the funds of a failed withdrawal", async () => {
    const h = await setup();
    await fund(h);
    const created = (await withdraw(h)).body;
    const failed = await h.post("/api/v1/sandbox/payout/fail", { payoutId: created.id, reason: "node rejected it" });
    expect(failed.status, failed.text).toBe(200);
    expect((await get(h, `/v1/withdrawals/${created.id}`)).body).toMatchObject({ status: "FAILED", failureReason: "node rejected it" });
    expect((await balances(h)).USDT!.available).toBe("99.5");
  });

  it("lists newest first, pages with a cursor and filters by status", async () => {
    const h = await setup();
    await fund(h);
    const made: string[] = [];
    for (let index = 0; index < 5; index++) {
      made.push((await withdraw(h, { amount: String(5 + index) })).body.id);
      h.clock.ms += 1;
    }
    await h.post("/api/v1/sandbox/payout/fail", { payoutId: made[1] });
    const pages = await walk(h, "/v1/withdrawals", "limit=2");
    expect(pages.flatMap((page) => page.data.map((row) => row.id))).toEqual([...made].reverse());
    expect((await get(h, "/v1/withdrawals?status=FAILED")).body.data.map((row: { id: string }) => row.id)).toEqual([made[1]]);
    // Failing one payout runs the payout loop, which completes the others.
    expect((await get(h, "/v1/withdrawals?status=COMPLETED")).body.data).toHaveLength(4);
    expect((await get(h, "/v1/withdrawals?status=PROCESSING")).body.data).toEqual([]);
    expectError(await get(h, "/v1/withdrawals?status=DONE"), 400, 40001, /status/);
    expectError(await get(h, "/v1/withdrawals?limit=0"), 400, 40001, /limit/);
  });

  it("keeps refunds out of the withdrawal list and the withdrawal endpoints", async () => {
    const h = await setup();
    await fund(h, "400");
    const payment = await paidPayment(h, "50");
    const refund = await h.post("/v1/refunds", { paymentId: payment.id, amount: "10", address: ADDRESS });
    expect(refund.status, refund.text).toBe(200);
    const withdrawal = (await withdraw(h)).body;
    expect((await get(h, "/v1/withdrawals")).body.data.map((row: { id: string }) => row.id)).toEqual([withdrawal.id]);
    expectError(await get(h, `/v1/withdrawals/${refund.body.id}`), 404, 40401);
    expectError(await get(h, `/v1/withdrawals?cursor=${refund.body.id}`), 400, 40001, /cursor/);
  });

  describe("refusals", () => {
    it.each([
      ["a negative amount", { amount: "-1" }, 400, 40001, /amount/],
      ["an exponent", { amount: "1e5" }, 400, 40001, /amount/],
      ["an empty amount", { amount: "" }, 400, 40001, /amount/],
      ["a JSON number amount", { amount: 10 }, 400, 40001, /amount/],
      ["more decimals than the coin has", { amount: "10.1234567" }, 400, 40001, /6 decimal places/],
      ["an unknown currency", { currency: "DOGE" }, 400, 40005, /DOGE/],
      ["an unknown chain", { chain: "SOL" }, 400, 40005, /SOL/],
      ["no chain for a coin with several networks", { chain: undefined }, 400, 40001, /network is required/],
      ["an unknown field", { memo: "x" }, 400, 40001, /unknown field "memo"/],
      ["a missing address", { address: undefined }, 400, 40001, /address/],
      ["an address the chain rejects", { address: "invalid-address" }, 400, 40003, /invalid-address/],
      ["an amount below withdrawMin", { amount: "4.99" }, 400, 40002, /smallest USDT payout on TRX is 5/],
      ["an amount of zero", { amount: "0" }, 400, 40001, /greater than 0/],
      ["more than the balance covers", { amount: "98" }, 422, 42201, /does not cover 100/],
    ])("refuses %s and debits nothing", async (_name, change, status, code, message) => {
      const h = await setup();
      await fund(h);
      expectError(await withdraw(h, change), status, code, message);
      expect((await balances(h)).USDT!.available).toBe("99.5");
      expect(await h.router.storage.listPayouts(scopeOf(h), { kind: "payout" }, { limit: 10 })).toEqual([]);
    });
  });

  it("answers 404 for another merchant's withdrawal and an unknown id", async () => {
    const h = await setup();
    await fund(h);
    const mine = (await withdraw(h)).body;
    expectError(await get(h, `/v1/withdrawals/${mine.id}`, h.otherTestKey), 404, 40401);
    expectError(await get(h, "/v1/withdrawals/po_unknown"), 404, 40401);
    expect((await get(h, "/v1/withdrawals", h.otherTestKey)).body.data).toEqual([]);
  });
});

describe("POST /v1/conversions", () => {
  it("converts at the pricing rate with no spread and moves both balances", async () => {
    const h = await setup();
    await fund(h);
    const res = await convert(h);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({
      object: "conversion",
      livemode: false,
      status: "SUCCESS",
      fromCurrency: "USDT",
      toCurrency: "TRX",
      amount: "12",
      rate: "8.333333333333333333",
      toAmount: "99.999999",
      paymentId: null,
      createdAt: new Date(h.clock.ms).toISOString(),
    });
    expect(res.body.id).toMatch(/^ex_/);
    const after = await balances(h);
    expect(after.USDT!.available).toBe("87.5");
    expect(after.TRX!.available).toBe("99.999999");
  });

  it("can be fetched and listed newest first with a cursor", async () => {
    const h = await setup();
    await fund(h);
    const made: string[] = [];
    for (let index = 0; index < 3; index++) {
      made.push((await convert(h, { amount: "6" })).body.id);
      h.clock.ms += 1;
    }
    expect((await get(h, `/v1/conversions/${made[0]}`)).body).toMatchObject({ id: made[0], amount: "6", toCurrency: "TRX" });
    const pages = await walk(h, "/v1/conversions", "limit=2");
    expect(pages.flatMap((page) => page.data.map((row) => row.id))).toEqual([...made].reverse());
    expectError(await get(h, "/v1/conversions?status=SUCCESS"), 400, 40001, /unknown field/);
    expectError(await get(h, "/v1/conversions?cursor=ex_unknown"), 400, 40001, /cursor/);
  });

  describe("refusals", () => {
    it.each([
      ["a negative amount", { amount: "-1" }, 400, 40001, /amount/],
      ["an exponent", { amount: "1e5" }, 400, 40001, /amount/],
      ["an empty amount", { amount: "" }, 400, 40001, /amount/],
      ["a JSON number amount", { amount: 12 }, 400, 40001, /amount/],
      ["more decimals than the coin has", { amount: "12.0000001" }, 400, 40001, /6 decimal places/],
      ["an unknown fromCurrency", { fromCurrency: "DOGE" }, 400, 40005, /fromCurrency "DOGE"/],
      ["an unknown toCurrency", { toCurrency: "USD" }, 400, 40005, /toCurrency "USD"/],
      ["the same currency on both sides", { toCurrency: "usdt" }, 400, 40001, /must differ/],
      ["an unknown field", { chain: "TRX" }, 400, 40001, /unknown field "chain"/],
      ["an amount below the pair's minimum", { amount: "4.99" }, 400, 40002, /smallest USDT -> TRX exchange is 5/],
      ["more than the balance", { amount: "100" }, 422, 42201, /does not cover 100 USDT/],
    ])("refuses %s and moves nothing", async (_name, change, status, code, message) => {
      const h = await setup();
      await fund(h);
      expectError(await convert(h, change), status, code, message);
      const after = await balances(h);
      expect([after.USDT!.available, after.TRX!.available]).toEqual(["99.5", "0"]);
      expect((await get(h, "/v1/conversions")).body.data).toEqual([]);
    });
  });

  it("answers 404 for another merchant's conversion", async () => {
    const h = await setup();
    await fund(h);
    const mine = (await convert(h)).body;
    expectError(await get(h, `/v1/conversions/${mine.id}`, h.otherTestKey), 404, 40401);
    expectError(await get(h, "/v1/conversions/ex_unknown"), 404, 40401);
  });
});

describe("GET /v1/balances", () => {
  it("lists every currency with zero balances before anything was received", async () => {
    const h = await setup();
    const res = await get(h, "/v1/balances");
    expect(res.status).toBe(200);
    expect(res.body.data.map((row: { currency: string }) => row.currency)).toEqual(["BTC", "ETH", "USDC", "POL", "USDT", "LTC", "XMR", "TRX"]);
    for (const row of res.body.data) expect(row).toEqual({ currency: row.currency, available: "0", pending: "0", lastSettledAt: null });
  });

  it("shows an unconfirmed deposit as pending, then as available once confirmed", async () => {
    const h = await setup();
    const payment = await createPayment(h, { amount: "100", currency: "USDT", chain: "TRX" });
    const txHash = await deposit(h, payment.address!, "40", 3);
    expect((await balances(h)).USDT).toEqual({ currency: "USDT", available: "0", pending: "40", lastSettledAt: null });

    h.clock.advanceMinutes(7);
    const confirmed = await h.post("/api/v1/sandbox/deposit/confirm", { txHash, confirmations: 19 });
    expect(confirmed.status).toBe(200);
    expect((await balances(h)).USDT).toEqual({ currency: "USDT", available: "39.8", pending: "0", lastSettledAt: new Date(h.clock.ms).toISOString() });
  });

  it("adds up several pending deposits and leaves dropped ones out", async () => {
    const h = await setup();
    const first = await createPayment(h, { amount: "1", currency: "BTC" });
    const second = await createPayment(h, { amount: "1", currency: "BTC" });
    await deposit(h, first.address!, "0.25", 1);
    const dropped = await deposit(h, second.address!, "0.5", 0);
    expect((await balances(h)).BTC!.pending).toBe("0.75");
    expect((await h.post("/api/v1/sandbox/deposit/drop", { txHash: dropped })).status).toBe(200);
    expect((await balances(h)).BTC).toMatchObject({ available: "0", pending: "0.25" });
  });

  it("moves lastSettledAt with every ledger change of the asset only", async () => {
    const h = await setup();
    await fund(h);
    const credited = new Date(h.clock.ms).toISOString();
    h.clock.advanceMinutes(30);
    await withdraw(h);
    const withdrawn = new Date(h.clock.ms).toISOString();
    const after = await balances(h);
    expect(after.USDT).toMatchObject({ available: "87.5", lastSettledAt: withdrawn });
    expect(after.BTC!.lastSettledAt).toBeNull();
    expect(withdrawn).not.toBe(credited);

    h.clock.advanceMinutes(30);
    await convert(h);
    const converted = await balances(h);
    expect(converted.USDT!.lastSettledAt).toBe(new Date(h.clock.ms).toISOString());
    expect(converted.TRX!.lastSettledAt).toBe(new Date(h.clock.ms).toISOString());
  });

  it("keeps merchants and modes apart", async () => {
    const h = await setup({ liveChain: simulatedLiveChain() });
    await fund(h);
    expect((await balances(h, h.otherTestKey)).USDT!.available).toBe("0");
    expect((await balances(h, h.liveKey)).USDT!.available).toBe("0");
  });

  it("refuses query parameters", async () => {
    const h = await setup();
    expectError(await get(h, "/v1/balances?currency=USDT"), 400, 40001, /unknown field/);
  });
});

/** The events of one resource (a withdrawal, refund or conversion), oldest first, as storage recorded them. */
async function eventsOf(h: Harness, id: string) {
  return (await h.router.storage.listEvents(scopeOf(h), { invoiceId: id })).map(({ type, data }) => ({ type, data }));
}

describe("withdrawal and conversion events", () => {
  it("records payout.processing with the debit and payout.completed with the settlement, each carrying the withdrawal as /v1 shows it", async () => {
    const h = await setup();
    await fund(h);
    const created = (await withdraw(h, { amount: "10.5" })).body;
    // Recorded in the debit's unit of work, before the chain took it: no txHash yet.
    expect(await eventsOf(h, created.id)).toEqual([{ type: "payout.processing", data: { ...created, txHash: null } }]);
    h.clock.advanceMinutes(1);
    await h.router.tick();
    const completed = (await get(h, `/v1/withdrawals/${created.id}`)).body;
    expect(completed.status).toBe("COMPLETED");
    expect(await eventsOf(h, created.id)).toEqual([
      { type: "payout.processing", data: { ...created, txHash: null } },
      { type: "payout.completed", data: completed },
    ]);
    // Settled payouts record nothing more.
    await h.router.tick();
    expect(await eventsOf(h, created.id)).toHaveLength(2);
  });

  it("records payout.failed with the failure reason when the chain refuses it", async () => {
    const h = await setup();
    await fund(h);
    const created = (await withdraw(h)).body;
    await h.post("/api/v1/sandbox/payout/fail", { payoutId: created.id, reason: "node rejected it" });
    const failed = (await get(h, `/v1/withdrawals/${created.id}`)).body;
    expect((await eventsOf(h, created.id)).map((event) => event.type)).toEqual(["payout.processing", "payout.failed"]);
    expect((await eventsOf(h, created.id))[1]!.data).toEqual(failed);
    expect(failed).toMatchObject({ status: "FAILED", failureReason: "node rejected it" });
  });

  it("records no event for a refused withdrawal or conversion", async () => {
    const h = await setup();
    await fund(h, "10");
    expect((await withdraw(h, { amount: "1000" })).status).toBe(422);
    expect((await convert(h, { amount: "1000" })).status).toBe(422);
    const types = (await h.router.storage.listEvents(scopeOf(h))).map((event) => event.type);
    expect(types.filter((type) => !type.startsWith("payment."))).toEqual([]);
  });

  it("records conversion.completed for a conversion asked for and for an auto-conversion, carrying the conversion as /v1 shows it", async () => {
    const h = await setup();
    await fund(h);
    const made = (await convert(h)).body;
    expect(await eventsOf(h, made.id)).toEqual([{ type: "conversion.completed", data: made }]);
    const settled = await paidPayment(h, "10", "USDT", "TRX", { settleCurrency: "TRX" });
    const [auto] = (await get(h, "/v1/conversions")).body.data.filter((row: { paymentId: string | null }) => row.paymentId === settled.id);
    expect(auto).toBeDefined();
    expect(await eventsOf(h, auto.id)).toEqual([{ type: "conversion.completed", data: auto }]);
  });

  it("logs one line per sent payout through the logger's info, with ids, amount and txHash and no node URL or key", async () => {
    const lines: Array<{ message: string; details: unknown[] }> = [];
    const logger = { info: (message: string, ...details: unknown[]) => void lines.push({ message, details }), warn: () => undefined, error: () => undefined };
    const h = await setup({ logger });
    await fund(h);
    const created = (await withdraw(h, { amount: "10.5" })).body;
    h.clock.advanceMinutes(1);
    await h.router.tick();
    await h.router.tick();
    const sent = lines.filter((line) => line.message.includes(created.id));
    expect(sent).toEqual([
      {
        message: `payout ${created.id} sent`,
        details: [
          {
            event: "payout.sent",
            payoutId: created.id,
            merchantId: h.merchant.id,
            mode: "test",
            refundOf: null,
            coin: "USDT",
            network: "TRX",
            amount: "10.5",
            fee: "2",
            address: ADDRESS,
            txHash: created.txHash,
          },
        ],
      },
    ]);
    expect(JSON.stringify(lines)).not.toMatch(/sk_test_|https?:\/\//);
  });

  it("logs one warning for a payout that failed on chain, when its debit went back to the balance, and none on later rounds", async () => {
    const warnings: Array<{ message: string; details: unknown[] }> = [];
    const logger = {
      info: () => undefined,
      warn: (message: string, ...details: unknown[]) => void warnings.push({ message, details }),
      error: () => undefined,
    };
    const h = await setup({ logger });
    await fund(h);
    const created = (await withdraw(h, { amount: "10.5" })).body;
    expect(h.router.sandbox.failPayout(created.id, "out of gas")).toBe(true);
    for (let round = 0; round < 3; round++) await h.router.tick();
    expect(warnings.filter((warning) => warning.message.startsWith("payout"))).toEqual([
      {
        message: `payout ${created.id} failed on chain (out of gas): 10.5 USDT and its fee 2 returned to the balance`,
        details: [
          {
            event: "payout.failed",
            payoutId: created.id,
            merchantId: h.merchant.id,
            mode: "test",
            refundOf: null,
            coin: "USDT",
            network: "TRX",
            amount: "10.5",
            fee: "2",
            address: ADDRESS,
            txHash: created.txHash,
            reason: "out of gas",
          },
        ],
      },
    ]);
  });
});
