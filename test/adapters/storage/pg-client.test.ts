import { describe, expect, it } from "vitest";
import { pgClient, type PgPoolClientLike, type PgPoolLike } from "../../../src/adapters/storage/postgres/pg-client";
import { mergeWrites } from "../../../src/adapters/storage/postgres/write-merger";

type Sent = { text: string; values?: unknown[] };

/** A pool whose one connection records what it is sent and answers every statement with `answer(text)`. */
function recordingPool(answer: (text: string) => unknown = () => ({ rows: [], rowCount: 1 })) {
  const sent: Sent[] = [];
  const connection: PgPoolClientLike = {
    pipeline: true,
    query: (async (config: string | { text: string; values?: unknown[] }) => {
      const statement = typeof config === "string" ? { text: config } : { text: config.text, values: config.values };
      sent.push(statement);
      const result = answer(statement.text);
      if (result instanceof Error) throw result;
      return { rows: [], rowCount: 1, command: statement.text.split(" ")[0], ...(result as object) };
    }) as PgPoolClientLike["query"],
    release: () => undefined,
  };
  const pool: PgPoolLike = { query: connection.query as PgPoolLike["query"], connect: async () => connection, end: async () => undefined };
  return { pool, sent };
}

const INVOICE = "INSERT INTO invoices (id, amount) VALUES ($1, $2)";
const EVENT = "INSERT INTO events (id, data) VALUES ($1, $2::json)";
const DELIVERY = "INSERT INTO webhook_deliveries (id, event_id, at) SELECT $1, $2, $3::bigint";

describe("merging deferred writes", () => {
  it("joins writes to different tables into one statement, renumbering each one's placeholders after the ones before", () => {
    expect(
      mergeWrites([
        [INVOICE, ["inv_1", "100"]],
        [EVENT, ["evt_1", "{}"]],
        [DELIVERY, ["msg_1", "evt_1", 5]],
      ]),
    ).toEqual([
      [
        "WITH w1 AS (INSERT INTO invoices (id, amount) VALUES ($1, $2)), w2 AS (INSERT INTO events (id, data) VALUES ($3, $4::json)) " +
          "INSERT INTO webhook_deliveries (id, event_id, at) SELECT $5, $6, $7::bigint",
        ["inv_1", "100", "evt_1", "{}", "msg_1", "evt_1", 5],
      ],
    ]);
  });

  it("never puts two writes to one table in one statement (their rows keep insertion order), nor a statement it cannot read", () => {
    expect(
      mergeWrites([
        [EVENT, [1, 2]],
        [INVOICE, [3, 4]],
        [EVENT, [5, 6]],
      ]),
    ).toEqual([
      ["WITH w1 AS (INSERT INTO events (id, data) VALUES ($1, $2::json)) INSERT INTO invoices (id, amount) VALUES ($3, $4)", [1, 2, 3, 4]],
      [EVENT, [5, 6]],
    ]);
    const odd = "SELECT pg_notify($1, $2)";
    expect(
      mergeWrites([
        [INVOICE, [1, 2]],
        [odd, ["a", "b"]],
        [EVENT, [3, 4]],
      ]),
    ).toEqual([
      [INVOICE, [1, 2]],
      [odd, ["a", "b"]],
      [EVENT, [3, 4]],
    ]);
  });

  it("merges at most eight writes into one statement, and gives the same sequence the same text every time", () => {
    const tables = Array.from({ length: 10 }, (_, i) => [`INSERT INTO t${i} (v) VALUES ($1)`, [i]] as [string, unknown[]]);
    const merged = mergeWrites(tables);
    expect(merged.map(([, values]) => values)).toEqual([
      [0, 1, 2, 3, 4, 5, 6, 7],
      [8, 9],
    ]);
    expect(merged[0]![0]).toContain("w7 AS (INSERT INTO t6 (v) VALUES ($7))");
    expect(mergeWrites(tables)[0]![0]).toBe(merged[0]![0]);
  });
});

describe("pgClient transactions", () => {
  it("sends a unit of work that only wrote as one statement, without BEGIN and COMMIT", async () => {
    const { pool, sent } = recordingPool();
    const client = pgClient(pool);
    await client.transaction(async (sql) => {
      sql.defer(INVOICE, ["inv_1", "100"]);
      sql.defer(EVENT, ["evt_1", "{}"]);
    });
    expect(sent.map((s) => s.text)).toEqual([
      mergeWrites([
        [INVOICE, []],
        [EVENT, []],
      ])[0]![0],
    ]);
    expect(sent[0]!.values).toEqual(["inv_1", "100", "evt_1", "{}"]);
  });

  it("sends nothing for a unit of work that did nothing, and wraps in BEGIN and COMMIT one that read", async () => {
    const { pool, sent } = recordingPool();
    const client = pgClient(pool);
    await client.transaction(async () => undefined);
    expect(sent).toEqual([]);
    await client.transaction(async (sql) => {
      sql.defer(INVOICE, ["inv_1", "100"]);
      await sql.query("SELECT 1 FROM invoices WHERE id = $1", ["inv_1"]);
      sql.defer(EVENT, ["evt_1", "{}"]);
    });
    expect(sent.map((s) => s.text)).toEqual(["BEGIN", INVOICE, "SELECT 1 FROM invoices WHERE id = $1", EVENT, "COMMIT"]);
  });

  it("needs BEGIN and COMMIT when the writes alone take more than one statement", async () => {
    const { pool, sent } = recordingPool();
    await pgClient(pool).transaction(async (sql) => {
      sql.defer(EVENT, ["evt_1", "{}"]);
      sql.defer(EVENT, ["evt_2", "{}"]);
    });
    expect(sent.map((s) => s.text)).toEqual(["BEGIN", EVENT, EVENT, "COMMIT"]);
  });

  it("fails the transaction with the error of a deferred write, and rolls back only what was begun", async () => {
    const duplicate = new Error('duplicate key value violates unique constraint "invoices_pkey"');
    const { pool, sent } = recordingPool((text) => (text.includes("invoices") ? duplicate : {}));
    await expect(pgClient(pool).transaction(async (sql) => sql.defer(INVOICE, ["inv_1", "100"]))).rejects.toBe(duplicate);
    expect(sent.map((s) => s.text)).toEqual([INVOICE]); // alone, it rolled itself back: no ROLLBACK to send
    sent.length = 0;
    await expect(
      pgClient(pool).transaction(async (sql) => {
        sql.defer(INVOICE, ["inv_1", "100"]);
        await sql.query("SELECT 1", []);
      }),
    ).rejects.toBe(duplicate);
    expect(sent.map((s) => s.text)).toEqual(["BEGIN", INVOICE, "SELECT 1", "ROLLBACK"]);
  });
});
