/**
 * `npm run bench`, Monero part: what one deposit poll of `moneroChain()` costs on a real monerod
 * (regtest) with its wallet RPCs, with 1k and with 100k open invoices (issued subaddresses) in
 * storage. The bench mines BLOCKS blocks, each with one transaction paying 10 issued
 * subaddresses and one paying 5 subaddresses never issued; then each size scans them from a
 * fresh cursor (one poll reads every block of the window at once: `refresh`, one `get_transfers`,
 * one storage lookup), 5 times per round, alternating the sizes round by round so their ratio is fair. Target: the
 * cost per scanned block grows by at most 20% from 1k to 100k open invoices.
 *
 * Storage: the PostgreSQL server at DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test),
 * or PGlite when it is unreachable. BENCH_SCAN_BLOCKS (default 10) and BENCH_ROUNDS (default 7).
 */
import { PGlite } from "@electric-sql/pglite";
import pg from "pg";
import type { Storage } from "../src/core/ports/storage/index";
import { chainHost } from "../src/core/chains/chains";
import { CurrencyCatalog, DEFAULT_CURRENCIES, DEFAULT_FIAT } from "../src/currencies";
import { memoryStorage } from "../src/index";
import { moneroChain } from "../src/monero";
import { postgresStorage } from "../src/postgres";
import { startMonerod, type Monerod } from "../test/adapters/chain/monero/monerod";
import { median } from "./support";

