import { describe, expect, expectTypeOf, it } from "vitest";
import { AUTO_PAGING_MAX } from "../../src/client/index";
import type { ListPage, Payment, PaymentResources } from "../../src/index";
import { deposit } from "../http/v1/support";
import type { Harness } from "../helpers";
import { CARRIER_NAMES, CARRIERS } from "./carriers";

/**
 * Auto-pagination: a list call is one page when awaited, every item of every page when
 * iterated with `for await`, and `autoPagingToArray({ limit })` collects up to a bound; on the
 * HTTP client and the in-process API alike.
 */

/** Creates `count` payments, paying those whose index is in `paid`; answers their ids, newest first. */
async function payments(h: Harness, api: PaymentResources, count: number, paid: ReadonlySet<number> = new Set()): Promise<string[]> {
  const ids: string[] = [];
  for (let index = 0; index < count; index++) {
    const payment = await api.payments.create({ amount: "10", currency: "USDT", chain: "TRX" });
    if (paid.has(index)) await deposit(h, payment.address!, payment.payAmount!, 19);
    h.clock.advanceMinutes(1); // distinct creation times: the order is certain
    ids.unshift(payment.id);
  }
  return ids;
}

describe.each(CARRIER_NAMES)("auto-pagination through %s", (carrier) => {
  it("awaits one page, iterates every page with the query kept, and collects up to a limit", async () => {
    const { h, api } = await CARRIERS[carrier]();
    const ids = await payments(h, api, 7, new Set([0, 2, 3, 5, 6]));

    const first = await api.payments.list({ limit: 2 });
    expectTypeOf(first).toEqualTypeOf<ListPage<Payment>>();
    expect(first.data.map((row) => row.id)).toEqual(ids.slice(0, 2));
    expect(first.hasMore).toBe(true);

    const all: string[] = [];
    for await (const payment of api.payments.list({ limit: 2 })) {
      expectTypeOf(payment).toEqualTypeOf<Payment>();
      all.push(payment.id);
    }
    expect(all).toEqual(ids);

    // The filter holds on every page, not only the first.
    const paid: string[] = [];
    for await (const payment of api.payments.list({ status: "PAID", limit: 2 })) paid.push(payment.status);
    expect(paid).toEqual(["PAID", "PAID", "PAID", "PAID", "PAID"]);

    expect((await api.payments.list({ limit: 3 }).autoPagingToArray({ limit: 4 })).map((row) => row.id)).toEqual(ids.slice(0, 4));
    expect((await api.payments.list({ limit: 3 }).autoPagingToArray({ limit: 100 })).map((row) => row.id)).toEqual(ids);

    // Starting from a cursor continues from there.
    const rest = await api.payments.list({ limit: 2, cursor: first.nextCursor! }).autoPagingToArray({ limit: 10 });
    expect(rest.map((row) => row.id)).toEqual(ids.slice(2));
  });

  it("paginates the other lists the same way", async () => {
    const { h, api } = await CARRIERS[carrier]();
    for (const amount of ["1", "2", "3"]) {
      await api.paymentLinks.create({ amount });
      h.clock.advanceMinutes(1);
    }
    const links = await api.paymentLinks.list({ limit: 1 }).autoPagingToArray({ limit: 10 });
    expect(links.map((link) => link.amount)).toEqual(["3", "2", "1"]);
    const endpoint = await api.webhookEndpoints.create({ url: "http://127.0.0.1:9/hooks" });
    for (let index = 0; index < 3; index++) {
      await api.webhookEndpoints.sendTest(endpoint.id);
      h.clock.advanceMinutes(1);
    }
    const deliveries = [];
    for await (const delivery of api.webhookDeliveries.list({ endpointId: endpoint.id, limit: 2 })) deliveries.push(delivery.endpointId);
    expect(deliveries).toEqual([endpoint.id, endpoint.id, endpoint.id]);
  });

  it("refuses autoPagingToArray without a limit, or above the bound", async () => {
    const { api } = await CARRIERS[carrier]();
    for (const limit of [undefined, 0, 2.5, AUTO_PAGING_MAX + 1]) {
      await expect(api.payments.list().autoPagingToArray({ limit } as never)).rejects.toThrow(/limit must be a whole number from 1 to 10000/);
    }
    expect(await api.payments.list().autoPagingToArray({ limit: AUTO_PAGING_MAX })).toEqual([]);
  });
});

describe("auto-pagination over HTTP", () => {
  it("reads a page only when the loop reaches it, and nothing before the call is awaited or iterated", async () => {
    const { h, api, requests } = await CARRIERS["the HTTP client"]();
    await payments(h, api, 5);
    const before = requests();
    const listing = api.payments.list({ limit: 2 });
    expect(requests()).toBe(before);
    for await (const payment of listing) {
      expect(payment.object).toBe("payment");
      break;
    }
    expect(requests()).toBe(before + 1);
    // Awaiting the same call reuses the page the loop read.
    expect((await listing).data).toHaveLength(2);
    expect(requests()).toBe(before + 1);
    await api.payments.list({ limit: 2 }).autoPagingToArray({ limit: 3 });
    expect(requests()).toBe(before + 3);
  });

  it("rejects the awaited page and the loop alike when the API refuses the query", async () => {
    const { api } = await CARRIERS["the HTTP client"]();
    await expect(api.payments.list({ limit: 1000 })).rejects.toMatchObject({ code: 40001 });
    await expect(
      (async () => {
        for await (const _ of api.payments.list({ limit: 1000 })) throw new Error("no item was expected");
      })(),
    ).rejects.toMatchObject({ code: 40001 });
  });
});
