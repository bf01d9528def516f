import { describe, expect, it } from "vitest";
import { setup } from "../../helpers";
import { createPayment, deposit, expectError, get } from "./support";

/** GET /v1/events: the event log of the key's merchant and mode, read forward from a cursor. */

interface EventPage {
  data: Array<{ id: string; object: string; livemode: boolean; type: string; createdAt: string; data: { id: string; status: string } }>;
  nextCursor: string;
}

const read = async (h: Awaited<ReturnType<typeof setup>>, query: string, key?: string): Promise<EventPage> => {
  const res = await get(h, `/v1/events${query}`, key);
  expect(res.status, res.text).toBe(200);
  return res.body as EventPage;
};

describe("GET /v1/events", () => {
  it("lists the events oldest first, page by page, and from `after=now` only what comes later", async () => {
    const h = await setup();
    const payment = await createPayment(h, { amount: "10", currency: "USDT", chain: "TRX" });
    await deposit(h, payment.address!, payment.payAmount!, 19);

    const first = await read(h, "?limit=2");
    expect(first.data.map((event) => event.type)).toEqual(["payment.created", "payment.confirming"]);
    expect(first.data[0]).toMatchObject({ object: "event", livemode: false, data: { id: payment.id, status: "PENDING" } });
    const rest = await read(h, `?after=${first.nextCursor}`);
    expect(rest.data.map((event) => event.type)).toEqual(["payment.confirmed", "payment.completed"]);
    expect(rest.data[1]!.data.status).toBe("PAID");
    // Read to the end: nothing more, and the same cursor to ask again with.
    expect(await read(h, `?after=${rest.nextCursor}`)).toEqual({ data: [], nextCursor: rest.nextCursor });

    const now = await read(h, "?after=now");
    expect(now).toEqual({ data: [], nextCursor: rest.nextCursor });
    const later = await createPayment(h, { amount: "5", currency: "USDT", chain: "TRX" });
    const next = await read(h, `?after=${now.nextCursor}`);
    expect(next.data.map((event) => [event.type, event.data.id])).toEqual([["payment.created", later.id]]);
  });

  it("lists only the key's merchant and mode", async () => {
    const h = await setup();
    await createPayment(h, { amount: "10", currency: "USDT", chain: "TRX" });
    expect((await read(h, "", h.otherTestKey)).data).toEqual([]);
    expect((await read(h, "", h.liveKey)).data).toEqual([]);
    expect((await read(h, "")).data).toHaveLength(1);
  });

  it("refuses a cursor it never returned, or a limit out of range, with 400 (40001)", async () => {
    const h = await setup();
    expectError(await get(h, "/v1/events?after=evt_1"), 400, 40001, /after/);
    expectError(await get(h, "/v1/events?after=-1"), 400, 40001, /after/);
    // Digits past what the storage compares them as (a 64-bit txid, a 63-bit position): 400, not a failed query.
    expectError(await get(h, "/v1/events?after=18446744073709551616_1"), 400, 40001, /after/);
    expectError(await get(h, "/v1/events?after=1_9223372036854775808"), 400, 40001, /after/);
    expectError(await get(h, "/v1/events?after=9223372036854775808"), 400, 40001, /after/);
    expect((await get(h, "/v1/events?after=18446744073709551615_9223372036854775807")).status).toBe(200);
    expectError(await get(h, "/v1/events?limit=101"), 400, 40001, /limit/);
    expectError(await get(h, "/v1/events?cursor=1"), 400, 40001);
  });
});
