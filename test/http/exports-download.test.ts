/**
 * sendExport: a download of payments.admin.export through a host's Express route, read back
 * with a real CSV parser; a bad request a host answers 400, a storage down 500 before any byte,
 * and a client that hangs up mid-download stops the storage reads.
 */
import { once } from "node:events";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { parse } from "csv-parse/sync";
import express from "express";
import request from "supertest";
import { afterEach, describe, expect, it } from "vitest";
import { memoryStorage } from "../../src/adapters/storage/memory/index";
import { createPaymentRouter, type PaymentRouter, type Storage } from "../../src/index";
import { type ExportOutcome, type ExportRequest, sendExport } from "../../src/operator";
import { storageFixtures } from "../../src/testing/index";

const { payout } = storageFixtures;
const DAY_START = Date.parse("2026-03-01T00:00:00.000Z");
const opened: Array<{ close(): Promise<void> }> = [];

afterEach(async () => {
  for (const item of opened.splice(0)) await item.close();
});

/** A host app with an export route behind it, as docs/exports.md shows one, recording each download's outcome. */
function hostApp(storage: Storage) {
  const payments = createPaymentRouter({ storage, backgroundIntervalMs: false });
  opened.push(payments);
  const outcomes: Array<Promise<ExportOutcome>> = [];
  const responses: express.Response[] = [];
  const app = express();
  app.get("/admin/exports/:kind", (req, res, next) => {
    let csv: ReturnType<PaymentRouter["admin"]["export"]>;
    try {
      csv = payments.admin.export({ ...(req.query as Record<string, string>), kind: req.params.kind } as ExportRequest);
    } catch (error) {
      if (error instanceof TypeError) return void res.status(400).json({ error: error.message });
      throw error;
    }
    responses.push(res);
    const outcome = sendExport(res, csv);
    outcomes.push(outcome);
    outcome.catch(next);
  });
  app.use((error: Error, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
    if (res.headersSent) return void res.destroy();
    res.status(500).json({ error: error.message });
  });
  return { app, payments, outcomes, responses };
}

/** Memory storage whose payout export reads are counted, and may be held at one read until released. */
function countedStorage(options: { holdRead?: number } = {}) {
  const inner = memoryStorage();
  let release: () => void = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  let holding: () => void = () => {};
  const held = new Promise<void>((resolve) => {
    holding = resolve;
  });
  const counts = { reads: 0 };
  const storage: Storage = {
    ...inner,
    exportPayouts: async (kind, query) => {
      counts.reads += 1;
      if (counts.reads === options.holdRead) {
        holding();
        await released;
      }
      return inner.exportPayouts(kind, query);
    },
  };
  return { storage, counts, held, release };
}

async function seedPayouts(payments: PaymentRouter, count: number): Promise<void> {
  await payments.storage.transaction(async (tx) => {
    for (let i = 0; i < count; i++)
      await tx.insertPayout(payout({ id: `po_${String(i).padStart(6, "0")}`, createdAt: DAY_START + i, amount: 123_456_789n + BigInt(i) }));
  });
}

