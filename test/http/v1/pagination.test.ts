import { describe, expect, it } from "vitest";
import { setup, type Harness, simulatedLiveChain } from "../../helpers";
import { createPayment, deposit, expectError, get, walk, type PaymentBody } from "./support";

/**
 * GET /v1/payments: cursor pagination newest first, stable while payments are created during
 * the walk, and the filters alone and combined with paging.
 */

/**
 * Creates `count` payments in groups: each group in one millisecond (so ties on createdAt are
 * common), `gapMs` between groups. Returns them in creation order.
 */
async function createMany(
  h: Harness,
  count: number,
  groupSize: number,
  gapMs = 3,
  body: Record<string, unknown> = { amount: "10", currency: "TRX" },
): Promise<PaymentBody[]> {
  const created: PaymentBody[] = [];
  for (let index = 0; index < count; index++) {
    if (index > 0 && index % groupSize === 0) h.clock.ms += gapMs;
    created.push(await createPayment(h, { ...body, metadata: { orderId: `order-${index}` } }));
  }
  return created;
}

/** Asserts that a list is newest first: createdAt never increases along it. */
function expectNewestFirst(payments: PaymentBody[]): void {
  for (let index = 1; index < payments.length; index++) {
    expect(Date.parse(payments[index]!.createdAt)).toBeLessThanOrEqual(Date.parse(payments[index - 1]!.createdAt));
  }
}

const ids = (payments: Array<{ id: string }>) => payments.map((payment) => payment.id);

describe("walking GET /v1/payments", () => {
  it("walks 55 payments by 10 and sees each exactly once, newest first", async () => {
    const h = await setup();
    // Groups of 4 in one millisecond, a few ms apart; then 7 more in a single millisecond.
    const created = await createMany(h, 48, 4);
    h.clock.ms += 2;
    created.push(...(await createMany(h, 7, 7)));
    expect(created).toHaveLength(55);

    const pages = await walk<PaymentBody>(h, "/v1/payments", "limit=10");
    expect(pages.map((page) => page.data.length)).toEqual([10, 10, 10, 10, 10, 5]);
    expect(pages.map((page) => page.hasMore)).toEqual([true, true, true, true, true, false]);
    expect(pages.at(-1)!.nextCursor).toBeNull();
    for (const page of pages.slice(0, -1)) expect(page.nextCursor).toBe(page.data.at(-1)!.id);

    const seen = pages.flatMap((page) => page.data);
    expect(new Set(ids(seen)).size).toBe(55);
    expect([...ids(seen)].sort()).toEqual([...ids(created)].sort());
    expectNewestFirst(seen);
    // The newest group comes first and the oldest group last, whatever the order within a millisecond.
    expect(new Set(ids(seen.slice(0, 7)))).toEqual(new Set(ids(created.slice(48))));
    expect(new Set(ids(seen.slice(-4)))).toEqual(new Set(ids(created.slice(0, 4))));
    // The pages agree with one big page.
    const whole = await get(h, "/v1/payments?limit=100");
    expect(ids(whole.body.data)).toEqual(ids(seen));
    expect(whole.body).toMatchObject({ hasMore: false, nextCursor: null });
  });

  it("defaults to 20 per page", async () => {
    const h = await setup();
    await createMany(h, 21, 5);
    const res = await get(h, "/v1/payments");
    expect(res.body.data).toHaveLength(20);
    expect(res.body.hasMore).toBe(true);
  });

  it("says hasMore false when the last page is exactly full", async () => {
    const h = await setup();
    await createMany(h, 20, 3);
    const pages = await walk(h, "/v1/payments", "limit=10");
    expect(pages.map((page) => [page.data.length, page.hasMore])).toEqual([
      [10, true],
      [10, false],
    ]);
  });

  it("answers an empty list for a merchant without payments", async () => {
    const h = await setup();
    expect((await get(h, "/v1/payments")).body).toEqual({ data: [], hasMore: false, nextCursor: null });
  });

  it("neither repeats nor skips an old payment when payments are created during the walk", async () => {
    const h = await setup();
    const old = await createMany(h, 55, 5);
    const seen: string[] = [];
    const fresh: string[] = [];
    let cursor: string | null = null;
    for (let pageIndex = 0; ; pageIndex++) {
      const res = await get(h, `/v1/payments?limit=10${cursor ? `&cursor=${cursor}` : ""}`);
      expect(res.status).toBe(200);
      seen.push(...ids(res.body.data));
      // Between pages: new payments now, in the newest millisecond, and in the cursor's own millisecond.
      fresh.push((await createPayment(h, { amount: "1", currency: "TRX" })).id);
      h.clock.ms += 1;
      fresh.push((await createPayment(h, { amount: "1", currency: "TRX" })).id);
      if (res.body.data.length > 0) {
        const last = res.body.data.at(-1) as PaymentBody;
        const now = h.clock.ms;
        h.clock.ms = Date.parse(last.createdAt);
        fresh.push((await createPayment(h, { amount: "1", currency: "TRX" })).id);
        h.clock.ms = now;
      }
      if (!res.body.hasMore) break;
      cursor = res.body.nextCursor;
      expect(pageIndex).toBeLessThan(20);
    }
    // No id twice; every old payment once; a new one may show up (same millisecond as the cursor) but only once.
    expect(new Set(seen).size).toBe(seen.length);
    const oldIds = new Set(ids(old));
    expect(seen.filter((id) => oldIds.has(id)).sort()).toEqual([...oldIds].sort());
    expect(seen.filter((id) => !oldIds.has(id)).every((id) => fresh.includes(id))).toBe(true);
    expect(seen.filter((id) => !oldIds.has(id)).length).toBeLessThanOrEqual(fresh.length);
  });

  it("continues from a cursor whose payment no longer matches the filter", async () => {
    const h = await setup();
    const created = await createMany(h, 6, 1);
    const first = await get(h, "/v1/payments?status=PENDING&limit=3");
    expect(ids(first.body.data)).toEqual(ids(created.slice(3).reverse()));
    const cursorPayment = first.body.data.at(-1) as PaymentBody;
    await deposit(h, cursorPayment.address!, "10", 19); // the cursor payment becomes PAID
    const second = await get(h, `/v1/payments?status=PENDING&limit=3&cursor=${first.body.nextCursor}`);
    expect(second.status).toBe(200);
    expect(ids(second.body.data)).toEqual(ids(created.slice(0, 3).reverse()));
    expect(second.body.hasMore).toBe(false);
  });
});

