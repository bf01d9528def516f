/**
 * An export of 100,000 payouts from a PostgreSQL server, downloaded through sendExport by a
 * client that reads slowly: every row arrives once and in order, the storage is read in 201
 * pages, and the server never holds more than a couple of pages (counted in rows read but not
 * yet handed to the connection, and in bytes queued on the response). A client that hangs up
 * stops the reads.
 */
import { once } from "node:events";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { parse } from "csv-parse";
import express from "express";
import pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import { migrate } from "../../src/adapters/storage/postgres/migrations";
import { pgClient } from "../../src/adapters/storage/postgres/pg-client";
import { EXPORT_PAGE_SIZE } from "../../src/core/exports/csv-export";
import { parseDecimal } from "../../src/money";
import { createPaymentRouter, type PaymentRouter, type Storage } from "../../src/index";
import { type ExportOutcome, sendExport } from "../../src/operator";
import { postgresStorage } from "../../src/postgres";
import { DATABASE_URL, uniqueSchema } from "../adapters/storage/sql-fixtures";
import { describeIf, NO_DATABASE_URL } from "../support/skips";

const ROWS = 100_000;
const DAY_START = Date.parse("2026-03-01T00:00:00.000Z");

/** What the instrumented storage and response saw of one download. */
interface Watch {
  reads: number;
  rowsRead: number;
  /** Rows the pipeline handed to `res.write` (CRLFs written, less the header's). */
  rowsHanded: number;
  /** Rows read but not yet handed to the response, at each storage read. */
  aheadAtRead: number[];
  maxQueuedBytes: number;
  maxChunkBytes: number;
}

