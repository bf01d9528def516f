/**
 * `npm run bench`, chain part: how fast the EVM deposit scanner follows a real node (anvil), with
 * 1k and with 100k open invoices (issued addresses), on blocks of 100 transfers each (half ETH,
 * half ERC-20: a watched token, and for a quarter of the transfers a token the chain does not
 * list, as real blocks hold many tokens; a tenth of them to issued addresses). Both sizes read the very same blocks in
 * the same run, alternating, so their ratio is fair. Targets: the cost per block grows by at
 * most 20% from 1k to 100k open invoices, and a block is processed in well under Ethereum's
 * 12 s block time. Then, at 100k, the scan that also looks for unlisted tokens (every contract's
 * Transfer logs, what the router's host asks for) against one that reads the watched token's
 * logs only (a host without `reportUnlisted`), alternating in the same way: the cost of
 * watching for unlisted tokens, as a ratio.
 *
 * Storage: the PostgreSQL server at DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test),
 * or PGlite when it is unreachable. BENCH_SCAN_BLOCKS (default 20) and BENCH_ROUNDS (default 3).
 */
import { PGlite } from "@electric-sql/pglite";
import pg from "pg";
import { encodeFunctionData, parseUnits, type Address, type Hex } from "viem";
import type { Storage } from "../src/core/ports/storage/index";
import { chainHost } from "../src/core/chains/chains";
import { CurrencyCatalog, DEFAULT_CURRENCIES, DEFAULT_FIAT } from "../src/currencies";
import { evmChain } from "../src/evm";
import { postgresStorage } from "../src/postgres";
import { testTokenAbi, testTokenBytecode } from "../test/fixtures/contracts/artifacts";
import { startAnvil, type Anvil } from "../test/adapters/chain/evm/anvil";
import { median } from "./support";

const BLOCKS = Number(process.env.BENCH_SCAN_BLOCKS ?? 20);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const TRANSFERS_PER_BLOCK = 100;
const OURS_PER_BLOCK = 10;
const SIZES = [1_000, 100_000];
const GROWTH_LIMIT = 0.2;
const HOT = 9;
const databaseUrl = process.env.DATABASE_URL || "postgres://postgres@127.0.0.1:5432/test";
const silent = { warn: () => undefined, error: (message: string) => console.error(message) };

async function main(): Promise<void> {
  const node = await startAnvil({ automine: false });
  try {
    const { token, first, issued } = await buildBlocks(node);
    const db = await database();
    const subjects = [];
    for (const size of SIZES) subjects.push({ size, storage: await seededStorage(db, size, issued) });

    const perBlock = new Map<number, number[]>(SIZES.map((size) => [size, []]));
    for (let round = 0; round < ROUNDS; round++) {
      for (const subject of round % 2 === 0 ? subjects : [...subjects].reverse()) {
        perBlock.get(subject.size)!.push(await scanAll(node, token, first, subject.storage));
      }
    }
    const small = median(perBlock.get(SIZES[0]!)!);
    const large = median(perBlock.get(SIZES[1]!)!);
    const growth = large / small - 1;
    console.log(
      `EVM deposit scan on anvil (${db.kind}), ${BLOCKS} blocks of ${TRANSFERS_PER_BLOCK} transfers (${OURS_PER_BLOCK} to issued addresses), median of ${ROUNDS}:`,
    );
    for (const size of SIZES) {
      const ms = median(perBlock.get(size)!);
      console.log(`  ${size.toLocaleString("en")} open invoices: ${ms.toFixed(1)} ms per block, ${(1000 / ms).toFixed(1)} blocks/s`);
    }
    console.log(
      `  cost per block grows ${(growth * 100).toFixed(1)}% from 1k to 100k (target <= ${GROWTH_LIMIT * 100}%): ${growth <= GROWTH_LIMIT ? "ok" : "MISSED"}`,
    );
    console.log(`  a 100-transfer block takes ${((large / 12_000) * 100).toFixed(2)}% of Ethereum's 12 s block time`);

    const big = subjects.at(-1)!;
    const byMode = new Map<boolean, number[]>([
      [true, []],
      [false, []],
    ]);
    for (let round = 0; round < ROUNDS; round++) {
      for (const unlisted of round % 2 === 0 ? [true, false] : [false, true])
        byMode.get(unlisted)!.push(await scanAll(node, token, first, big.storage, unlisted));
    }
    const withUnlisted = median(byMode.get(true)!);
    const watchedOnly = median(byMode.get(false)!);
    console.log(
      `  ${big.size.toLocaleString("en")} open invoices, watching for unlisted tokens too: ${withUnlisted.toFixed(1)} ms per block; watched tokens only: ${watchedOnly.toFixed(1)} ms; ratio ${(withUnlisted / watchedOnly).toFixed(2)}`,
    );
    for (const subject of subjects) await subject.storage.close();
    await db.close();
  } finally {
    await node.stop();
  }
}

