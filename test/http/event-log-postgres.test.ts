import pg from "pg";
import { afterEach, expect, it } from "vitest";
import type { EventRecord } from "../../src/storage";
import type { Storage } from "../../src/index";
import { postgresStorage } from "../../src/postgres";
import { DATABASE_URL, uniqueSchema } from "../adapters/storage/sql-fixtures";
import { setup, type Harness } from "../helpers";
import { heldTransaction } from "../support/held-transaction";
import { describeIf, NO_DATABASE_URL } from "../support/skips";
import { get } from "./v1/support";

/**
 * GET /v1/events on a PostgreSQL server, where transactions commit in any order: one that wrote
 * its event first may commit last. A reader that follows `nextCursor` must still see that event,
 * and see every event once. Two instances share one schema here; the other instance's
 * transaction is held open, through the storage port, in the bad order.
 */

const opened: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of opened.splice(0).reverse()) await close();
});

/** A router on a schema of its own, and a second instance's storage on the same schema. */
async function twoInstances(): Promise<{ h: Harness; other: Storage }> {
  const schema = uniqueSchema("eventlog");
  const pool = new pg.Pool({ connectionString: DATABASE_URL, max: 6 });
  opened.push(async () => {
    await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await pool.end();
  });
  const h = await setup({ storage: postgresStorage({ pool, schema }) });
  opened.push(() => h.router.close());
  const other = postgresStorage({ pool, schema });
  opened.push(() => other.close());
  return { h, other };
}

/** An event of the harness merchant's test log, as another instance's unit of work records it. */
function otherEvent(h: Harness, id: string): EventRecord {
  return { id, merchantId: h.merchant.id, mode: "test", type: "payment.created", invoiceId: "inv_other", data: { id: "inv_other" }, createdAt: Date.now() };
}

/** Reads the log after `cursor` to its end (as it stands): the event ids and the cursor to go on from. */
async function readOn(h: Harness, cursor: string): Promise<{ ids: string[]; cursor: string }> {
  const ids: string[] = [];
  for (;;) {
    const res = await get(h, `/v1/events?after=${cursor}&limit=100`);
    expect(res.status, res.text).toBe(200);
    ids.push(...res.body.data.map((event: { id: string }) => event.id));
    cursor = res.body.nextCursor;
    if (res.body.data.length < 100) return { ids, cursor };
  }
}

async function createPayment(h: Harness): Promise<string> {
  const res = await h.post("/v1/payments", { amount: "5", currency: "USDT", chain: "TRX" });
  expect(res.status, res.text).toBe(200);
  return res.body.id as string;
}

describeIf(DATABASE_URL, NO_DATABASE_URL)("the event log on a PostgreSQL server", () => {
  it("lists an event whose transaction wrote first and committed last to a reader that already read on past the later one", async () => {
    const { h, other } = await twoInstances();
    const start = (await get(h, "/v1/events?after=now")).body.nextCursor as string;

    // The other instance writes its event first (the lower position) and keeps its transaction open.
    const held = heldTransaction(other, (tx) => tx.appendEvents([otherEvent(h, "evt_held_first")]));
    await held.worked;
    // This instance records payment.created after it, and commits at once.
    const paymentId = await createPayment(h);

    const before = await readOn(h, start);
    held.release();
    await held.done;
    const after = await readOn(h, before.cursor);

    const seen = [...before.ids, ...after.ids];
    const created = (await h.router.storage.listEvents({ merchantId: h.merchant.id, mode: "test" }, { invoiceId: paymentId }))[0]!.id;
    expect(seen.sort()).toEqual(["evt_held_first", created].sort());
    // A cursor of an earlier version (a position alone) still reads on: 0 is the start.
    expect((await readOn(h, "0")).ids.sort()).toEqual(seen);
  });

  it("lists an event appended first by a transaction that began after another, when that other one commits first", async () => {
    const { h, other } = await twoInstances();
    const start = (await get(h, "/v1/events?after=now")).body.nextCursor as string;

    // A transaction of this instance writes something first (so it is the older one), then waits.
    let appendNow!: () => void;
    const mayAppend = new Promise<void>((resolve) => (appendNow = resolve));
    let wroteFirst!: () => void;
    const began = new Promise<void>((resolve) => (wroteFirst = resolve));
    const older = h.router.storage.transaction(async (tx) => {
      await tx.setCursor("older", "1");
      await tx.getCursor("older");
      wroteFirst();
      await mayAppend;
      await tx.appendEvents([otherEvent(h, "evt_older_tx")]);
    });
    await began;
    // The younger transaction appends its event first (the lower position) and stays open.
    const younger = heldTransaction(other, (tx) => tx.appendEvents([otherEvent(h, "evt_younger_tx")]));
    await younger.worked;
    // The older one appends after it and commits.
    appendNow();
    await older;

    const before = await readOn(h, start);
    younger.release();
    await younger.done;
    const after = await readOn(h, before.cursor);
    expect([...before.ids, ...after.ids].sort()).toEqual(["evt_older_tx", "evt_younger_tx"]);
  });
});