describe("filters of GET /v1/payments", () => {
  /** 3 TRX payments, then 3 USDT on BSC, then 3 BTC, one minute apart; the second of each is paid. */
  async function mixed(h: Harness) {
    const made: PaymentBody[] = [];
    for (const body of [
      { amount: "10", currency: "TRX" },
      { amount: "10", currency: "USDT", chain: "BSC" },
      { amount: "0.001", currency: "BTC" },
    ]) {
      for (let index = 0; index < 3; index++) {
        made.push(await createPayment(h, body));
        h.clock.advanceMinutes(1);
      }
    }
    for (const payment of [made[1]!, made[4]!, made[7]!]) await deposit(h, payment.address!, payment.payAmount!, 19);
    return made;
  }

  it("filters by status", async () => {
    const h = await setup();
    const made = await mixed(h);
    const paid = await get(h, "/v1/payments?status=PAID");
    expect(ids(paid.body.data)).toEqual([made[7]!.id, made[4]!.id, made[1]!.id]);
    expect(paid.body.data.every((payment: PaymentBody) => payment.status === "PAID")).toBe(true);
    expect((await get(h, "/v1/payments?status=PENDING")).body.data).toHaveLength(6);
    expect((await get(h, "/v1/payments?status=EXPIRED")).body.data).toEqual([]);
  });

  it("filters by chain, case-insensitively", async () => {
    const h = await setup();
    const made = await mixed(h);
    expect(ids((await get(h, "/v1/payments?chain=bsc")).body.data)).toEqual(ids(made.slice(3, 6).reverse()));
    expect(ids((await get(h, "/v1/payments?chain=TRX")).body.data)).toEqual(ids(made.slice(0, 3).reverse()));
    expect((await get(h, "/v1/payments?chain=SOL")).body.data).toEqual([]);
  });

  it("filters by createdFrom (inclusive) and createdTo (exclusive)", async () => {
    const h = await setup();
    const made = await mixed(h);
    const from = made[2]!.createdAt;
    const to = made[5]!.createdAt;
    expect(ids((await get(h, `/v1/payments?createdFrom=${from}&createdTo=${to}`)).body.data)).toEqual(ids(made.slice(2, 5).reverse()));
    expect(ids((await get(h, `/v1/payments?createdFrom=${made[8]!.createdAt}`)).body.data)).toEqual([made[8]!.id]);
    expect(ids((await get(h, `/v1/payments?createdTo=${made[1]!.createdAt}`)).body.data)).toEqual([made[0]!.id]);
    // An offset is honoured: 13:02+01:00 is 12:02Z.
    expect(ids((await get(h, `/v1/payments?createdFrom=${encodeURIComponent("2026-03-01T13:02:00+01:00")}&createdTo=2026-03-01T12:03:00Z`)).body.data)).toEqual(
      [made[2]!.id],
    );
  });

  it("combines filters", async () => {
    const h = await setup();
    const made = await mixed(h);
    expect(ids((await get(h, "/v1/payments?status=PAID&chain=BSC")).body.data)).toEqual([made[4]!.id]);
    expect(ids((await get(h, `/v1/payments?status=PENDING&createdFrom=${made[3]!.createdAt}&chain=BTC`)).body.data)).toEqual([made[8]!.id, made[6]!.id]);
  });

  it("pages through a filtered list", async () => {
    const h = await setup();
    const trx = await createMany(h, 23, 4);
    const btc = await createMany(h, 9, 3, 3, { amount: "0.001", currency: "BTC" });
    for (const payment of trx.filter((_, index) => index % 2 === 0)) await deposit(h, payment.address!, "10", 19);
    const pages = await walk<PaymentBody>(h, "/v1/payments", "chain=TRX&status=PENDING&limit=4");
    const seen = pages.flatMap((page) => page.data);
    const expected = trx.filter((_, index) => index % 2 === 1);
    expect(pages.map((page) => page.data.length)).toEqual([4, 4, 3]);
    expect(ids(seen).sort()).toEqual(ids(expected).sort());
    expectNewestFirst(seen);
    expect(seen.every((payment) => payment.chain === "TRX" && payment.status === "PENDING")).toBe(true);

    const window = await walk<PaymentBody>(h, "/v1/payments", `chain=BTC&createdFrom=${btc[3]!.createdAt}&limit=2`);
    expect(ids(window.flatMap((page) => page.data)).sort()).toEqual(ids(btc.slice(3)).sort());
  });
});

