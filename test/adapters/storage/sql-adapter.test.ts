import { PGlite } from "@electric-sql/pglite";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { pgClient } from "../../../src/adapters/storage/postgres/pg-client";
import { pgliteClient } from "../../../src/adapters/storage/postgres/pglite-client";
import type { SqlClient } from "../../../src/adapters/storage/postgres/sql-client";
import { inlineParams } from "../../../src/adapters/storage/postgres/sql-literal";
import { migrate, MIGRATIONS } from "../../../src/adapters/storage/postgres/migrations";
import { postgresStorage } from "../../../src/postgres";
import { storageFixtures } from "../../../src/testing/index";
import { DATABASE_URL, uniqueSchema } from "./sql-fixtures";
import { describeIf, NO_DATABASE_URL } from "../../support/skips";

const { apiKey, endpoint, entry, invoice, merchant, TEST, T0 } = storageFixtures;

// What the SQL adapter does beyond the shared contract: data directories, the cache, migrations,
// and the invariants the database itself enforces.

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const step of cleanups.splice(0).reverse()) await step();
});

async function scratchDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "ecp-sql-"));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

describe("postgresStorage options", () => {
  it("refuses anything but exactly one place to keep data, at once", () => {
    expect(() => postgresStorage({})).toThrow(/exactly one of connectionString, pool, dataDir or pglite/);
    expect(() => postgresStorage({ dataDir: "a", connectionString: "postgres://x/y" })).toThrow(/got connectionString, dataDir/);
    expect(() => postgresStorage({ connectionString: "mysql://x/y" })).toThrow(/postgres:\/\//);
    expect(() => postgresStorage({ dataDir: "a", schema: "bad-name; drop" })).toThrow(/plain identifier/);
    expect(() => postgresStorage({ connectionString: "postgres://x/y", cache: true })).toThrow(/cache is for PGlite/);
  });

  it("reports a database it cannot open through ready and every method, without an unhandled rejection", async () => {
    const storage = postgresStorage({ connectionString: "postgres://nobody@127.0.0.1:1/none" });
    await expect(storage.ready).rejects.toThrow();
    await expect(storage.getMerchant("m_1")).rejects.toThrow();
    await expect(storage.transaction(async () => "never")).rejects.toThrow();
    await storage.close();
  });
});

describe("PGlite on a data directory", { timeout: 60_000 }, () => {
  it("keeps everything across a close and a reopen, migrating only once", async () => {
    const dir = await scratchDir();
    const first = postgresStorage({ dataDir: dir });
    await first.transaction(async (tx) => {
      await tx.insertMerchant(merchant());
      await tx.insertApiKey(apiKey());
      await tx.insertInvoice(invoice());
      await tx.postLedgerEntries([entry({ amount: 10n ** 30n })]);
    });
    await first.close();
    const second = postgresStorage({ dataDir: dir });
    cleanups.push(() => second.close());
    expect(await second.getInvoice(TEST, "inv_1")).toEqual(invoice());
    expect(await second.findApiKeyByHash("hash_1")).toEqual({ key: apiKey(), merchant: merchant() });
    expect(await second.getBalance(TEST, "BTC")).toBe(10n ** 30n);
  });

  it("refuses a second opener in the same process, and takes over a lock its dead owner left", async () => {
    const dir = await scratchDir();
    const first = postgresStorage({ dataDir: dir });
    await first.ready;
    await expect(postgresStorage({ dataDir: dir }).ready).rejects.toThrow(/already open in this process/);
    await first.close();
    // A process that was killed leaves its pid behind; pid 2^22+ is above Linux's pid_max.
    await writeFile(join(dir, "lock"), "4194999\n");
    const second = postgresStorage({ dataDir: dir });
    await second.ready;
    expect((await readFile(join(dir, "lock"), "utf8")).trim()).toBe(String(process.pid));
    await second.close();
  });

  it("keeps an in-memory database for memory://", async () => {
    const storage = postgresStorage({ dataDir: "memory://" });
    cleanups.push(() => storage.close());
    await storage.transaction((tx) => tx.insertMerchant(merchant()));
    expect(await storage.getMerchant("m_1")).toEqual(merchant());
  });
});

describe("the PGlite cache", { timeout: 60_000 }, () => {
  let db: PGlite;
  let n = 0;
  beforeAll(async () => {
    db = await PGlite.create();
  });
  afterAll(() => db.close());
  const fresh = async () => {
    const storage = postgresStorage({ pglite: db, schema: `cache_${++n}`, cache: true });
    await storage.ready;
    return storage;
  };

  it("sees a revoked key as revoked by the very next read, and a rolled-back revocation as never made", async () => {
    const storage = await fresh();
    await storage.transaction(async (tx) => {
      await tx.insertMerchant(merchant());
      await tx.insertApiKey(apiKey());
    });
    expect((await storage.findApiKeyByHash("hash_1"))?.key.revokedAt).toBeNull(); // now cached
    await expect(
      storage.transaction(async (tx) => {
        await tx.revokeApiKey("key_1", T0 + 1);
        expect((await tx.findApiKeyByHash("hash_1"))?.key.revokedAt).toBe(T0 + 1);
        throw new Error("abort");
      }),
    ).rejects.toThrow("abort");
    expect((await storage.findApiKeyByHash("hash_1"))?.key.revokedAt).toBeNull();
    await storage.transaction((tx) => tx.revokeApiKey("key_1", T0 + 2));
    expect((await storage.findApiKeyByHash("hash_1"))?.key.revokedAt).toBe(T0 + 2);
  });

  it("shows a merchant's changed settings at once", async () => {
    const storage = await fresh();
    expect(await storage.getMerchant("m_1")).toBeNull(); // misses are not kept
    await storage.transaction((tx) => tx.insertMerchant(merchant()));
    expect(await storage.getMerchant("m_1")).toEqual(merchant()); // now cached
    await storage.transaction(async (tx) => {
      await tx.updateMerchant(merchant({ settleCurrency: "USDT" }));
      expect((await tx.getMerchant("m_1"))?.settleCurrency).toBe("USDT");
    });
    expect((await storage.getMerchant("m_1"))?.settleCurrency).toBe("USDT");
  });

  it("shows endpoints added, changed or deleted, inside the transaction and after it", async () => {
    const storage = await fresh();
    expect(await storage.listWebhookEndpoints(TEST)).toEqual([]); // cached empty
    await storage.transaction(async (tx) => {
      expect(await tx.listWebhookEndpoints(TEST)).toEqual([]);
      await tx.insertWebhookEndpoint(endpoint());
      expect(await tx.listWebhookEndpoints(TEST)).toEqual([endpoint()]);
    });
    expect(await storage.listWebhookEndpoints(TEST)).toEqual([endpoint()]);
    await storage.transaction((tx) => tx.updateWebhookEndpoint(endpoint({ status: "disabled" })));
    expect((await storage.listWebhookEndpoints(TEST))[0]?.status).toBe("disabled");
    await storage.transaction((tx) => tx.deleteWebhookEndpoint("we_1"));
    expect(await storage.listWebhookEndpoints(TEST)).toEqual([]);
  });
});

describe("values inlined for PGlite", () => {
  it("renders literals that cannot break out of their quotes", () => {
    expect(inlineParams("SELECT $1, $2, $10", ["it's", null, 5, 4, 5, 6, 7, 8, 9, -3n])).toBe("SELECT 'it''s', NULL, (-3)");
    expect(inlineParams("x = $1::text[]", [["a", null, "b'c"]])).toBe("x = ARRAY['a', NULL, 'b''c']::text[]");
    expect(() => inlineParams("$1", ["\u0000"])).toThrow(/NUL/);
    expect(() => inlineParams("$1", [Number.NaN])).toThrow();
    expect(() => inlineParams("$2", ["only one"])).toThrow(/\$2/);
  });

  it("stores hostile text exactly as given", async () => {
    const storage = postgresStorage({ dataDir: "memory://" });
    cleanups.push(() => storage.close());
    const names = ["Robert'); DROP TABLE merchants;--", "back\\slash \\' quote", "$1 $2 dollar", "ünïcödé ✓ 😀", "new\nline\ttab"];
    await storage.transaction(async (tx) => {
      for (const [i, name] of names.entries()) await tx.insertMerchant(merchant({ id: `m_${i}`, name }));
      // An own "__proto__" key, as JSON.parse makes it from a request body.
      const metadata = JSON.parse(`{"note": ${JSON.stringify(names.join(" | "))}, "__proto__": {"polluted": true}, "nested": {"quote'key": "v"}}`) as Record<
        string,
        unknown
      >;
      await tx.insertInvoice(invoice({ metadata }));
    });
    for (const [i, name] of names.entries()) expect((await storage.getMerchant(`m_${i}`))?.name).toBe(name);
    const stored = await storage.getInvoice(TEST, "inv_1");
    expect(stored?.metadata?.note).toBe(names.join(" | "));
    expect(Object.keys(stored!.metadata!)).toContain("__proto__");
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

/** Schema checks on any engine: the invariants hold in the database, whatever code writes to it. */
function invariantTests(open: () => Promise<{ client: SqlClient; schema: string; done: () => Promise<void> }>) {
  let client: SqlClient;
  let schema: string;
  let done: () => Promise<void>;
  beforeAll(async () => {
    ({ client, schema, done } = await open());
  });
  afterAll(() => done());

  it("records every migration once, and finds nothing to do on a second run", async () => {
    expect(await migrate(client, schema)).toEqual([]);
    const { rows } = await client.query(`SELECT version FROM "${schema}".schema_migrations ORDER BY version`);
    expect(rows.map((row) => Number(row.version))).toEqual(MIGRATIONS.map((step) => step.version));
  });

  it("keeps money in numeric columns, never floating point", async () => {
    const { rows } = await client.query(
      "SELECT table_name, column_name, data_type, numeric_scale FROM information_schema.columns WHERE table_schema = $1 AND data_type IN ('real', 'double precision', 'numeric', 'money')",
      [schema],
    );
    expect(rows.filter((row) => row.data_type !== "numeric")).toEqual([]);
    expect(rows.every((row) => Number(row.numeric_scale) === 0)).toBe(true);
    expect(rows.map((row) => `${row.table_name}.${row.column_name}`)).toEqual(
      expect.arrayContaining(["balances.amount", "ledger_entries.amount", "invoices.amount", "payouts.fee"]),
    );
  });

  it("refuses, in the database itself, a second credit of a cause, a second deposit of a transfer, a second idempotency key; keeps a balance whole", async () => {
    const t = (name: string) => `"${schema}".${name}`;
    await client.query(
      `INSERT INTO ${t("ledger_entries")} (id, merchant_id, mode, asset, amount, kind, cause_key, created_at) VALUES ('a', 'm', 'test', 'BTC', 1, 'deposit', 'c', 0)`,
    );
    await expect(
      client.query(
        `INSERT INTO ${t("ledger_entries")} (id, merchant_id, mode, asset, amount, kind, cause_key, created_at) VALUES ('b', 'm', 'test', 'BTC', 1, 'deposit', 'c', 0)`,
      ),
    ).rejects.toThrow(/ledger_entries_cause_once/);
    const deposit = `INSERT INTO ${t("deposits")} (id, merchant_id, mode, invoice_id, coin, network, address, tx_hash, output_index, amount, confirmations, status, counts_toward_invoice, fee, seen_at, updated_at) VALUES`;
    await client.query(`${deposit} ('d1', 'm', 'test', 'i', 'BTC', 'bitcoin', 'a', 'tx', 0, 1, 0, 'PENDING', true, 0, 0, 0)`);
    await expect(client.query(`${deposit} ('d2', 'm', 'test', 'i', 'BTC', 'bitcoin', 'a', 'tx', 0, 1, 0, 'PENDING', true, 0, 0, 0)`)).rejects.toThrow(
      /deposits_chain_identity/,
    );
    const key = `INSERT INTO ${t("idempotency_keys")} (merchant_id, mode, key, request_hash, state, created_at, expires_at) VALUES ('m', 'test', 'k', 'h', 'started', 0, 1)`;
    await client.query(key);
    await expect(client.query(key)).rejects.toThrow(/idempotency_key_once/);
    // A balance may be below zero: a credit taken back after a deep reorg overdraws it (the
    // adapter's debit statement still refuses ordinary debits that would).
    await expect(
      client.query(`INSERT INTO ${t("balances")} (merchant_id, mode, asset, amount, updated_at) VALUES ('m', 'test', 'ETH', -1, 0)`),
    ).resolves.toBeDefined();
    await expect(
      client.query(`INSERT INTO ${t("balances")} (merchant_id, mode, asset, amount, updated_at) VALUES ('m', 'test', 'BTC', 1.5, 0)`),
    ).resolves.toBeDefined();
    // numeric(78,0) keeps whole smallest units: a fraction is rounded away, never stored.
    expect((await client.query(`SELECT amount::text AS amount FROM ${t("balances")} WHERE asset = 'BTC'`)).rows[0]?.amount).toBe("2");
  });
}

describe("database invariants on PGlite", () => {
  invariantTests(async () => {
    const db = await PGlite.create();
    const client = pgliteClient(db, { ownsDatabase: true });
    await migrate(client, "inv");
    return { client, schema: "inv", done: () => client.close() };
  });

  it("upgrades a database at an older version, keeping its data", async () => {
    const db = await PGlite.create();
    const client = pgliteClient(db, { ownsDatabase: true });
    cleanups.push(() => client.close());
    expect(await migrate(client, "old", MIGRATIONS.slice(0, 1))).toEqual([1]);
    await client.query(`INSERT INTO "old".merchants (id, name, created_at) VALUES ('m_1', 'Shop', ${T0})`);
    const storage = postgresStorage({ pglite: db, schema: "old" });
    expect(await storage.getMerchant("m_1")).toEqual(merchant());
    expect((await client.query(`SELECT count(*)::int AS n FROM "old".schema_migrations`)).rows[0]?.n).toBe(MIGRATIONS.length);
  }, 60_000);

  it("fills in what each deposit credited before reversals existed: its net coin, or what its auto-conversion credited", async () => {
    const db = await PGlite.create();
    const client = pgliteClient(db, { ownsDatabase: true });
    cleanups.push(() => client.close());
    const before = MIGRATIONS.filter((step) => step.version < 7);
    await migrate(client, "pre", before);
    const deposit = `INSERT INTO "pre".deposits (id, merchant_id, mode, invoice_id, coin, network, address, tx_hash, output_index, amount, confirmations, status, counts_toward_invoice, fee, credited_at, seen_at, updated_at) VALUES`;
    await client.query(`${deposit} ('d_plain', 'm', 'test', 'i1', 'ETH', 'ETH', 'a1', 't1', 0, 1000, 12, 'CONFIRMED', true, 5, ${T0}, ${T0}, ${T0})`);
    await client.query(`${deposit} ('d_conv', 'm', 'test', 'i2', 'ETH', 'ETH', 'a2', 't2', 0, 2000, 12, 'CONFIRMED', true, 10, ${T0 + 1}, ${T0}, ${T0})`);
    await client.query(`${deposit} ('d_open', 'm', 'test', 'i3', 'ETH', 'ETH', 'a3', 't3', 0, 3000, 1, 'PENDING', true, 0, NULL, ${T0}, ${T0})`);
    await client.query(
      `INSERT INTO "pre".exchanges (id, merchant_id, mode, status, from_coin, to_coin, amount, rate, to_amount, created_at, invoice_id) VALUES ('ex_1', 'm', 'test', 'SUCCESS', 'ETH', 'USDT', 1990, 1, 5970, ${T0 + 1}, 'i2')`,
    );
    await migrate(client, "pre");
    const storage = postgresStorage({ pglite: db, schema: "pre" });
    const credited = async (invoiceId: string) => {
      const [row] = await storage.listDepositsForInvoice(invoiceId);
      return [row!.creditedAsset, row!.creditedAmount, row!.reversals];
    };
    expect(await credited("i1")).toEqual(["ETH", 995n, 0]);
    expect(await credited("i2")).toEqual(["USDT", 5970n, 0]);
    expect(await credited("i3")).toEqual([null, 0n, 0]);
  }, 60_000);
});

describeIf(DATABASE_URL, NO_DATABASE_URL)("database invariants on a PostgreSQL server", () => {
  let pool: pg.Pool;
  beforeAll(() => {
    pool = new pg.Pool({ connectionString: DATABASE_URL, max: 12 });
  });
  afterAll(() => pool.end());

  describe("schema", () => {
    invariantTests(async () => {
      const schema = uniqueSchema("inv");
      const client = pgClient(pool);
      await migrate(client, schema);
      return { client, schema, done: async () => void (await pool.query(`DROP SCHEMA "${schema}" CASCADE`)) };
    });
  });

  it("migrates once when many instances start on an empty schema at the same moment", async () => {
    const schema = uniqueSchema("race");
    cleanups.push(() => pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`));
    const instances = Array.from({ length: 8 }, () => postgresStorage({ connectionString: DATABASE_URL!, schema, maxConnections: 2 }));
    cleanups.push(() => Promise.all(instances.map((storage) => storage.close())));
    await Promise.all(instances.map((storage) => storage.ready));
    const { rows } = await pool.query(`SELECT version, count(*)::int AS n FROM "${schema}".schema_migrations GROUP BY version ORDER BY version`);
    expect(rows).toEqual(MIGRATIONS.map((step) => ({ version: step.version, n: 1 })));
    // And they all work on it.
    await instances[0]!.transaction((tx) => tx.insertMerchant(merchant()));
    expect(await instances[7]!.getMerchant("m_1")).toEqual(merchant());
  });

  it("rolls back a transaction whose connection died, freeing its row locks for the next one", async () => {
    const schema = uniqueSchema("kill");
    cleanups.push(() => pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`));
    const storage = postgresStorage({ pool, schema });
    await storage.transaction((tx) => tx.insertInvoice(invoice()));
    const hold = storageFixtures.gate();
    const locked = storageFixtures.gate();
    const dying = storage.transaction(async (tx) => {
      await tx.lockInvoice("inv_1");
      await tx.updateInvoice(invoice({ status: "PAID" }));
      locked.open();
      await hold.promise;
      await tx.getInvoice(TEST, "inv_1");
    });
    await locked.promise;
    // What a process killed mid-transaction leaves: its connection gone. The server rolls back.
    const killed = await pool.query(
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE state = 'idle in transaction' AND query LIKE $1 AND pid <> pg_backend_pid()",
      [`%"${schema}".invoices%`],
    );
    expect(killed.rowCount).toBe(1);
    hold.open();
    await expect(dying).rejects.toThrow();
    await storage.transaction(async (tx) => expect((await tx.lockInvoice("inv_1"))?.status).toBe("PENDING"));
  });
});

describe("search indexes", () => {
  it("finds a merchant's invoices by metadata.orderId and by a deposit's transaction hash through indexes, not by reading them all", async () => {
    const db = await PGlite.create();
    const client = pgliteClient(db, { ownsDatabase: true });
    cleanups.push(() => client.close());
    await migrate(client, "idx");
    // 20000 invoices of one merchant with order ids (one in a hundred has a number as its order
    // id), each paid by a deposit: enough rows that reading them all costs more than an index.
    const invoiceRows =
      "SELECT 'inv_' || g, 'm_1', 'test', 'PAID', 100, 'USD', false, 0, false, 'http://x/pay/' || g, " +
      "CASE WHEN g % 100 = 0 THEN json_build_object('orderId', g) ELSE json_build_object('orderId', 'ord_' || g) END, 100, false, 0, g, g " +
      "FROM generate_series(1, 20000) AS g";
    await client.exec(`
      INSERT INTO idx.invoices (id, merchant_id, mode, status, amount, amount_currency, fee_paid_by_payer, under_paid_cover_tenths, is_white_label,
        payment_url, metadata, received_amount, late, expires_at, created_at, updated_at) ${invoiceRows};
      INSERT INTO idx.deposits (id, merchant_id, mode, invoice_id, coin, network, address, tx_hash, output_index, amount, confirmations, status,
        counts_toward_invoice, fee, seen_at, updated_at)
        SELECT 'dep_' || g, 'm_1', 'test', 'inv_' || g, 'USDT', 'TRX', 'a' || g, 'tx_' || g, 0, 100, 19, 'CONFIRMED', true, 0, g, g FROM generate_series(1, 20000) AS g;
      ANALYZE idx.invoices;
      ANALYZE idx.deposits;
    `);
    // The adapter sends PGlite each statement with its values inlined: record them to EXPLAIN.
    const sent: string[] = [];
    const recording = new Proxy(db, {
      get(target, property) {
        if (property === "exec") {
          return (text: string) => {
            sent.push(text);
            return target.exec(text);
          };
        }
        const value = Reflect.get(target, property, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    const storage = postgresStorage({ pglite: recording, schema: "idx", migrate: false });
    const ids = async (filter: { orderId?: string; txHash?: string }) => (await storage.listInvoices(TEST, filter, { limit: 50 })).map((found) => found.id);
    expect(await ids({ orderId: "ord_4242" })).toEqual(["inv_4242"]);
    expect(await ids({ orderId: "4200" })).toEqual([]); // a number is not the string "4200"
    expect(await ids({ txHash: "tx_4242" })).toEqual(["inv_4242"]);
    const plan = async (needle: string) => {
      const statement = sent.find((text) => text.includes(needle) && text.includes("ORDER BY created_at DESC"));
      expect(statement).toBeDefined();
      return (await client.query(`EXPLAIN ${statement}`)).rows.map((row) => row["QUERY PLAN"]).join("\n");
    };
    const byOrderId = await plan("'ord_4242'");
    expect(byOrderId).toContain("invoices_by_order_id");
    expect(byOrderId).not.toContain("Seq Scan");
    const byTxHash = await plan("'tx_4242'");
    expect(byTxHash).toContain("deposits_by_tx_hash");
    expect(byTxHash).not.toContain("Seq Scan");
  }, 60_000);
});

describe("search indexes built ahead of the upgrade", () => {
  it("applies migration 12 over the indexes an operator built beforehand, as docs/storage.md shows", async () => {
    const db = await PGlite.create();
    const client = pgliteClient(db, { ownsDatabase: true });
    cleanups.push(() => client.close());
    expect(
      await migrate(
        client,
        "pre12",
        MIGRATIONS.filter((step) => step.version < 12),
      ),
    ).not.toContain(12);
    const guide = await readFile(new URL("../../../docs/storage.md", import.meta.url), "utf8");
    const statements = guide.match(/^CREATE INDEX CONCURRENTLY .*;$/gm) ?? [];
    expect(statements).toHaveLength(2);
    // One statement at a time: CONCURRENTLY cannot run in a transaction, nor in a batch of statements.
    await client.exec("SET search_path TO pre12");
    for (const statement of statements) await client.exec(statement);
    expect(
      await migrate(
        client,
        "pre12",
        MIGRATIONS.filter((step) => step.version <= 12),
      ),
    ).toEqual([12]);
    const { rows } = await client.query(
      "SELECT indexname FROM pg_indexes WHERE schemaname = 'pre12' AND indexname IN ('invoices_by_order_id', 'deposits_by_tx_hash')",
    );
    expect(rows.map((row) => row.indexname).sort()).toEqual(["deposits_by_tx_hash", "invoices_by_order_id"]);
  }, 60_000);
});
