import pg from "pg";
import request from "supertest";
import { afterEach, describe, expect, it } from "vitest";
import { memoryStorage, type Storage } from "../../src/index";
import type { StorageTransaction } from "../../src/storage";
import { postgresStorage } from "../../src/postgres";
import { DATABASE_URL, uniqueSchema } from "../adapters/storage/sql-fixtures";
import { setup, type Harness } from "../helpers";
import { describeIf, NO_DATABASE_URL } from "../support/skips";

/**
 * The public payment page and its status poll are plain reads: anyone with the link may load
 * them as often as they like, so they must neither take the invoice's row lock (and wait behind,
 * or hold up, the deposit sync and expiry) nor write anything. An invoice past its window shows
 * as expired at once; recording that is left to the background expiry.
 */

const opened: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of opened.splice(0).reverse()) await close();
});

async function harness(storage?: Storage): Promise<Harness> {
  const h = await setup(storage ? { storage } : {});
  opened.push(() => h.router.close());
  return h;
}

async function createHosted(h: Harness): Promise<string> {
  const res = await h.post("/api/v1/merchants/invoice/create", { amount: 25, lifeTime: 30 });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.id as string;
}

/** Settles with the answer, or rejects after `ms`: a read stuck behind a lock fails the test instead of hanging it. */
function within<T>(ms: number, answer: Promise<T>): Promise<T> {
  return Promise.race([answer, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms))]);
}

/** Memory storage that counts the transactions opened on it, and is otherwise itself. */
function countingTransactions() {
  const inner = memoryStorage();
  const count = { transactions: 0 };
  const storage: Storage = {
    ...inner,
    transaction: <T>(work: (tx: StorageTransaction) => Promise<T>) => {
      count.transactions++;
      return inner.transaction(work);
    },
  };
  return { storage, count };
}

describe("a public read of a payment page", () => {
  it("opens no storage transaction for the page or its status poll", async () => {
    const { storage, count } = countingTransactions();
    const h = await harness(storage);
    const id = await createHosted(h);
    count.transactions = 0;
    expect((await request(h.app).get(`/pay/${id}`)).status).toBe(200);
    expect((await request(h.app).get(`/pay/${id}/status`)).status).toBe(200);
    expect((await request(h.app).get("/pay/inv_unknown0000000000000000")).status).toBe(404);
    expect(count.transactions).toBe(0);
  });

  it("shows an invoice past its window as expired without writing it; the background expiry records it", async () => {
    const { storage, count } = countingTransactions();
    const h = await harness(storage);
    const id = await createHosted(h);
    h.clock.advanceMinutes(31);
    count.transactions = 0;
    const page = await request(h.app).get(`/pay/${id}`);
    expect(page.text).toContain("This payment has expired");
    expect((await request(h.app).get(`/pay/${id}/status`)).body.status).toBe("EXPIRED");
    expect(count.transactions).toBe(0);
    const scope = { merchantId: h.merchant.id, mode: "test" as const };
    expect((await storage.getInvoice(scope, id))?.status).toBe("PENDING");

    await h.router.tick();
    expect((await storage.getInvoice(scope, id))?.status).toBe("EXPIRED");
    expect((await storage.listEvents(scope, { invoiceId: id })).map((event) => event.type)).toEqual(["payment.created", "payment.expired"]);
  });
});

describeIf(DATABASE_URL, NO_DATABASE_URL)("on a PostgreSQL server", () => {
  it("answers the page and the status poll while another transaction holds the invoice's row lock", async () => {
    const schema = uniqueSchema("pagelock");
    const pool = new pg.Pool({ connectionString: DATABASE_URL, max: 4 });
    opened.push(async () => {
      await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await pool.end();
    });
    const h = await harness(postgresStorage({ pool, schema }));
    const id = await createHosted(h);

    // Another instance's deposit sync (or an admin's psql) locks the row and keeps it.
    const holder = await pool.connect();
    try {
      await holder.query("BEGIN");
      const locked = await holder.query(`SELECT id FROM "${schema}".invoices WHERE id = $1 FOR UPDATE`, [id]);
      expect(locked.rows).toHaveLength(1);

      const page = await within(
        5000,
        request(h.app)
          .get(`/pay/${id}`)
          .then((res) => res),
      );
      expect(page.status).toBe(200);
      expect(page.text).toContain("Choose how to pay");
      const status = await within(
        5000,
        request(h.app)
          .get(`/pay/${id}/status`)
          .then((res) => res),
      );
      expect(status.status).toBe(200);
      expect(status.body.status).toBe("PENDING");
    } finally {
      await holder.query("ROLLBACK");
      holder.release();
    }
  });
});