/** Mines BLOCKS blocks of 100 transfers each; returns the token, the first block and the issued addresses paid. */
async function buildBlocks(node: Anvil): Promise<{ token: Address; first: number; issued: Address[] }> {
  const deployer = node.account(0);
  const deployHash = await node.wallet.deployContract({
    abi: testTokenAbi,
    bytecode: testTokenBytecode,
    args: ["Bench USDT", "USDT", 6],
    account: deployer,
    chain: null,
  });
  const otherHash = await node.wallet.deployContract({
    abi: testTokenAbi,
    bytecode: testTokenBytecode,
    args: ["Bench unlisted", "UNL", 18],
    account: deployer,
    chain: null,
  });
  await node.mine(1);
  const token = (await node.public.getTransactionReceipt({ hash: deployHash })).contractAddress!;
  const unlisted = (await node.public.getTransactionReceipt({ hash: otherHash })).contractAddress!;
  const senders = [1, 2, 3, 4, 5, 6, 7, 8].map((index) => node.account(index));
  for (const sender of senders) {
    await node.wallet.writeContract({
      address: token,
      abi: testTokenAbi,
      functionName: "mint",
      args: [sender.address, parseUnits("1000000000", 6)],
      account: deployer,
      chain: null,
    });
    await node.wallet.writeContract({
      address: unlisted,
      abi: testTokenAbi,
      functionName: "mint",
      args: [sender.address, parseUnits("1000000000", 18)],
      account: deployer,
      chain: null,
    });
  }
  await node.mine(1);
  const nonces = new Map<string, number>();
  for (const sender of senders) nonces.set(sender.address, await node.public.getTransactionCount({ address: sender.address }));

  // The addresses the service issued: the adapter's own CREATE2 deposit addresses.
  const adapter = evmChain({ network: "ETH", rpcUrl: node.rpcUrl, hotWallet: node.privateKey(HOT) });
  const issued: Address[] = [];
  for (let i = 0; i < BLOCKS * OURS_PER_BLOCK; i++) {
    issued.push((await adapter.createAddress({ coin: "ETH", network: "ETH", merchantId: "m", invoiceId: `inv_bench_${i}` })) as Address);
  }
  const first = Number(await node.public.getBlockNumber()) + 1;
  let paid = 0;
  for (let block = 0; block < BLOCKS; block++) {
    const raws: Hex[] = [];
    for (let i = 0; i < TRANSFERS_PER_BLOCK; i++) {
      const sender = senders[i % senders.length]!;
      const nonce = nonces.get(sender.address)!;
      nonces.set(sender.address, nonce + 1);
      const to = i < OURS_PER_BLOCK ? issued[paid++]! : (`0x${(block * 1000 + i + 1).toString(16).padStart(40, "0")}` as Address);
      // Past the issued ones, every other token transfer is of the unlisted token.
      const contract = i >= OURS_PER_BLOCK && i % 4 === 3 ? unlisted : token;
      const fees = { chainId: node.chainId, nonce, maxFeePerGas: 100_000_000_000n, maxPriorityFeePerGas: 1_000_000_000n, type: "eip1559" as const };
      raws.push(
        i % 2 === 0
          ? await sender.signTransaction({ ...fees, to, value: 1_000_000_000_000_000n, gas: 21_000n })
          : await sender.signTransaction({
              ...fees,
              to: contract,
              data: encodeFunctionData({ abi: testTokenAbi, functionName: "transfer", args: [to, 1_000_000n] }),
              gas: 80_000n,
            }),
      );
    }
    for (const raw of raws) await node.public.sendRawTransaction({ serializedTransaction: raw });
    await node.mine(1);
    const mined = await node.public.getBlock({ blockTag: "latest" });
    if (mined.transactions.length !== TRANSFERS_PER_BLOCK)
      throw new Error(`block ${mined.number} holds ${mined.transactions.length} transfers, not ${TRANSFERS_PER_BLOCK}`);
  }
  return { token, first, issued };
}

/**
 * Scans every bench block one block per poll from a fresh cursor; returns the mean ms per block.
 * `unlisted` false binds a host without `reportUnlisted`: the scan reads the watched token's logs only.
 */
async function scanAll(node: Anvil, token: Address, first: number, storage: Storage, unlisted = true): Promise<number> {
  const adapter = evmChain({
    network: "ETH",
    rpcUrl: node.rpcUrl,
    hotWallet: node.privateKey(HOT),
    tokens: { USDT: { address: token, decimals: 6 } },
    startBlock: first,
    blocksPerPoll: 1,
    consolidation: false,
  });
  const host = chainHost({ storage, currencies: new CurrencyCatalog(DEFAULT_CURRENCIES, DEFAULT_FIAT), mode: "live", logger: silent });
  const { reportUnlisted: _reportUnlisted, ...watchedOnly } = host;
  adapter.bind!(unlisted ? host : watchedOnly);
  let cursor: string | null = null;
  let found = 0;
  const started = performance.now();
  for (let block = 0; block < BLOCKS; block++) {
    const page = await adapter.pollDeposits(cursor, 1000);
    found += page.deposits.filter((deposit) => deposit.confirmations > 0).length;
    cursor = page.cursor;
  }
  const elapsed = performance.now() - started;
  if (found < BLOCKS * OURS_PER_BLOCK) throw new Error(`the scan found ${found} deposits, expected at least ${BLOCKS * OURS_PER_BLOCK}`);
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

/** A storage whose addresses table holds `size` issued addresses: the bench's own plus decoys. */
async function seededStorage(db: Awaited<ReturnType<typeof database>>, size: number, issued: Address[]): Promise<Storage> {
  const schema = `bench_scan_${size}_${process.pid}`;
  await db.raw(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  const storage = db.make(schema);
  await storage.transaction(async (tx) => {
    for (const [i, address] of issued.entries()) {
      await tx.insertAddress({
        mode: "live",
        network: "ETH",
        address,
        coin: i % 2 === 0 ? "ETH" : "USDT",
        merchantId: "m_bench",
        invoiceId: `inv_bench_${i}`,
        createdAt: Date.now(),
      });
    }
  });
  await db.raw(
    `INSERT INTO ${schema}.addresses (mode, network, address, coin, merchant_id, invoice_id, created_at) ` +
      "SELECT 'live', 'ETH', '0xe' || lpad(to_hex(g), 39, '0'), 'ETH', 'm_bench', 'inv_decoy' || g, 0 FROM generate_series(1, $1::int) AS g",
    [size - issued.length],
  );
  await db.raw(`ANALYZE ${schema}.addresses`);
  return storage;
}

await main();