describeIf(DATABASE_URL, NO_DATABASE_URL)("exports from a PostgreSQL server", () => {
  const schema = uniqueSchema("export");
  let pool: pg.Pool;
  let payments: PaymentRouter;
  let server: http.Server;
  let watch: Watch;
  const outcomes: Array<Promise<ExportOutcome>> = [];

  beforeAll(async () => {
    pool = new pg.Pool({ connectionString: DATABASE_URL, max: 4 });
    await migrate(pgClient(pool), schema);
    // Two merchants, both modes, two payouts per millisecond (ties broken by id), and records
    // on the days around the range that must stay out.
    await pool.query(
      `INSERT INTO "${schema}".payouts (id, merchant_id, mode, status, coin, network, address, amount, fee, tx_hash, failure_reason, created_at, updated_at, refund_of, refund_deposit_id)
       SELECT 'po_' || lpad(g::text, 7, '0'), CASE WHEN g % 3 = 0 THEN 'm_2' ELSE 'm_1' END, CASE WHEN g % 2 = 0 THEN 'live' ELSE 'test' END,
         'COMPLETED', 'BTC', 'BTC', 'bc1qdest' || g, 1000000 + g, 10000, '0x' || md5(g::text), NULL, $1::bigint + (g / 2) * 1700, $1::bigint, NULL, NULL
       FROM generate_series(1, $2::int) AS g`,
      [DAY_START, ROWS],
    );
    await pool.query(
      `INSERT INTO "${schema}".payouts (id, merchant_id, mode, status, coin, network, address, amount, fee, created_at, updated_at)
       VALUES ('po_before', 'm_1', 'test', 'COMPLETED', 'BTC', 'BTC', 'bc1q', 1, 0, $1::bigint - 1, $1::bigint),
              ('po_after', 'm_1', 'test', 'COMPLETED', 'BTC', 'BTC', 'bc1q', 1, 0, $1::bigint + 86400000, $1::bigint)`,
      [DAY_START],
    );
    await pool.query(`ANALYZE "${schema}".payouts`);

    const inner = postgresStorage({ pool, schema, migrate: false });
    const storage: Storage = {
      ...inner,
      exportPayouts: async (kind, query) => {
        watch.reads += 1;
        watch.aheadAtRead.push(watch.rowsRead - watch.rowsHanded);
        const page = await inner.exportPayouts(kind, query);
        watch.rowsRead += page.length;
        return page;
      },
    };
    payments = createPaymentRouter({ storage, backgroundIntervalMs: false });
    const app = express();
    app.get("/export", (req, res, next) => {
      const write = res.write.bind(res) as (chunk: Buffer, ...rest: unknown[]) => boolean;
      res.write = ((chunk: Buffer, ...rest: unknown[]) => {
        const text = chunk.toString("utf8");
        watch.rowsHanded += text.split("\r\n").length - 1 - (text.startsWith("id,") ? 1 : 0);
        watch.maxChunkBytes = Math.max(watch.maxChunkBytes, chunk.length);
        const more = write(chunk, ...rest);
        watch.maxQueuedBytes = Math.max(watch.maxQueuedBytes, res.writableLength);
        return more;
      }) as typeof res.write;
      const outcome = sendExport(res, payments.admin.export({ kind: "payouts", from: "2026-03-01", to: "2026-03-01", ...(req.query as object) }));
      outcomes.push(outcome);
      outcome.catch(next);
    });
    server = app.listen(0, "127.0.0.1");
    await once(server, "listening");
  }, 120_000);

  afterAll(async () => {
    await new Promise((resolve) => server?.close(resolve));
    await payments?.close();
    await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await pool.end();
  });

  const fresh = (): Watch => ({ reads: 0, rowsRead: 0, rowsHanded: 0, aheadAtRead: [], maxQueuedBytes: 0, maxChunkBytes: 0 });
  const url = () => `http://127.0.0.1:${(server.address() as AddressInfo).port}/export`;

  it("streams 100,000 rows to a slow client exactly once each, a page per read, holding at most two pages", async () => {
    watch = fresh();
    const req = http.get(url());
    const [res] = (await once(req, "response")) as [http.IncomingMessage];
    expect(res.statusCode).toBe(200);
    // A slow reader: it stops after each chunk and resumes on a later turn, so the server must wait for it.
    res.on("data", () => {
      res.pause();
      setTimeout(() => res.resume(), 1);
    });
    const parser = res.pipe(parse({ columns: true }));
    let count = 0;
    let previous = "";
    let amounts = 0n;
    for await (const row of parser as AsyncIterable<Record<string, string>>) {
      count += 1;
      // Ordered by (created_at, id): here the ids grow with the time.
      expect(row.id! > previous).toBe(true);
      previous = row.id!;
      amounts += parseDecimal(row.amount!, 8);
    }
    expect(count).toBe(ROWS);
    expect(previous).toBe(`po_${String(ROWS).padStart(7, "0")}`);
    // 0.01000001 ... 0.011 BTC: their units sum to ROWS * 1000000 + ROWS * (ROWS + 1) / 2, exactly.
    expect(amounts).toBe(BigInt(ROWS) * 1_000_000n + (BigInt(ROWS) * BigInt(ROWS + 1)) / 2n);
    expect(await outcomes.at(-1)).toEqual({ completed: true, rows: ROWS });

    // 200 full pages, then one that comes back empty.
    expect(watch.reads).toBe(ROWS / EXPORT_PAGE_SIZE + 1);
    expect(watch.rowsRead).toBe(ROWS);
    expect(watch.rowsHanded).toBe(ROWS);
    // Memory: when a page is read, at most a page before it has not reached the response yet,
    // and the response never queues more than its buffer plus a chunk (a page of CSV).
    expect(Math.max(...watch.aheadAtRead)).toBeLessThanOrEqual(2 * EXPORT_PAGE_SIZE);
    expect(watch.maxQueuedBytes).toBeLessThanOrEqual(2 * watch.maxChunkBytes);
    expect(watch.maxChunkBytes).toBeLessThan(200_000);
  }, 120_000);

  it("exports one merchant in one mode with the same walk", async () => {
    watch = fresh();
    const req = http.get(`${url()}?merchantId=m_2&mode=live`);
    const [res] = (await once(req, "response")) as [http.IncomingMessage];
    let count = 0;
    for await (const row of res.pipe(parse({ columns: true })) as AsyncIterable<Record<string, string>>) {
      expect([row.merchant_id, row.mode]).toEqual(["m_2", "live"]);
      count += 1;
    }
    // g divisible by 6, from 1 to 100,000.
    expect(count).toBe(Math.floor(ROWS / 6));
    expect(await outcomes.at(-1)).toEqual({ completed: true, rows: Math.floor(ROWS / 6) });
    expect(watch.reads).toBe(Math.ceil(Math.floor(ROWS / 6) / EXPORT_PAGE_SIZE));
  }, 60_000);

  it("stops reading when the client hangs up mid-download", async () => {
    watch = fresh();
    const req = http.get(url());
    const [res] = (await once(req, "response")) as [http.IncomingMessage];
    let received = 0;
    for await (const chunk of res as AsyncIterable<Buffer>) {
      received += chunk.length;
      if (received > 500_000) break;
    }
    req.destroy();
    const outcome = await outcomes.at(-1);
    expect(outcome?.completed).toBe(false);
    // sendExport resolves once the stream closed: no read is running, none will start.
    const readsAtEnd = watch.reads;
    expect(readsAtEnd).toBeLessThan(ROWS / EXPORT_PAGE_SIZE);
    await pool.query("SELECT 1");
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(watch.reads).toBe(readsAtEnd);
  }, 60_000);
});