describe("invalid list queries", () => {
  it.each([
    ["status=NOPE", /status: must be one of PENDING/],
    ["status=paid", /status/],
    ["createdFrom=yesterday", /createdFrom: must be an ISO 8601/],
    ["createdTo=2026-13-01T00:00:00Z", /createdTo/],
    ["createdFrom=1700000000000", /createdFrom/],
    ["createdFrom=2026-03-01", /createdFrom/],
    ["status=", /status/],
    ["chain=", /chain/],
    ["limit=0", /limit: must be at least 1/],
    ["limit=101", /limit: must be at most 100/],
    ["limit=abc", /limit: must be a number/],
    ["limit=2.5", /limit: must be a whole number/],
    ["limit=-1", /limit/],
    ["cursor=inv_doesnotexist", /cursor/],
    ["sort=asc", /unknown field "sort"/],
  ])("answers 400 (40001) to %s", async (query, message) => {
    const h = await setup();
    await createPayment(h, { amount: "10", currency: "TRX" });
    expectError(await get(h, `/v1/payments?${query}`), 400, 40001, message);
  });

  it("refuses another merchant's payment as a cursor", async () => {
    const h = await setup();
    await createPayment(h, { amount: "10", currency: "TRX" });
    const theirs = await createPayment(h, { amount: "10", currency: "TRX" }, h.otherTestKey);
    expectError(await get(h, `/v1/payments?cursor=${theirs.id}`), 400, 40001, /cursor/);
  });

  it("refuses a live payment as a cursor for the test list", async () => {
    const h = await setup({ liveChain: simulatedLiveChain() });
    const live = await createPayment(h, { amount: "10", currency: "TRX" }, h.liveKey);
    expectError(await get(h, `/v1/payments?cursor=${live.id}`), 400, 40001, /cursor/);
  });
});