const BLOCKS = Number(process.env.BENCH_SCAN_BLOCKS ?? 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
/** Scans per size and round (their mean is the round's figure): one scan is short enough for the machine's noise to swing it. */
const SCANS = 5;
const OURS_PER_BLOCK = 10;
const OTHERS_PER_BLOCK = 5;
const SIZES = [1_000, 100_000];
const GROWTH_LIMIT = 0.2;
const databaseUrl = process.env.DATABASE_URL || "postgres://postgres@127.0.0.1:5432/test";
const silent = { warn: () => undefined, error: (message: string) => console.error(message) };
const currencies = new CurrencyCatalog(DEFAULT_CURRENCIES, DEFAULT_FIAT);

function adapter(node: Monerod) {
  return moneroChain({
    daemonUrl: node.daemonUrl,
    walletRpcUrl: node.viewWalletRpcUrl,
    address: node.merchant.address,
    viewKey: node.merchant.viewKey,
    walletName: "bench-view",
  });
}

async function main(): Promise<void> {
  const node = await startMonerod({ hotBlocks: 1 });
  try {
    const issued = await buildBlocks(node);
    const db = await database();
    const subjects = [];
    for (const size of SIZES) subjects.push({ size, storage: await seededStorage(db, size, issued) });
    const perBlock = new Map<number, number[]>(SIZES.map((size) => [size, []]));
    for (let round = 0; round < ROUNDS; round++) {
      for (const subject of round % 2 === 0 ? subjects : [...subjects].reverse()) {
        let total = 0;
        for (let i = 0; i < SCANS; i++) total += await scan(node, subject.storage);
        perBlock.get(subject.size)!.push(total / SCANS);
      }
    }
    const small = median(perBlock.get(SIZES[0]!)!);
    const large = median(perBlock.get(SIZES[1]!)!);
    const growth = large / small - 1;
    console.log(
      `Monero deposit scan on monerod regtest (${db.kind}), ${BLOCKS} blocks of ${OURS_PER_BLOCK} transfers to issued subaddresses and ${OTHERS_PER_BLOCK} to others, median of ${ROUNDS}:`,
    );
    for (const size of SIZES) console.log(`  ${size.toLocaleString("en")} open invoices: ${median(perBlock.get(size)!).toFixed(2)} ms per scanned block`);
    console.log(
      `  cost per block grows ${(growth * 100).toFixed(1)}% from 1k to 100k (target <= ${GROWTH_LIMIT * 100}%): ${growth <= GROWTH_LIMIT ? "ok" : "MISSED"}`,
    );
    for (const subject of subjects) await subject.storage.close();
    await db.close();
  } finally {
    await node.stop();
  }
}

/** Issues the subaddresses the bench pays (the view-only wallet makes them) and mines the bench blocks; returns the issued ones. */
async function buildBlocks(node: Monerod): Promise<string[]> {
  const maker = adapter(node);
  const scratch = memoryStorage();
  maker.bind!(chainHost({ storage: scratch, currencies, mode: "live", logger: silent }));
  await maker.ready!();
  const issued: string[] = [];
  const others: string[] = [];
  for (let i = 0; i < BLOCKS * OURS_PER_BLOCK; i++)
    issued.push(await maker.createAddress({ coin: "XMR", network: "XMR", merchantId: "m", invoiceId: `inv_bench_${i}` }));
  // Subaddresses of the same wallet that no invoice holds: the wallet lists them, the lookup drops them.
  for (let i = 0; i < BLOCKS * OTHERS_PER_BLOCK; i++)
    others.push(await maker.createAddress({ coin: "XMR", network: "XMR", merchantId: "m", invoiceId: `other_${i}` }));
  await scratch.close();
  for (let block = 0; block < BLOCKS; block++) {
    await node.payer("refresh");
    for (const group of [
      issued.slice(block * OURS_PER_BLOCK, (block + 1) * OURS_PER_BLOCK),
      others.slice(block * OTHERS_PER_BLOCK, (block + 1) * OTHERS_PER_BLOCK),
    ]) {
      await node.payer("transfer", { destinations: group.map((address) => ({ address, amount: 1_000_000_000n })), account_index: 0 });
    }
    await node.mine(1);
  }
  return issued;
}

/** One poll from a fresh cursor over the bench blocks; returns ms per scanned block. */
async function scan(node: Monerod, storage: Storage): Promise<number> {
  const chain = adapter(node);
  chain.bind!(chainHost({ storage, currencies, mode: "live", logger: silent }));
  await chain.ready!();
  const started = performance.now();
  const page = await chain.pollDeposits(null, 1000);
  const elapsed = performance.now() - started;
  if (page.deposits.length !== BLOCKS * OURS_PER_BLOCK) throw new Error(`the scan found ${page.deposits.length} deposits, expected ${BLOCKS * OURS_PER_BLOCK}`);
  return elapsed / BLOCKS;
}

/** The PostgreSQL server when it answers, else PGlite. */
async function database(): Promise<{
  kind: string;
  make: (schema: string) => Storage;
  raw: (sql: string, params?: unknown[]) => Promise<unknown>;
  close(): Promise<void>;
}> {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 4 });
  try {
    await pool.query("SELECT 1");
    return {
      kind: "PostgreSQL server",
      make: (schema) => postgresStorage({ pool, schema }),
      raw: (sql, params) => pool.query(sql, params),
      close: () => pool.end(),
    };
  } catch {
    await pool.end().catch(() => undefined);
    const pglite = await PGlite.create();
    return {
      kind: "PGlite",
      make: (schema) => postgresStorage({ pglite, schema }),
      raw: (sql, params) => pglite.query(sql, params),
      close: () => pglite.close(),
    };
  }
}

/** A storage whose addresses table holds `size` issued XMR addresses: the bench's own plus decoys. */
async function seededStorage(db: Awaited<ReturnType<typeof database>>, size: number, issued: string[]): Promise<Storage> {
  const schema = `bench_scan_xmr_${size}_${process.pid}`;
  await db.raw(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  const storage = db.make(schema);
  await storage.transaction(async (tx) => {
    for (const [i, address] of issued.entries()) {
      await tx.insertAddress({ mode: "live", network: "XMR", address, coin: "XMR", merchantId: "m_bench", invoiceId: `inv_bench_${i}`, createdAt: Date.now() });
    }
  });
  await db.raw(
    `INSERT INTO ${schema}.addresses (mode, network, address, coin, merchant_id, invoice_id, created_at) ` +
      "SELECT 'live', 'XMR', '8' || md5(g::text) || md5((g + 1)::text) || md5((g + 2)::text), 'XMR', 'm_bench', 'inv_decoy' || g, 0 FROM generate_series(1, $1::int) AS g",
    [size - issued.length],
  );
  await db.raw(`ANALYZE ${schema}.addresses`);
  return storage;
}

await main();