describe("sendExport", () => {
  it("answers a CSV download: attachment headers, no caching, every row exact", async () => {
    const { app, payments, outcomes } = hostApp(memoryStorage());
    await seedPayouts(payments, 3);
    const res = await request(app).get("/admin/exports/payouts?from=2026-03-01&to=2026-03-01&mode=test").buffer(true);
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toBe("text/csv; charset=utf-8");
    // Express 5 writes the name as a token, Express 4 quoted: the same header either way.
    expect(res.headers["content-disposition"]).toMatch(/^attachment; filename=("?)payouts_2026-03-01_2026-03-01_test\.csv\1$/);
    expect(res.headers["cache-control"]).toBe("no-store");
    expect(res.headers["x-content-type-options"]).toBe("nosniff");
    const [header, ...rows] = parse(res.text) as string[][];
    expect(header!.slice(0, 3)).toEqual(["id", "merchant_id", "mode"]);
    expect(rows.map((row) => [row[0], row[header!.indexOf("amount")]])).toEqual([
      ["po_000000", "1.23456789"],
      ["po_000001", "1.2345679"],
      ["po_000002", "1.23456791"],
    ]);
    expect(await outcomes[0]).toEqual({ completed: true, rows: 3 });
  });

  it("leaves a bad request to the host, which answers 400 with the TypeError's message", async () => {
    const { app } = hostApp(memoryStorage());
    const res = await request(app).get("/admin/exports/payouts?from=2026-03-02&to=2026-03-01");
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: "export: from (2026-03-02) is after to (2026-03-01)" });
    expect((await request(app).get("/admin/exports/invoices?from=2026-03-01&to=2026-03-01")).body.error).toMatch(/kind must be one of/);
  });

  it("rejects before sending anything when the first page cannot be read, so the host answers 500", async () => {
    const inner = memoryStorage();
    const { app } = hostApp({ ...inner, exportPayouts: async () => Promise.reject(new Error("database is down")) });
    const res = await request(app).get("/admin/exports/payouts?from=2026-03-01&to=2026-03-01");
    expect(res.status).toBe(500);
    expect(res.headers["content-disposition"]).toBeUndefined();
    expect(res.body).toEqual({ error: "database is down" });
  });

  it("cuts the connection when the storage fails mid-download, so the client never takes a partial file for a whole one", async () => {
    const inner = memoryStorage();
    let reads = 0;
    const storage: Storage = {
      ...inner,
      exportPayouts: async (kind, query) => {
        reads += 1;
        if (reads === 2) throw new Error("database lost");
        return inner.exportPayouts(kind, query);
      },
    };
    const { app, payments, outcomes } = hostApp(storage);
    await seedPayouts(payments, 600);
    const server = app.listen(0, "127.0.0.1");
    opened.push({ close: () => new Promise((resolve) => server.close(() => resolve())) });
    await once(server, "listening");
    const req = http.get(`http://127.0.0.1:${(server.address() as AddressInfo).port}/admin/exports/payouts?from=2026-03-01&to=2026-03-01`);
    const [res] = (await once(req, "response")) as [http.IncomingMessage];
    expect(res.statusCode).toBe(200);
    let body = "";
    res.on("data", (chunk: Buffer) => {
      body += chunk.toString("utf8");
    });
    const end = await new Promise<string>((resolve) => {
      res.on("end", () => resolve("complete"));
      res.on("error", (error) => resolve(`error: ${error.message}`));
    });
    expect(end).toBe("error: aborted");
    // The first page arrived, and nothing marked the file as finished.
    expect(body.split("\r\n").length - 2).toBe(500);
    await expect(outcomes[0]).rejects.toThrow("database lost");
  });

  it("stops reading the storage when the client hangs up mid-download", async () => {
    // 5,000 payouts are eleven reads of 500; the third is held until the client has gone.
    const { storage, counts, held, release } = countedStorage({ holdRead: 3 });
    const { app, payments, outcomes, responses } = hostApp(storage);
    await seedPayouts(payments, 5_000);
    const server = app.listen(0, "127.0.0.1");
    opened.push({ close: () => new Promise((resolve) => server.close(() => resolve())) });
    await once(server, "listening");
    const { port } = server.address() as AddressInfo;

    const req = http.get(`http://127.0.0.1:${port}/admin/exports/payouts?from=2026-03-01&to=2026-03-01`);
    const [res] = (await once(req, "response")) as [http.IncomingMessage];
    expect(res.statusCode).toBe(200);
    await once(res, "data");
    await held;
    req.destroy();
    await once(responses[0]!, "close");
    release();
    expect(await outcomes[0]).toEqual({ completed: false, rows: 1_000 });
    // The read held when the client left was the last: the stream closed instead of asking for a fourth.
    expect(counts.reads).toBe(3);
  });
});
